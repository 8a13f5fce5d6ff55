// Worktrees registered by hand (git's on-disk layout) and checked out by one `git checkout -b`:
// git must see them as its own, a failure must leave nothing (and never take a branch), and the
// set-up must really be one git process.
import { strict as assert } from 'node:assert';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { git } from '../../src/core/exec/git';
import { createWorktree, removeWorktree, snapshotBase } from '../../src/core/engine/isolation/worktree';
import { commonGitDir } from '../../src/core/engine/isolation/worktreeRegister';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { worktreesRoot } from '../../src/core/engine/records/worktreeHome';

const repos: TestRepo[] = [];
function repo(files: Record<string, string>): TestRepo {
  const r = makeRepo(files);
  repos.push(r);
  return r;
}

async function headOf(r: TestRepo): Promise<string> {
  const b = await snapshotBase(r.dir);
  assert.ok(b.ok);
  return b.sha;
}

const porcelain = (r: TestRepo) => r.git(['worktree', 'list', '--porcelain']);

/** Runs `fn` with a `git` first on PATH that logs its arguments and runs the real one; the calls. */
async function gitCalls(r: TestRepo, fn: () => Promise<void>): Promise<string[]> {
  const bin = mkdtempSync(join(tmpdir(), 'braid-gitlog-'));
  const log = join(bin, 'calls');
  const real = r.git(['--exec-path']).trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${join(real, 'git')}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${bin}${delimiter}${path}`;
  try {
    await fn();
    return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  } finally {
    process.env.PATH = path;
    rmSync(bin, { recursive: true, force: true });
  }
}

describe('engine/worktreeRegister', () => {
  after(() => {
    for (const r of repos) r.cleanup();
  });

  it('git lists the worktree on its branch, keeps it through a prune, and removes it', async () => {
    const r = repo({ 'a.txt': 'a\n', 'd/b.txt': 'b\n' });
    const sha = await headOf(r);
    const w = await createWorktree({ root: r.dir, runId: 'run1', stepId: 'step', base: sha });
    assert.ok(w.ok, w.ok ? '' : w.message);
    r.git(['worktree', 'prune']);
    assert.match(porcelain(r), new RegExp(`worktree ${w.path}\\nHEAD ${sha}\\nbranch refs/heads/braid/run1/step`));
    assert.equal(r.git(['status', '--porcelain'], w.path), '', 'index and files agree with the branch');
    assert.equal(readFileSync(join(w.path, 'd/b.txt'), 'utf8'), 'b\n');
    const admin = join(r.dir, '.git', 'worktrees');
    assert.deepEqual(readdirSync(admin), ['step'], 'named as git names them; no staging or locked file left');
    assert.deepEqual(
      readdirSync(join(admin, 'step')).filter((f) => f === 'locked'),
      [],
    );
    await removeWorktree({ root: r.dir, path: w.path, branch: w.branch });
    assert.doesNotMatch(porcelain(r), /\.braid\/|braid\/run1/);
  });

  it('a second run’s step of the same id gets the next admin name, as git would give it', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    const sha = await headOf(r);
    const one = await createWorktree({ root: r.dir, runId: 'run1', stepId: 'build', base: sha });
    const two = await createWorktree({ root: r.dir, runId: 'run2', stepId: 'build', base: sha });
    assert.ok(one.ok && two.ok);
    assert.deepEqual(readdirSync(join(r.dir, '.git', 'worktrees')).sort(), ['build', 'build1']);
    assert.match(porcelain(r), /branch refs\/heads\/braid\/run1\/build[\s\S]*branch refs\/heads\/braid\/run2\/build/);
  });

  it('a sparse worktree keeps a sparse index: directories outside the cone are single entries', async () => {
    const files: Record<string, string> = { 'top.txt': 't\n' };
    for (let d = 0; d < 5; d++) for (let f = 0; f < 20; f++) files[`d${d}/f${f}.txt`] = `${d}/${f}\n`;
    const r = repo(files);
    const w = await createWorktree({
      root: r.dir,
      runId: 'run1',
      stepId: 'sparse',
      base: await headOf(r),
      sparse: ['d2'],
    });
    assert.ok(w.ok, w.ok ? '' : w.message);
    const entries = r
      .git(
        [
          '-c',
          'core.sparseCheckout=true',
          '-c',
          'core.sparseCheckoutCone=true',
          '-c',
          'index.sparse=true',
          'ls-files',
          '--sparse',
        ],
        w.path,
      )
      .trim()
      .split('\n');
    assert.deepEqual(entries.filter((e) => e.endsWith('/')).sort(), ['d0/', 'd1/', 'd3/', 'd4/']);
    assert.equal(entries.filter((e) => e.startsWith('d2/')).length, 20);
    assert.deepEqual(readdirSync(w.path).sort(), ['.git', 'd2', 'top.txt']);
    // A command without the sparse settings still reads it whole.
    assert.equal(r.git(['ls-files'], w.path).trim().split('\n').length, 101);
  });

  it('an existing branch of that name fails the set-up, keeps the branch, and leaves no registration or folder', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    const sha = await headOf(r);
    r.git(['branch', 'braid/run1/taken', sha]);
    const w = await createWorktree({ root: r.dir, runId: 'run1', stepId: 'taken', base: sha });
    assert.ok(!w.ok);
    assert.match(w.message, /could not create the worktree for taken: .*already exists/);
    assert.equal(r.git(['rev-parse', 'braid/run1/taken']).trim(), sha, 'the branch is not Braid’s to delete');
    assert.deepEqual(readdirSync(join(r.dir, '.git', 'worktrees')), []);
    assert.equal(existsSync(join(worktreesRoot(r.dir), 'run1', 'taken')), false);
    assert.doesNotMatch(porcelain(r), /taken/);
  });

  it('a workspace that is itself a linked worktree registers in the common git dir', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    const linked = join(mkdtempSync(join(tmpdir(), 'braid-linked-')), 'ws');
    r.git(['worktree', 'add', '-q', '-b', 'ws', linked]);
    try {
      assert.equal(await commonGitDir(linked), join(r.dir, '.git'));
      const w = await createWorktree({
        root: linked,
        runId: 'run1',
        stepId: 'inner',
        base: r.git(['rev-parse', 'HEAD']).trim(),
      });
      assert.ok(w.ok, w.ok ? '' : w.message);
      assert.ok(w.path.startsWith(join(worktreesRoot(linked))));
      assert.match(porcelain(r), /branch refs\/heads\/braid\/run1\/inner/);
      assert.equal(readFileSync(join(w.path, 'a.txt'), 'utf8'), 'a\n');
    } finally {
      r.git(['worktree', 'remove', '--force', '--force', join(worktreesRoot(linked), 'run1', 'inner')]);
      r.git(['worktree', 'remove', '--force', linked]);
    }
  });

  it('a layout Braid does not write (reftable refs) falls back to git worktree add, full and sparse', async () => {
    const r = repo({ 'a.txt': 'a\n', 'd/b.txt': 'b\n', 'e/c.txt': 'c\n' });
    const sha = await headOf(r);
    // git 2.39 ignores the folder; Braid takes it as a reftable repository's.
    mkdirSync(join(r.dir, '.git', 'reftable'));
    let full: Awaited<ReturnType<typeof createWorktree>> | undefined;
    let sparse: typeof full;
    const calls = await gitCalls(r, async () => {
      full = await createWorktree({ root: r.dir, runId: 'run1', stepId: 'full', base: sha });
      sparse = await createWorktree({ root: r.dir, runId: 'run1', stepId: 'sparse', base: sha, sparse: ['d'] });
    });
    assert.ok(full?.ok && sparse?.ok);
    assert.equal(calls.filter((c) => / worktree add /.test(c)).length, 2, calls.join('\n'));
    assert.deepEqual(readdirSync(full.path).sort(), ['.git', 'a.txt', 'd', 'e']);
    assert.deepEqual(readdirSync(sparse.path).sort(), ['.git', 'a.txt', 'd']);
    assert.match(porcelain(r), /branch refs\/heads\/braid\/run1\/full[\s\S]*branch refs\/heads\/braid\/run1\/sparse/);
    await removeWorktree({ root: r.dir, path: sparse.path, branch: sparse.branch });
    await removeWorktree({ root: r.dir, path: full.path, branch: full.branch });
    assert.doesNotMatch(porcelain(r), /braid\/run1/);
  });

  it('worktrees made while git prunes and Braid removes others are all made, and all registered', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    const sha = await headOf(r);
    let pruning = true;
    const pruner = (async () => {
      // What a step's clean-up does beside a preparation: prune, and remove a sibling worktree.
      while (pruning) await git(['worktree', 'prune'], { cwd: r.dir });
    })();
    try {
      for (let round = 0; round < 4; round++) {
        const made = await Promise.all(
          ['a', 'b', 'c', 'd'].map((id) => createWorktree({ root: r.dir, runId: `r${round}`, stepId: id, base: sha })),
        );
        for (const w of made) assert.ok(w.ok, w.ok ? '' : w.message);
        assert.equal(porcelain(r).match(new RegExp(`braid/r${round}/`, 'g'))?.length, 4);
        await Promise.all(
          made.flatMap((w) => (w.ok ? [removeWorktree({ root: r.dir, path: w.path, branch: w.branch })] : [])),
        );
      }
    } finally {
      pruning = false;
      await pruner;
    }
  });

  it('a set-up from a full commit id is one git process, sparse or not', async () => {
    const r = repo({ 'a.txt': 'a\n', 'd/b.txt': 'b\n', 'e/c.txt': 'c\n' });
    const sha = await headOf(r);
    mkdirSync(join(r.dir, '.braid'), { recursive: true });
    const calls = await gitCalls(r, async () => {
      const full = await createWorktree({ root: r.dir, runId: 'run1', stepId: 'full', base: sha });
      const sparse = await createWorktree({ root: r.dir, runId: 'run1', stepId: 'sparse', base: sha, sparse: ['d'] });
      assert.ok(full.ok && sparse.ok);
    });
    assert.equal(calls.length, 2, calls.join('\n'));
    assert.ok(
      calls.every((c) => / checkout --quiet -b braid\/run1\/(full|sparse) /.test(c)),
      calls.join('\n'),
    );
  });
});
