// Where a run's records live: the plan's (or the current folder's) git root, else that folder.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

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
  if (override) return resolve(override);
  return workspaceOf(dirname(resolve(planFile)));
}

export function workspaceForCwd(override?: string): string {
  return override ? resolve(override) : workspaceOf(process.cwd());
}

export function isDir(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}
