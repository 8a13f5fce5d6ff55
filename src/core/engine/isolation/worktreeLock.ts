// Serialises git's worktree administration (add, remove, prune, list, branch deletion) per
// repository. Measured on git 2.39: concurrent `git worktree add` calls read each other's
// half-written `.git/worktrees/<name>` and fail ("failed to read .git/worktrees/s2/commondir").
// In-process calls queue on a promise chain; other processes (a second window, a CLI run) are
// kept out by a proper-lockfile mutex in `.braid/`, taken over if its holder died.
import { join, resolve } from 'node:path';
import * as lockfile from 'proper-lockfile';
import { ensureBraidDir } from './worktreeSetup';

const chains = new Map<string, Promise<unknown>>();

/** Runs `fn` holding the repository's worktree-administration lock. */
export function withWorktreeLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const key = resolve(root);
  const run = async (): Promise<T> => {
    const braid = join(key, '.braid');
    await ensureBraidDir(key);
    const release = await lockfile.lock(braid, {
      lockfilePath: join(braid, 'worktrees.lock'),
      realpath: false,
      stale: 10_000,
      retries: { retries: 200, factor: 1.2, minTimeout: 10, maxTimeout: 250 },
      // The default throws from a timer (an uncaught exception in the engine) when the lock's
      // mtime could not be refreshed; git's own locks still protect the repository then.
      onCompromised: () => undefined,
    });
    try {
      return await fn();
    } finally {
      await release();
    }
  };
  const next = (chains.get(key) ?? Promise.resolve()).then(run, run);
  const tail = next.catch(() => undefined);
  chains.set(key, tail);
  void tail.then(() => { if (chains.get(key) === tail) chains.delete(key); });
  return next;
}
