// A worktree step's change as a thing of its own: the commit its attempt made (parent: the step's
// base) kept under `refs/braid/runs/<run>/<step>` until `braid clean`, and a summary of its files
// for run.json. When a later attempt (a retry) replaces the step's change, the one it replaces
// moves to `refs/braid/attempts/<run>/<step>/<commit>`: every attempt's record keeps its change.
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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

/** The ref keeping an earlier attempt's change once a retry replaced the step's. */
export function attemptChangeRef(runId: string, stepId: string, commit: string): string {
  return `refs/braid/attempts/${runId}/${stepId}/${commit}`;
}

const RAW_STATUS: Readonly<Record<string, ChangedFileStatus>> = {
  A: 'added',
  M: 'modified',
  T: 'modified',
  D: 'deleted',
  R: 'renamed',
};

/**
 * Records the change base → commit: its refs (none when nothing changed) and its files (`files`
 * when the caller has them: commitWorktree's summary). The bench keeps this a small part of the
 * merge-back it precedes.
 */
export async function recordChange(o: {
  root: string;
  runId: string;
  stepId: string;
  base: string;
  commit: string;
  files?: readonly ChangedFile[];
}): Promise<ChangeRecord> {
  if (o.commit === o.base) return { commit: o.commit, base: o.base, files: [] };
  const [files] = await Promise.all([
    o.files ?? changedFiles(o.root, o.base, o.commit),
    setChangeRef(o.root, o.runId, o.stepId, o.commit),
  ]);
  return { commit: o.commit, base: o.base, files: [...files] };
}

/** Points the step's ref at `commit`, first keeping the change it pointed at (an earlier attempt's). */
async function setChangeRef(root: string, runId: string, stepId: string, commit: string): Promise<void> {
  const ref = changeRef(runId, stepId);
  const dir = await filesBackendDir(root);
  const before = dir
    ? await readFile(join(dir, ...ref.split('/')), 'utf8').then(
        (s) => s.trim(),
        () => undefined,
      )
    : (await git(['rev-parse', '--verify', '--quiet', ref], { cwd: root })).stdout.trim() || undefined;
  const refs: Array<readonly [string, string]> = [[ref, commit]];
  if (before !== undefined && before !== commit && FULL_SHA.test(before))
    refs.unshift([attemptChangeRef(runId, stepId, before), before]);
  await writeRefs(root, dir, refs);
}

const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * Sets refs to commits. In the files ref backend (git's default) a ref is a file holding its
 * commit id: written here as git does (a temp file renamed over it), without a git process. Other
 * layouts (reftable, a `.git` file we cannot follow) go through `git update-ref`.
 */
async function writeRefs(
  root: string,
  dir: string | undefined,
  refs: ReadonlyArray<readonly [string, string]>,
): Promise<void> {
  if (!dir || refs.some(([, sha]) => !FULL_SHA.test(sha))) {
    await gitOk(['update-ref', '--stdin'], {
      cwd: root,
      input: refs.map(([r, sha]) => `update ${r} ${sha}\n`).join(''),
    });
    return;
  }
  // One after the other: the kept attempt's ref exists before the step's ref moves on.
  for (const [ref, sha] of refs) {
    const file = join(dir, ...ref.split('/'));
    await mkdir(dirname(file), { recursive: true });
    // git's own protocol: `<ref>.lock` made exclusively, then renamed over the ref.
    const lock = `${file}.lock`;
    await writeFile(lock, `${sha}\n`, { flag: 'wx' }).catch(async (e: NodeJS.ErrnoException) => {
      // Only this step's attempt writes its refs: a lock left there is a crashed attempt's.
      if (e.code !== 'EEXIST') throw e;
      await unlink(lock);
      await writeFile(lock, `${sha}\n`, { flag: 'wx' });
    });
    await rename(lock, file);
  }
}

const backendDirs = new Map<string, string | undefined>();

/** The repository's common git dir when it stores refs as files; undefined otherwise. */
async function filesBackendDir(root: string): Promise<string | undefined> {
  if (backendDirs.has(root)) return backendDirs.get(root);
  let dir: string | undefined = join(root, '.git');
  try {
    if (!(await stat(dir)).isDirectory())
      dir = undefined; // a linked worktree or submodule: ask git
    else if ((await exists(join(dir, 'reftable'))) || !(await exists(join(dir, 'refs')))) dir = undefined;
    else if (/refstorage\s*=\s*reftable/i.test(await readFile(join(dir, 'config'), 'utf8'))) dir = undefined;
  } catch {
    // Any unreadable piece of .git: git itself is the slower, always-right answer.
    dir = undefined;
  }
  backendDirs.set(root, dir);
  return dir;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    // Gone or unreadable both mean no file we could use.
    return false;
  }
}

/** The files base → commit, renames found (git's default similarity), with line counts: one process. */
export async function changedFiles(root: string, base: string, commit: string): Promise<ChangedFile[]> {
  const out = await gitOk(
    [
      'diff',
      '--raw',
      '--numstat',
      '-z',
      '-M',
      '--no-abbrev',
      '--no-ext-diff',
      '--no-textconv',
      '--no-color',
      base,
      commit,
    ],
    { cwd: root },
  );
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
      path: r.path,
      status: r.status,
      ...(r.from !== undefined ? { from: r.from } : {}),
      added: binary ? 0 : Number(added),
      removed: binary ? 0 : Number(removed),
      ...(binary ? { binary: true as const } : {}),
    };
  });
}

/** Whether the repository still holds `commit` (`braid clean` drops a run's changes). */
export async function hasCommit(root: string, commit: string): Promise<boolean> {
  return (await git(['cat-file', '-e', `${commit}^{commit}`], { cwd: root })).code === 0;
}

/** Deletes every change ref of a run (`braid clean`). */
export async function dropChangeRefs(root: string, runId: string): Promise<void> {
  const refs = (
    await gitOk(['for-each-ref', '--format=%(refname)', `refs/braid/runs/${runId}/`, `refs/braid/attempts/${runId}/`], {
      cwd: root,
    })
  )
    .split('\n')
    .filter((r) => r !== '');
  if (refs.length === 0) return;
  await gitOk(['update-ref', '--stdin'], { cwd: root, input: refs.map((r) => `delete ${r}\n`).join('') });
}
