// Where a workspace's worktrees live: outside it, in the user's cache, one folder a workspace
// (`~/.cache/braid/<hash of its path>/worktrees/<run>/<step>`). Inside the workspace
// (`.braid/worktrees/…`) a step could reach the live workspace by climbing from its own top level
// (`$(git rev-parse --show-toplevel)/../../..`); here that leads to the cache. This separates
// cooperating steps; it is not a sandbox (README, Isolation).
import { createHash } from 'node:crypto';
import { realpathSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The cache folder Braid keeps per-workspace state in: BRAID_CACHE_DIR, else $XDG_CACHE_HOME/braid, else ~/.cache/braid. */
export function braidCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BRAID_CACHE_DIR) return resolve(env.BRAID_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return join(resolve(env.XDG_CACHE_HOME), 'braid');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'braid', 'cache');
  return join(homedir(), '.cache', 'braid');
}

const real = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    // Not there yet: the path as given is the best name for it.
    return resolve(p);
  }
};

/** The folder holding the worktrees of the workspace at `root` (every run's, `<run>/<step>` below it). */
export function worktreesRoot(root: string): string {
  const ws = real(root);
  const id = createHash('sha256').update(ws).digest('hex').slice(0, 16);
  return join(braidCacheDir(), id, 'worktrees');
}

/** Creates the workspace's cache folder, with a note naming the workspace it belongs to. */
export function ensureWorktreesRoot(root: string): string {
  const dir = worktreesRoot(root);
  mkdirSync(dir, { recursive: true });
  const note = join(dir, '..', 'workspace');
  if (!existsSync(note)) writeFileSync(note, `${real(root)}\n`);
  return dir;
}
