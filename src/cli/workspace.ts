// Where a run's records live: the plan's (or the current folder's) git root, else that folder.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The workspace cannot hold Braid's records: an expected failure, said in one line (exit 2). */
export class WorkspaceError extends Error {}

/** The workspace, checked: its `.braid` must be a folder (or absent). */
function checked(ws: string): string {
  const braid = join(ws, '.braid');
  let s;
  try { s = lstatSync(braid); } catch { return ws; }
  if (!s.isDirectory()) throw new WorkspaceError(`${braid} is ${s.isSymbolicLink() ? 'a symbolic link' : 'a file'}, not a folder: Braid keeps its runs and locks there; move it away`);
  return ws;
}

/** The git top-level containing `dir`, else `dir` itself. */
export function workspaceOf(dir: string): string {
  try {
    const top = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    if (top) return top;
  } catch { /* not a git repository */ }
  return dir;
}

/** The workspace for a plan file, or `--workspace` when given. */
export function workspaceForPlan(planFile: string, override?: string): string {
  return checked(override ? resolve(override) : workspaceOf(dirname(resolve(planFile))));
}

export function workspaceForCwd(override?: string): string {
  return checked(override ? resolve(override) : workspaceOf(process.cwd()));
}

export function isDir(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}
