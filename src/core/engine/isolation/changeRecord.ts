// A worktree step's change as a thing of its own: the commit its attempt made (parent: the step's
// base) kept under `refs/braid/runs/<run>/<step>` until `braid clean`, and a summary of its files
// for run.json. Every attempt that committed keeps its own ref too, under
// `refs/braid/attempts/<run>/<step>/<n>`, so a retry that replaces the step's change keeps the old.
import { git, gitOk } from '../../exec/git';

export type ChangedFileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface ChangedFile {
  readonly path: string;
  readonly status: ChangedFileStatus;
  /** A rename's old path. */
  readonly from?: string;
  /** Lines added and removed (0 and 0 for a binary file, which says `binary`). */
  readonly added: number;
  readonly removed: number;
  readonly binary?: true;
}

/** What run.json keeps of a step's (or an attempt's) change. */
export interface ChangeRecord {
  readonly commit: string;
  readonly base: string;
  readonly files: readonly ChangedFile[];
}

/** The ref holding a step's latest change. */
export function changeRef(runId: string, stepId: string): string {
  return `refs/braid/runs/${runId}/${stepId}`;
}

/** The ref holding one attempt's change (a retry must not lose what it replaces). */
export function attemptChangeRef(runId: string, stepId: string, attempt: number): string {
  return `refs/braid/attempts/${runId}/${stepId}/${attempt}`;
}

const RAW_STATUS: Readonly<Record<string, ChangedFileStatus>> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted', R: 'renamed' };

/**
 * Records the change base → commit: its refs (none when nothing changed) and its files, in two
 * git processes run side by side (the bench keeps this a small part of a merge-back).
 */
export async function recordChange(o: { root: string; runId: string; stepId: string; attempt: number; base: string; commit: string }): Promise<ChangeRecord> {
  if (o.commit === o.base) return { commit: o.commit, base: o.base, files: [] };
  const refs = `update ${changeRef(o.runId, o.stepId)} ${o.commit}\nupdate ${attemptChangeRef(o.runId, o.stepId, o.attempt)} ${o.commit}\n`;
  const [files] = await Promise.all([
    changedFiles(o.root, o.base, o.commit),
    gitOk(['update-ref', '--stdin'], { cwd: o.root, input: refs }),
  ]);
  return { commit: o.commit, base: o.base, files };
}

/** The files base → commit, renames found (git's default similarity), with line counts: one process. */
export async function changedFiles(root: string, base: string, commit: string): Promise<ChangedFile[]> {
  const out = await gitOk(['diff', '--raw', '--numstat', '-z', '-M', '--no-abbrev', '--no-ext-diff', '--no-textconv', '--no-color', base, commit], { cwd: root });
  return parseRawNumstat(out);
}

/**
 * Parses `git diff --raw --numstat -z`: the raw entries (`:modes shas STATUS\0path\0[to\0]`) come
 * first, then one numstat entry each in the same order (`added\tremoved\tpath\0`, or for a rename
 * `added\tremoved\t\0from\0to\0`).
 */
export function parseRawNumstat(out: string): ChangedFile[] {
  const f = out.split('\0');
  const raws: Array<{ status: ChangedFileStatus; path: string; from?: string }> = [];
  let i = 0;
  while (i < f.length && f[i]!.startsWith(':')) {
    const letter = f[i]!.split(' ')[4]!.charAt(0);
    const status = RAW_STATUS[letter] ?? 'modified';
    if (letter === 'R' || letter === 'C') {
      raws.push(letter === 'R' ? { status, from: f[i + 1]!, path: f[i + 2]! } : { status: 'added', path: f[i + 2]! });
      i += 3;
    } else {
      raws.push({ status, path: f[i + 1]! });
      i += 2;
    }
  }
  return raws.map((r) => {
    const [added = '-', removed = '-', rest = ''] = (f[i] ?? '').split('\t');
    i += rest === '' ? 3 : 1;
    const binary = added === '-';
    return {
      path: r.path, status: r.status, ...(r.from !== undefined ? { from: r.from } : {}),
      added: binary ? 0 : Number(added), removed: binary ? 0 : Number(removed), ...(binary ? { binary: true as const } : {}),
    };
  });
}

/** Whether the repository still holds `commit` (`braid clean` drops a run's changes). */
export async function hasCommit(root: string, commit: string): Promise<boolean> {
  return (await git(['cat-file', '-e', `${commit}^{commit}`], { cwd: root })).code === 0;
}

/** Deletes every change ref of a run (`braid clean`). */
export async function dropChangeRefs(root: string, runId: string): Promise<void> {
  const refs = (await gitOk(['for-each-ref', '--format=%(refname)', `refs/braid/runs/${runId}/`, `refs/braid/attempts/${runId}/`], { cwd: root }))
    .split('\n').filter((r) => r !== '');
  if (refs.length === 0) return;
  await gitOk(['update-ref', '--stdin'], { cwd: root, input: refs.map((r) => `delete ${r}\n`).join('') });
}
