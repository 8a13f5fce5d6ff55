// Where a run's records live: the plan's (or the current folder's) git root, else that folder.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { askGitTop } from './gitTop';

/** The workspace cannot hold Braid's records: an expected failure, said in one line (exit 2). */
export class WorkspaceError extends Error {}

/** The workspace, checked: its `.braid` must be a folder (or absent). */
function checked(ws: string): string {
  const braid = join(ws, '.braid');
  let link;
  try {
    link = lstatSync(braid);
  } catch {
    return ws;
  }
  // A link to a folder is a folder (`.braid` on another disk); to nothing or to a file, it is not.
  let s;
  try {
    s = statSync(braid);
  } catch {
    s = undefined;
  }
  if (!s?.isDirectory()) {
    const what = link.isSymbolicLink() ? (s ? 'a symbolic link to a file' : 'a symbolic link to nothing') : 'a file';
    throw new WorkspaceError(`${braid} is ${what}, not a folder: Braid keeps its runs and locks there; move it away`);
  }
  return ws;
}

/** The git tops this process found: a workspace that is one needs no second probe (`validate`). */
const gitTops = new Set<string>();

/** True when `ws` is a git top that workspaceOf found (false: not known, probe it). */
export const isFoundGitTop = (ws: string): boolean => gitTops.has(ws);

/** The git top-level containing `dir`, else `dir` itself. */
export function workspaceOf(dir: string): string {
  try {
    const top = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    if (top) {
      gitTops.add(top);
      return top;
    }
  } catch {
    /* not a git repository */
  }
  return dir;
}

/** The workspace for a plan file, or `--workspace` when given. */
export function workspaceForPlan(planFile: string, override?: string): string {
  return checked(override ? resolve(override) : workspaceOf(dirname(resolve(planFile))));
}

/** workspaceOf without the wait: `git rev-parse` answers while the command loads its modules. */
async function workspaceOfAsync(dir: string, asked?: Promise<string>): Promise<string> {
  const top = await (asked ?? askGitTop(dir));
  if (top) gitTops.add(top);
  return top || dir;
}

/**
 * workspaceForPlan, started now and awaited when the command needs it. `asked`: git's answer for
 * the plan's folder, asked already (out/cli.js does for `braid validate`).
 */
export async function workspaceForPlanAsync(
  planFile: string,
  override?: string,
  asked?: Promise<string>,
): Promise<string> {
  return checked(override ? resolve(override) : await workspaceOfAsync(dirname(resolve(planFile)), asked));
}

export function workspaceForCwd(override?: string): string {
  return checked(override ? resolve(override) : workspaceOf(process.cwd()));
}

export function isDir(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}
