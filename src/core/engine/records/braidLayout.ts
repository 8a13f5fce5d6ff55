// Where Braid keeps its own files in a workspace: `.braid/` and each part of it (run records,
// worktrees, lock files, merge scratch space, the engine's log). Every module that reads or
// writes there asks here, so the layout is written down once (docs/plan-format.md describes it).
import { join } from 'node:path';
import { worktreesRoot } from './worktreeHome';

/** The folder's name, as workspace-relative paths and globs meet it. */
export const BRAID_DIR = '.braid';

/** `.braid/` of a workspace. */
export const braidDir = (root: string): string => join(root, BRAID_DIR);
/** Its `.gitignore` (`*`): nothing under `.braid/` belongs in git. */
export const braidGitignore = (root: string): string => join(root, BRAID_DIR, '.gitignore');
/** One folder a run: its run.json, logs and outputs. */
export const runsDir = (root: string): string => join(root, BRAID_DIR, 'runs');
/** Worktrees of steps, one folder a run (a step's own is `<run>/<step>`). They live outside the workspace, in the user's cache (worktreeHome.ts says why). */
export const worktreesDir = (root: string, runId?: string): string =>
  runId === undefined ? worktreesRoot(root) : join(worktreesRoot(root), runId);
/** The lock guarding git's worktree administration (`git worktree add/remove`). */
export const worktreesLockFile = (root: string): string => join(root, BRAID_DIR, 'worktrees.lock');
/** Held write and read locks, one file a holder, for other processes to see. */
export const locksDir = (root: string): string => join(root, BRAID_DIR, 'locks');
/** Scratch space of merge-backs and applies (same file system as the workspace, for renames). */
export const tmpDir = (root: string): string => join(root, BRAID_DIR, 'tmp');
/** The engine process's log. */
export const engineLogFile = (root: string): string => join(root, BRAID_DIR, 'engine.log');

/** Whether a workspace-relative path (`/`-separated, as git prints it) is `.braid/` or inside it. */
export function isBraidPath(relative: string): boolean {
  return relative === BRAID_DIR || relative.startsWith(`${BRAID_DIR}/`);
}
