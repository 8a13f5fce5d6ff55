// Git worktrees for `worktree` steps: the run's base, one worktree and branch per step, its needs'
// results merged in, its change committed, and clean-up. The user's index and HEAD are never
// touched: the snapshot uses a temporary index, everything else happens inside Braid's worktrees.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { firstLine, git, gitOk, splitZ } from '../../exec/git';
import { recoverInterruptedMerges } from './applyChanges';
import { ensureWorktreesRoot } from '../records/worktreeHome';
import { changedFiles, type ChangedFile } from '../records/changeRecord';
import { withWorktreeLock } from './worktreeLock';
import { bringIn, conePatterns, ensureBraidDir, normaliseConePaths, untrackedMatches } from './worktreeSetup';
import { registerWorktree, type Registration } from './worktreeRegister';
import { worktreesDir } from '../records/braidLayout';

export type Outcome<T> = ({ ok: true } & T) | { ok: false; message: string };

/** Braid's notes about a worktree, kept in the worktree's own git dir (removed with it). */
interface WorktreeMeta {
  /** The commit the step's own change starts from: its base, then base plus its needs. */
  start: string;
  /** Copied and linked paths: set-up, never part of the step's change. */
  exclude: string[];
  sparse: boolean;
}

// index.sparse: outside the cone the index keeps one entry a directory, not one a file (a 10,000-file
// repository's index is 18 KiB instead of 800). Commands run without these settings expand it.
const SPARSE_CONFIG = [
  '-c',
  'core.sparseCheckout=true',
  '-c',
  'core.sparseCheckoutCone=true',
  '-c',
  'index.sparse=true',
];
// Parallel checkout, one worker a core (git's default is one in all; below 100 files it stays
// sequential): writing a worktree's files is the bulk of its set-up, and a plain `git worktree
// add` is slower than copying the files (README "Figures").
const CHECKOUT = ['-c', 'checkout.workers=0'];
const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const FULL_SHA = /^[0-9a-fA-F]{40}$/;

function checkId(kind: string, id: string): void {
  if (!ID.test(id) || id.includes('..') || id.endsWith('.lock'))
    throw new Error(`invalid ${kind} for a worktree: ${JSON.stringify(id)}`);
}

/** Where a step's worktree lives. */
export function worktreePath(root: string, runId: string, stepId: string): string {
  return join(worktreesDir(root, runId), stepId);
}

/** The branch a step's worktree is on. */
export function worktreeBranch(runId: string, stepId: string): string {
  return `braid/${runId}/${stepId}`;
}

/**
 * A worktree's own git dir, from its `.git` file (`gitdir: …`) rather than a `git rev-parse`
 * process: worktree set-up asks for it several times, and each process is ~5 ms here.
 */
async function gitDirOf(worktree: string): Promise<string> {
  try {
    const m = /^gitdir: (.+)$/m.exec(await readFile(join(worktree, '.git'), 'utf8'));
    if (m) return resolve(worktree, m[1]!.trim());
  } catch {
    /* not a file: ask git */
  }
  return (await gitOk(['rev-parse', '--absolute-git-dir'], { cwd: worktree })).trim();
}

async function metaPath(worktree: string): Promise<string> {
  return join(await gitDirOf(worktree), 'braid.json');
}

async function readMeta(worktree: string): Promise<WorktreeMeta | undefined> {
  try {
    return JSON.parse(await readFile(await metaPath(worktree), 'utf8')) as WorktreeMeta;
  } catch {
    // No metadata (a worktree Braid did not make, or made before it wrote one) or a torn write.
    return undefined;
  }
}

async function writeMeta(worktree: string, meta: WorktreeMeta): Promise<void> {
  await writeFile(await metaPath(worktree), JSON.stringify(meta));
}

/** Moves where the worktree's own change starts (its next commit is diffed against `start`). */
export async function setWorktreeStart(worktree: string, start: string): Promise<void> {
  const meta = await readMeta(worktree);
  await writeMeta(worktree, { exclude: [], sparse: false, ...meta, start });
}

async function revParse(cwd: string, rev: string): Promise<string | undefined> {
  const r = await git(['rev-parse', '--verify', '--quiet', rev], { cwd });
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** The repository's top level containing `dir`, or undefined outside git. */
export async function isGitRepo(dir: string): Promise<string | undefined> {
  const r = await git(['rev-parse', '--show-toplevel'], { cwd: dir });
  const top = r.stdout.trim();
  return r.code === 0 && top !== '' ? top : undefined;
}

/**
 * The run's base commit: `baseRef` resolved to a commit, else a commit of the workspace as `git
 * add -A` sees it (uncommitted edits and untracked files that are not ignored included, `.braid`
 * never), or HEAD when that is HEAD's tree. Ignored files come in only as a step's `copy`/`symlink`.
 */
export async function snapshotBase(
  root: string,
  baseRef?: string,
): Promise<{ ok: true; sha: string } | { ok: false; message: string }> {
  if (baseRef !== undefined) {
    if (baseRef === '' || baseRef.startsWith('-')) return { ok: false, message: `base "${baseRef}" is not a git ref` };
    const sha = await revParse(root, `${baseRef}^{commit}`);
    return sha ? { ok: true, sha } : { ok: false, message: `base "${baseRef}" does not name a commit in ${root}` };
  }
  const head = await revParse(root, 'HEAD^{commit}');
  if (!head) {
    return { ok: false, message: `${root} has no commit yet (HEAD is unborn): commit once, or set the plan's base` };
  }
  // Not `git stash create`: it refreshes and rewrites the user's index (taking index.lock). A copy
  // of the index keeps its stat data, so `add -A` only re-reads files that changed, and hashes
  // the untracked ones (a step sees the files an earlier run added and nobody committed yet).
  const dir = await mkdtemp(join(tmpdir(), 'braid-snapshot-'));
  try {
    const env = { GIT_INDEX_FILE: join(dir, 'index') };
    const indexFile = resolve(root, (await gitOk(['rev-parse', '--git-path', 'index'], { cwd: root })).trim());
    try {
      await copyFile(indexFile, env.GIT_INDEX_FILE);
    } catch {
      // A fresh repository has no index yet: read HEAD's tree instead.
      await gitOk(['read-tree', head], { cwd: root, env });
    }
    const add = await git(['add', '-A'], { cwd: root, env });
    if (add.code !== 0) return { ok: false, message: `could not snapshot the workspace: ${firstLine(add.stderr)}` };
    // `.braid` ignores itself (its .gitignore is `*`); a folder that lost that file stays out all the same.
    if (existsSync(join(root, '.braid')) && !existsSync(join(root, '.braid', '.gitignore'))) {
      await gitOk(['rm', '--cached', '-r', '-q', '--ignore-unmatch', '--', '.braid'], { cwd: root, env });
    }
    const tree = (await gitOk(['write-tree'], { cwd: root, env })).trim();
    if (tree === (await revParse(root, 'HEAD^{tree}'))) return { ok: true, sha: head };
    const sha = (
      await gitOk(['commit-tree', tree, '-p', head, '-m', 'braid: snapshot of the workspace'], { cwd: root })
    ).trim();
    return { ok: true, sha };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A step's worktree at `<cache>/<workspace hash>/worktrees/<run>/<step>` (worktreeHome.ts) on branch `braid/<run>/<step>` from `base`,
 * with its sparse cone and its copied and linked untracked files.
 */
export async function createWorktree(o: {
  root: string;
  runId: string;
  stepId: string;
  base: string;
  sparse?: readonly string[];
  copy?: readonly string[];
  symlink?: readonly string[];
}): Promise<Outcome<{ path: string; branch: string; copied: string[]; linked: string[] }>> {
  checkId('run id', o.runId);
  checkId('step id', o.stepId);
  const path = worktreePath(o.root, o.runId, o.stepId);
  const branch = worktreeBranch(o.runId, o.stepId);
  const cone = o.sparse && o.sparse.length > 0 ? normaliseConePaths(o.sparse) : undefined;
  if (cone && !cone.ok) return cone;
  await ensureBraidDir(o.root);
  ensureWorktreesRoot(o.root);
  const made = await checkOut(o.root, path, branch, o.base, cone?.dirs);
  if (!made.ok) return { ok: false, message: `could not create the worktree for ${o.stepId}: ${made.message}` };
  try {
    const copied = await bringIn(o.root, path, await untrackedMatches(o.root, o.copy ?? []), 'copy');
    const linked = await bringIn(o.root, path, await untrackedMatches(o.root, o.symlink ?? []), 'symlink');
    // A new branch at a commit named by its full id starts there: no process to ask.
    const start = FULL_SHA.test(o.base)
      ? o.base.toLowerCase()
      : (await gitOk(['rev-parse', 'HEAD'], { cwd: path })).trim();
    await writeMeta(path, { start, exclude: [...copied, ...linked], sparse: cone !== undefined });
    return { ok: true, path, branch, copied, linked };
  } catch (e) {
    // Never leave a half-made worktree registered.
    await removeWorktree({ root: o.root, path, branch });
    return { ok: false, message: `could not prepare the worktree for ${o.stepId}: ${(e as Error).message}` };
  }
}

/**
 * Registers the worktree and checks `base` out on the new `branch`, sparse when `cone` is given:
 * one git process (see worktreeRegister.ts), or `git worktree add` where the repository's layout
 * is not one Braid writes. A failure leaves no registration and no directory, and never deletes
 * a branch (an existing one of that name makes `-b` fail, and it is not Braid's to remove).
 */
async function checkOut(
  root: string,
  path: string,
  branch: string,
  base: string,
  cone: readonly string[] | undefined,
): Promise<Outcome<object>> {
  // The cone file is per worktree and the settings go on each command that must honour them, not
  // `git sparse-checkout set`, which (git 2.39) turns on extensions.worktreeConfig in the user's
  // .git/config. No parallel checkout for a cone, usually a few directories: its two worker
  // processes cost more than writing the files (10,000-file repository, 100-file cone: 89 → 65 ms).
  const patterns = cone ? conePatterns(cone) : undefined;
  const config = cone ? SPARSE_CONFIG : CHECKOUT;
  let reg: Registration;
  try {
    reg = await registerWorktree(root, path, branch, patterns);
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
  if (reg.ok) {
    const co = await git([...config, 'checkout', '--quiet', '-b', branch, base], { cwd: path });
    if (co.code === 0) return { ok: true };
    await rm(reg.gitDir, { recursive: true, force: true });
    await rm(path, { recursive: true, force: true });
    return { ok: false, message: firstLine(co.stderr) };
  }
  await mkdir(dirname(path), { recursive: true });
  const add = await withWorktreeLock(root, () =>
    git([...CHECKOUT, 'worktree', 'add', '--quiet', ...(cone ? ['--no-checkout'] : []), '-b', branch, path, base], {
      cwd: root,
    }),
  );
  if (add.code !== 0) return { ok: false, message: firstLine(add.stderr) };
  if (!patterns) return { ok: true };
  const gitDir = await gitDirOf(path);
  await mkdir(join(gitDir, 'info'), { recursive: true });
  await writeFile(join(gitDir, 'info', 'sparse-checkout'), patterns);
  const read = await git([...config, 'read-tree', '-mu', 'HEAD'], { cwd: path });
  if (read.code === 0) return { ok: true };
  await removeWorktree({ root, path, branch });
  return { ok: false, message: firstLine(read.stderr) };
}

/**
 * Merges the needs' result commits into a prepared worktree, one at a time; a conflict aborts that
 * merge (the worktree is left as before it) and is reported. `head` is the step's new start: pass
 * it to `mergeBack` as `base`, so the needs' changes (already in the workspace) are not its own.
 */
export async function mergeNeeds(o: {
  worktree: string;
  commits: readonly string[];
}): Promise<{ ok: true; head: string } | { ok: false; message: string }> {
  const meta = await readMeta(o.worktree);
  const sparse = meta?.sparse ? SPARSE_CONFIG : [];
  for (const commit of o.commits) {
    // Explicit strategy and flags: the user's merge.ff=only, pull.twohead or autostash must not apply.
    const r = await git(
      [
        ...sparse,
        'merge',
        '--quiet',
        '--no-edit',
        '--ff',
        '-s',
        'ort',
        '--no-autostash',
        '--no-verify-signatures',
        '-m',
        `braid: merge ${commit}`,
        commit,
      ],
      { cwd: o.worktree },
    );
    if (r.code === 0) continue;
    const unmerged = await git(['diff', '--name-only', '-z', '--diff-filter=U'], { cwd: o.worktree });
    const paths = splitZ(unmerged.stdout);
    await git(['merge', '--abort'], { cwd: o.worktree });
    const short = commit.slice(0, 12);
    return {
      ok: false,
      message:
        paths.length > 0
          ? `the needs' results conflict: merging ${short} conflicts in ${paths.join(', ')}`
          : `could not merge ${short} into the worktree: ${firstLine(r.stderr || r.stdout)}`,
    };
  }
  const head = (await gitOk(['rev-parse', 'HEAD'], { cwd: o.worktree })).trim();
  if (meta) await writeMeta(o.worktree, { ...meta, start: head });
  return { ok: true, head };
}

/**
 * Commits everything the step changed in its worktree (copied and linked set-up files excluded).
 * Nothing changed: no commit, the start's sha and no paths. With `summary`, also the change's files
 * for its record (changeRecord.ts), from the diff this makes anyway: recording adds no process.
 */
export async function commitWorktree(o: {
  worktree: string;
  message: string;
  force?: readonly string[];
  summary?: boolean;
}): Promise<{ sha: string; changed: string[]; files?: ChangedFile[] }> {
  const cwd = o.worktree;
  const meta = await readMeta(cwd);
  const start = meta?.start ?? (await gitOk(['rev-parse', 'HEAD'], { cwd })).trim();
  const exclude = meta?.exclude ?? [];
  await gitOk(['add', '-A'], { cwd });
  // Git-ignored files the step wrote inside its writes (ignoredWrites.ts).
  if (o.force && o.force.length > 0) {
    await gitOk(['add', '-f', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      cwd,
      input: o.force.map((p) => `:(literal)${p}\0`).join(''),
    });
  }
  // Set-up files go back to the start's state in the index, so they stay out of the result; also
  // when an agent that commits by itself (aider does) committed them. (An `:(exclude)` pathspec on
  // `add` is refused by git when the path is ignored.)
  if (exclude.length > 0) await gitOk(['reset', '-q', start, '--', ...exclude.map((p) => `:(literal)${p}`)], { cwd });
  const staged = await git(['diff', '--cached', '--quiet'], { cwd });
  if (staged.code === 1) await gitOk(['commit', '--quiet', '--no-verify', '-m', o.message], { cwd });
  else if (staged.code !== 0) throw new Error(`git diff --cached failed in ${cwd}: ${staged.stderr.trim()}`);
  const sha = (await gitOk(['rev-parse', 'HEAD'], { cwd })).trim();
  if (o.summary) {
    const files = sha === start ? [] : await changedFiles(cwd, start, sha);
    const changed = files
      .flatMap((f) => (f.from !== undefined ? [f.from, f.path] : [f.path]))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { sha, changed, files };
  }
  const changed = splitZ(await gitOk(['diff', '--name-only', '-z', '--no-renames', start, sha], { cwd }));
  return { sha, changed };
}

function insideWorktrees(root: string, path: string): boolean {
  return resolve(path).startsWith(resolve(worktreesDir(root)) + sep);
}

/** Removes a step's worktree, its registration and its branch; quiet if any is already gone. */
export async function removeWorktree(o: { root: string; path: string; branch: string }): Promise<void> {
  if (!insideWorktrees(o.root, o.path))
    throw new Error(`refusing to remove ${o.path}: not under ${worktreesDir(o.root)}`);
  await withWorktreeLock(o.root, async () => {
    const r = await git(['worktree', 'remove', '--force', '--force', o.path], { cwd: o.root });
    if (r.code !== 0) {
      await rm(o.path, { recursive: true, force: true });
      await git(['worktree', 'prune'], { cwd: o.root });
    }
    await git(['branch', '-D', o.branch], { cwd: o.root });
    await rmdir(resolve(o.path, '..')).catch(() => undefined);
  });
}

/**
 * Start-up clean-up: drops registrations of worktrees whose directory is gone and rolls back
 * merge-backs interrupted by a crash. Branches are kept (a conflicted step's result lives there),
 * and no lock file is ever deleted: git itself may hold it.
 */
export async function pruneWorktrees(root: string): Promise<void> {
  // Never made a worktree here: no registration of Braid's to drop (and a git process less before
  // a shared-only run's first step).
  if (existsSync(worktreesDir(root)))
    await withWorktreeLock(root, async () => {
      await gitOk(['worktree', 'prune'], { cwd: root });
      // Run directories whose worktrees are all gone (rmdir refuses a non-empty one).
      const runs = await readdir(worktreesDir(root)).catch(() => [] as string[]);
      for (const run of runs) await rmdir(worktreesDir(root, run)).catch(() => undefined);
    });
  await recoverInterruptedMerges(root);
}

/** Braid's worktrees registered in the repository (branch `braid/<run>/<step>`). */
export async function listBraidWorktrees(
  root: string,
): Promise<Array<{ path: string; branch: string; runId: string; stepId: string }>> {
  const out = await withWorktreeLock(root, () => gitOk(['worktree', 'list', '--porcelain', '-z'], { cwd: root }));
  const found: Array<{ path: string; branch: string; runId: string; stepId: string }> = [];
  let path: string | undefined;
  for (const field of out.split('\0')) {
    if (field.startsWith('worktree ')) path = field.slice('worktree '.length);
    const m = /^branch refs\/heads\/(braid\/([^/]+)\/([^/]+))$/.exec(field);
    if (m && path !== undefined) found.push({ path, branch: m[1]!, runId: m[2]!, stepId: m[3]! });
  }
  return found;
}
