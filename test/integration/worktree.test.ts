import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  commitWorktree,
  createWorktree,
  isGitRepo,
  listBraidWorktrees,
  mergeNeeds,
  pruneWorktrees,
  removeWorktree,
  snapshotBase,
} from '../../src/core/engine/isolation/worktree';
import { mergeBack } from '../../src/core/engine/isolation/mergeBack';
import { applyStaged } from '../../src/core/engine/isolation/applyChanges';
import { makeRepo, treeSnapshot, workspaceState, type TestRepo } from '../helpers/gitRepo';
import { worktreesRoot } from '../../src/core/engine/records/worktreeHome';

const repos: TestRepo[] = [];
function repo(files: Record<string, string | Buffer> = {}): TestRepo {
  const r = makeRepo(files);
  repos.push(r);
  return r;
}

async function base(r: TestRepo, ref?: string): Promise<string> {
  const b = await snapshotBase(r.dir, ref);
  assert.ok(b.ok, b.ok ? '' : b.message);
  return b.sha;
}

async function worktree(
  r: TestRepo,
  stepId: string,
  sha: string,
  extra: { sparse?: string[]; copy?: string[]; symlink?: string[] } = {},
) {
  const w = await createWorktree({ root: r.dir, runId: 'run1', stepId, base: sha, ...extra });
  assert.ok(w.ok, w.ok ? '' : w.message);
  return w;
}

const wtFile = (path: string, rel: string) => readFileSync(join(path, rel), 'utf8');
const BINARY = Buffer.from([0, 1, 2, 255, 0, 10, 13, 0, 128]);

describe('engine/worktree', () => {
  after(() => {
    for (const r of repos) r.cleanup();
  });

  it('isGitRepo gives the top level, or undefined outside git', async () => {
    const r = repo({ 'a/b.txt': 'x' });
    assert.equal(await isGitRepo(join(r.dir, 'a')), r.dir);
    const plain = realpathSync(mkdtempSync(join(tmpdir(), 'braid-plain-')));
    try {
      assert.equal(await isGitRepo(plain), undefined);
      assert.equal(await isGitRepo(join(plain, 'missing')), undefined);
    } finally {
      rmSync(plain, { recursive: true });
    }
  });

  it('snapshots a dirty workspace without touching the index: the worktree sees the uncommitted edit', async () => {
    const r = repo({ 'a.txt': 'committed\n', 'b.txt': 'b\n' });
    r.write('a.txt', 'uncommitted edit\n');
    r.write('staged.txt', 'staged new file\n');
    r.git(['add', 'staged.txt']);
    r.write('untracked.txt', 'not tracked\n');
    const before = workspaceState(r);
    const indexMtime = statSync(join(r.dir, '.git', 'index')).mtimeMs;
    const sha = await base(r);
    assert.deepEqual(workspaceState(r), before);
    assert.equal(statSync(join(r.dir, '.git', 'index')).mtimeMs, indexMtime, 'the index is not even rewritten');
    assert.notEqual(sha, r.git(['rev-parse', 'HEAD']).trim());
    const w = await worktree(r, 'dirty', sha);
    assert.equal(wtFile(w.path, 'a.txt'), 'uncommitted edit\n');
    assert.equal(wtFile(w.path, 'staged.txt'), 'staged new file\n');
    // Untracked and not ignored: there as the user sees it (`git add -A` through a temporary index; issue 31).
    assert.equal(wtFile(w.path, 'untracked.txt'), 'not tracked\n');
    assert.equal(w.branch, 'braid/run1/dirty');
  });

  it('a clean workspace snapshots to HEAD; a plan base ref resolves; bad refs and unborn HEAD are messages', async () => {
    const r = repo({ 'v.txt': 'one\n' });
    r.git(['tag', 'v1']);
    r.write('v.txt', 'two\n');
    const head = r.commitAll('two');
    assert.equal(await base(r), head);
    const w = await worktree(r, 'tagged', await base(r, 'v1'));
    assert.equal(wtFile(w.path, 'v.txt'), 'one\n');
    const bad = await snapshotBase(r.dir, 'no-such-ref');
    assert.ok(!bad.ok && bad.message.includes('no-such-ref'));
    const unborn = await snapshotBase(repo().dir);
    assert.ok(!unborn.ok && /unborn/.test(unborn.message));
  });

  it('a sparse worktree materialises only the cone, leaves the repo config alone, and commits keep the rest', async () => {
    const r = repo({ 'top.txt': 't', 'a/x.txt': 'ax', 'a/b/f.txt': 'abf', 'a/c/f.txt': 'acf', 'c/g.txt': 'cg' });
    const config = readFileSync(join(r.dir, '.git', 'config'), 'utf8');
    const w = await worktree(r, 'sparse', await base(r), { sparse: ['a/b'] });
    assert.equal(wtFile(w.path, 'a/b/f.txt'), 'abf');
    assert.ok(existsSync(join(w.path, 'top.txt')));
    assert.ok(existsSync(join(w.path, 'a/x.txt')), 'cone mode keeps the direct files of parents');
    assert.equal(existsSync(join(w.path, 'a/c')), false);
    assert.equal(existsSync(join(w.path, 'c')), false);
    assert.equal(readFileSync(join(r.dir, '.git', 'config'), 'utf8'), config);
    writeFileSync(join(w.path, 'a/b/new.txt'), 'n');
    const { sha, changed } = await commitWorktree({ worktree: w.path, message: 'step' });
    assert.deepEqual(changed, ['a/b/new.txt']);
    assert.equal(r.git(['show', `${sha}:c/g.txt`]), 'cg');
    const bad = await createWorktree({ root: r.dir, runId: 'run1', stepId: 'bad', base: sha, sparse: ['../out'] });
    assert.ok(!bad.ok && bad.message.includes('../out'));
  });

  it("copies and links ignored files in, and keeps them out of the step's change; untracked ones are in the base", async () => {
    const r = repo({ '.gitignore': '.env\nnode_modules/\n', 'src/a.ts': 'a' });
    r.write('.env', 'SECRET=1\n');
    r.write('node_modules/pkg/index.js', 'module.exports = 1;\n');
    r.write('notes.txt', 'untracked, not ignored\n');
    const w = await worktree(r, 'setup', await base(r), { copy: ['.env', '*.missing'], symlink: ['node_modules'] });
    assert.deepEqual(w.copied, ['.env']);
    assert.deepEqual(w.linked, ['node_modules']);
    assert.ok(lstatSync(join(w.path, '.env')).isFile());
    assert.equal(wtFile(w.path, '.env'), 'SECRET=1\n');
    assert.ok(lstatSync(join(w.path, 'node_modules')).isSymbolicLink());
    assert.equal(readlinkSync(join(w.path, 'node_modules')), join(r.dir, 'node_modules'));
    assert.equal(wtFile(w.path, 'node_modules/pkg/index.js'), 'module.exports = 1;\n');
    assert.equal(wtFile(w.path, 'notes.txt'), 'untracked, not ignored\n');
    assert.equal(r.git(['ls-files', 'notes.txt'], w.path).trim(), 'notes.txt', 'in the base commit, not copied');
    const startSha = r.git(['rev-parse', 'HEAD'], w.path).trim();
    // `node_modules/` in .gitignore does not ignore a symlink: only the exclusion keeps it out.
    const { sha, changed } = await commitWorktree({ worktree: w.path, message: 'nothing' });
    assert.deepEqual(changed, []);
    assert.equal(sha, startSha);
  });

  it("merges a change back (added, modified, deleted, binary) and keeps the user's other edits byte for byte", async () => {
    const r = repo({
      'mod.txt': 'old\n',
      'del.txt': 'bye\n',
      'img.bin': BINARY,
      'user.txt': 'user\n',
      'run.sh': 'echo\n',
    });
    const sha = await base(r);
    const w = await worktree(r, 'change', sha);
    writeFileSync(join(w.path, 'mod.txt'), 'new\n');
    rmSync(join(w.path, 'del.txt'));
    writeFileSync(join(w.path, 'img.bin'), Buffer.concat([BINARY, BINARY]));
    mkdirSync(join(w.path, 'deep/er'), { recursive: true });
    writeFileSync(join(w.path, 'deep/er/added.txt'), 'added\n');
    writeFileSync(join(w.path, 'added.bin'), BINARY);
    chmodSync(join(w.path, 'run.sh'), 0o755);
    const result = await commitWorktree({ worktree: w.path, message: 'step' });
    assert.deepEqual(result.changed.sort(), [
      'added.bin',
      'deep/er/added.txt',
      'del.txt',
      'img.bin',
      'mod.txt',
      'run.sh',
    ]);
    // The user keeps working meanwhile: an edit in another file, a staged change, an untracked file.
    r.write('user.txt', 'user edited\r\nno newline');
    r.write('untracked.dat', BINARY);
    r.write('staged.txt', 'staged\n');
    r.git(['add', 'staged.txt']);
    const before = workspaceState(r);
    const m = await mergeBack({ root: r.dir, base: sha, result: result.sha, writes: ['**'] });
    assert.ok(m.ok, m.ok ? '' : m.message);
    assert.deepEqual(m.changed.sort(), result.changed.sort());
    assert.equal(r.read('mod.txt'), 'new\n');
    assert.equal(existsSync(join(r.dir, 'del.txt')), false);
    assert.deepEqual(readFileSync(join(r.dir, 'img.bin')), Buffer.concat([BINARY, BINARY]));
    assert.deepEqual(readFileSync(join(r.dir, 'added.bin')), BINARY);
    assert.equal(r.read('deep/er/added.txt'), 'added\n');
    assert.ok((lstatSync(join(r.dir, 'run.sh')).mode & 0o100) !== 0, 'exec bit lands');
    const after = workspaceState(r);
    for (const p of ['user.txt', 'untracked.dat', 'staged.txt'])
      assert.equal(after.files.get(p), before.files.get(p), p);
    assert.equal(after.index, before.index, "the user's index is untouched");
    assert.match(after.status, /^A {2}staged\.txt$/m);
    assert.equal(
      existsSync(join(r.dir, '.braid', 'tmp')) && treeSnapshot(join(r.dir, '.braid', 'tmp')).size > 0,
      false,
    );
  });

  it("a 3-way merge with the user's edit to another region of the same file keeps both edits", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const r = repo({ 'doc.md': `${lines.join('\n')}\n` });
    const sha = await base(r);
    const w = await worktree(r, 'region', sha);
    writeFileSync(join(w.path, 'doc.md'), `${lines.map((l, i) => (i === 17 ? 'step edit' : l)).join('\n')}\n`);
    const result = await commitWorktree({ worktree: w.path, message: 'step' });
    r.write('doc.md', `${lines.map((l, i) => (i === 2 ? 'user edit' : l)).join('\n')}\n`);
    const m = await mergeBack({ root: r.dir, base: sha, result: result.sha, writes: ['doc.md'] });
    assert.ok(m.ok, m.ok ? '' : m.message);
    assert.equal(
      r.read('doc.md'),
      `${lines.map((l, i) => (i === 2 ? 'user edit' : i === 17 ? 'step edit' : l)).join('\n')}\n`,
    );
  });

  it('a real conflict lands nothing: the workspace is byte for byte as before, no markers, paths named', async () => {
    const r = repo({ 'same.txt': 'base\n', 'clean.txt': 'c\n', 'gone.txt': 'g\n', 'keep.txt': 'k\n' });
    const sha = await base(r);
    const w = await worktree(r, 'clash', sha);
    writeFileSync(join(w.path, 'same.txt'), 'step version\n');
    writeFileSync(join(w.path, 'clean.txt'), 'would merge cleanly\n');
    rmSync(join(w.path, 'gone.txt'));
    writeFileSync(join(w.path, 'new.txt'), 'step new\n');
    writeFileSync(join(w.path, 'fresh.txt'), 'fresh\n');
    const result = await commitWorktree({ worktree: w.path, message: 'step' });
    r.write('same.txt', 'user version\n');
    r.write('gone.txt', 'user edited what the step deletes\n');
    r.write('new.txt', 'user untracked file in the way\n');
    r.write('staged.txt', 's\n');
    r.git(['add', 'staged.txt']);
    const before = workspaceState(r);
    const m = await mergeBack({ root: r.dir, base: sha, result: result.sha, writes: ['**'] });
    assert.ok(!m.ok && m.kind === 'conflict');
    assert.deepEqual([...m.paths].sort(), ['gone.txt', 'new.txt', 'same.txt']);
    for (const p of m.paths) assert.ok(m.message.includes(p));
    assert.deepEqual(workspaceState(r), before);
    for (const p of ['same.txt', 'clean.txt', 'gone.txt', 'new.txt'])
      assert.doesNotMatch(r.read(p), /<<<<<<<|>>>>>>>|=======/);
    assert.equal(existsSync(join(r.dir, 'fresh.txt')), false);
    assert.ok(existsSync(w.path), 'the worktree stays for the user');
  });

  it("line endings follow the workspace's attributes: CRLF files count as unchanged and new content lands as CRLF", async () => {
    const r = repo({ '.gitattributes': '*.txt text eol=crlf\n', 'a.txt': 'one\r\ntwo\r\n', 'b.txt': 'b\n' });
    assert.equal(r.git(['show', 'HEAD:a.txt']), 'one\ntwo\n');
    const sha = await base(r);
    assert.equal(sha, r.git(['rev-parse', 'HEAD']).trim());
    const w = await worktree(r, 'crlf', sha);
    writeFileSync(join(w.path, 'a.txt'), 'one\r\ntwo\r\nthree\r\n');
    writeFileSync(join(w.path, 'c.txt'), 'new\n');
    const result = await commitWorktree({ worktree: w.path, message: 'step' });
    const m = await mergeBack({ root: r.dir, base: sha, result: result.sha, writes: ['*.txt'] });
    assert.ok(m.ok, m.ok ? '' : m.message);
    assert.equal(readFileSync(join(r.dir, 'a.txt'), 'utf8'), 'one\r\ntwo\r\nthree\r\n');
    assert.equal(readFileSync(join(r.dir, 'c.txt'), 'utf8'), 'new\r\n');
  });

  it('applyStaged rolls back what it did when a later rename fails', () => {
    const r = repo({ 'a.txt': 'original\n' });
    const tx = join(r.dir, '.braid', 'tmp', `merge-${process.pid}-rollback`);
    mkdirSync(join(tx, 'new'), { recursive: true });
    writeFileSync(join(r.dir, '.braid', '.gitignore'), '*\n');
    writeFileSync(join(tx, 'new', 'a.txt'), 'replaced\n');
    mkdirSync(join(tx, 'new', 'sub'));
    writeFileSync(join(tx, 'new', 'sub', 'b.txt'), 'b\n');
    mkdirSync(join(tx, 'new', 'blocker'));
    writeFileSync(join(tx, 'new', 'blocker', 'x.txt'), 'x\n');
    r.write('blocker', 'a file where the third op expects a directory\n');
    r.write('.git/info/exclude', 'blocker\n');
    // The third rename fails (ENOTDIR) after the first two landed.
    const res = applyStaged(
      r.dir,
      tx,
      [
        { kind: 'put', path: 'a.txt' },
        { kind: 'put', path: 'sub/b.txt' },
        { kind: 'put', path: 'blocker/x.txt' },
      ],
      ['sub'],
    );
    assert.ok(!res.ok);
    assert.equal(r.read('a.txt'), 'original\n');
    assert.equal(existsSync(join(r.dir, 'sub')), false);
    assert.equal(existsSync(tx), false);
    assert.equal(r.git(['status', '--porcelain']), '');
  });

  it('never writes through a symlinked directory the user put where the step adds files', async () => {
    const r = repo({ 'a.txt': 'a' });
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'braid-outside-')));
    try {
      const sha = await base(r);
      const w = await worktree(r, 'through', sha);
      mkdirSync(join(w.path, 'lib'));
      writeFileSync(join(w.path, 'lib/x.ts'), 'x');
      const result = await commitWorktree({ worktree: w.path, message: 'step' });
      symlinkSync(outside, join(r.dir, 'lib'));
      const m = await mergeBack({ root: r.dir, base: sha, result: result.sha, writes: ['**'] });
      assert.ok(!m.ok && m.kind === 'conflict' && m.paths.includes('lib/x.ts'), m.ok ? 'merged' : m.message);
      assert.match(m.message, /symbolic link/);
      assert.deepEqual(treeSnapshot(outside).size, 0);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('refuses to merge back a symbolic link that points out of the workspace (#22 item 2)', async () => {
    const r = repo({ 'a.txt': 'a' });
    const sha = await base(r);
    const w = await worktree(r, 'links', sha);
    mkdirSync(join(w.path, 'd'));
    symlinkSync('/etc', join(w.path, 'abs'));
    symlinkSync('../../..', join(w.path, 'd/up'));
    symlinkSync('../a.txt', join(w.path, 'd/ok'));
    const result = await commitWorktree({ worktree: w.path, message: 'step' });
    const m = await mergeBack({ root: r.dir, base: sha, result: result.sha, writes: ['**'] });
    assert.ok(!m.ok && m.kind === 'conflict', m.ok ? 'merged' : m.message);
    assert.deepEqual([...m.paths].sort(), ['abs', 'd/up']);
    assert.match(m.message, /abs \(a symbolic link to "\/etc", outside the workspace\)/);
    assert.equal(existsSync(join(r.dir, 'd')), false, 'nothing landed');
  });

  it('a read-only or private file keeps its permissions when the step changes it (#22 item 15)', async () => {
    const r = repo({ 'ro.txt': 'a\n', 'priv.txt': 'p\n', 'run.sh': 'x\n' });
    chmodSync(join(r.dir, 'ro.txt'), 0o444);
    chmodSync(join(r.dir, 'priv.txt'), 0o600);
    const sha = await base(r);
    const w = await worktree(r, 'modes', sha);
    for (const f of ['ro.txt', 'priv.txt']) {
      chmodSync(join(w.path, f), 0o644);
      writeFileSync(join(w.path, f), 'changed\n');
    }
    writeFileSync(join(w.path, 'run.sh'), 'y\n');
    chmodSync(join(w.path, 'run.sh'), 0o755);
    const result = await commitWorktree({ worktree: w.path, message: 'step' });
    const m = await mergeBack({ root: r.dir, base: sha, result: result.sha, writes: ['**'] });
    assert.ok(m.ok, m.ok ? '' : m.message);
    assert.equal(r.read('ro.txt'), 'changed\n');
    assert.equal(statSync(join(r.dir, 'ro.txt')).mode & 0o777, 0o444);
    assert.equal(statSync(join(r.dir, 'priv.txt')).mode & 0o777, 0o600);
    assert.equal(statSync(join(r.dir, 'run.sh')).mode & 0o111, 0o111, 'the exec bit the step added still lands');
  });

  it("refuses a change outside the step's writes, naming the paths, and writes nothing", async () => {
    const r = repo({ 'server/a.ts': 'a', 'web/b.ts': 'b' });
    const sha = await base(r);
    const w = await worktree(r, 'oos', sha);
    writeFileSync(join(w.path, 'server/a.ts'), 'a2');
    writeFileSync(join(w.path, 'web/b.ts'), 'b2');
    writeFileSync(join(w.path, '.hidden'), 'h');
    const result = await commitWorktree({ worktree: w.path, message: 'step' });
    const before = workspaceState(r);
    const m = await mergeBack({ root: r.dir, base: sha, result: result.sha, writes: ['server/**'] });
    assert.ok(!m.ok && m.kind === 'out-of-set');
    assert.deepEqual([...m.paths].sort(), ['.hidden', 'web/b.ts']);
    assert.match(m.message, /web\/b\.ts/);
    assert.deepEqual(workspaceState(r), before);
  });

  it("mergeNeeds gives a dependent its need's files; its own change then merges back alone", async () => {
    const r = repo({ 'shared.txt': 'base\n' });
    const sha = await base(r);
    const need = await worktree(r, 'need', sha);
    const dep = await worktree(r, 'dep', sha);
    writeFileSync(join(need.path, 'schema.md'), 'the schema\n');
    const needResult = await commitWorktree({ worktree: need.path, message: 'need' });
    const landed = await mergeBack({ root: r.dir, base: sha, result: needResult.sha, writes: ['schema.md'] });
    assert.ok(landed.ok);
    const merged = await mergeNeeds({ worktree: dep.path, commits: [needResult.sha] });
    assert.ok(merged.ok, merged.ok ? '' : merged.message);
    assert.equal(wtFile(dep.path, 'schema.md'), 'the schema\n');
    writeFileSync(join(dep.path, 'impl.ts'), 'impl\n');
    const depResult = await commitWorktree({ worktree: dep.path, message: 'dep' });
    assert.deepEqual(depResult.changed, ['impl.ts']);
    const m = await mergeBack({ root: r.dir, base: merged.head, result: depResult.sha, writes: ['impl.ts'] });
    assert.ok(m.ok, m.ok ? '' : m.message);
    assert.deepEqual(m.changed, ['impl.ts']);
    assert.equal(r.read('impl.ts'), 'impl\n');
  });

  it('mergeNeeds reports conflicting needs and leaves the worktree as it was', async () => {
    const r = repo({ 'x.txt': 'base\n' });
    const sha = await base(r);
    const commits: string[] = [];
    for (const id of ['n1', 'n2']) {
      const w = await worktree(r, id, sha);
      writeFileSync(join(w.path, 'x.txt'), `${id}\n`);
      commits.push((await commitWorktree({ worktree: w.path, message: id })).sha);
    }
    const dep = await worktree(r, 'dep', sha);
    const m = await mergeNeeds({ worktree: dep.path, commits });
    assert.ok(!m.ok && m.message.includes('x.txt'));
    assert.equal(r.git(['status', '--porcelain'], dep.path), '');
    assert.equal(r.git(['rev-parse', 'HEAD'], dep.path).trim(), commits[0]);
  });

  it('removeWorktree leaves no registration and no branch, and tolerates being called twice', async () => {
    const r = repo({ 'a.txt': 'a' });
    const w = await worktree(r, 'gone', await base(r));
    assert.deepEqual(
      (await listBraidWorktrees(r.dir)).map((x) => [x.runId, x.stepId, x.branch, x.path]),
      [['run1', 'gone', w.branch, w.path]],
    );
    await removeWorktree({ root: r.dir, path: w.path, branch: w.branch });
    await removeWorktree({ root: r.dir, path: w.path, branch: w.branch });
    assert.equal(existsSync(w.path), false);
    assert.doesNotMatch(r.git(['worktree', 'list', '--porcelain']), /\.braid|braid\//);
    assert.equal(r.git(['branch', '--list', 'braid/*']), '');
    await assert.rejects(removeWorktree({ root: r.dir, path: r.dir, branch: 'main' }), /refusing/);
  });

  it('creates and removes several worktrees at once (prepared while needs run)', async () => {
    const r = repo({ 'a.txt': 'a', 'b/c.txt': 'c' });
    const sha = await base(r);
    const ids = ['s1', 's2', 's3', 's4', 's5', 's6'];
    const made = await Promise.all(
      ids.map((id) => createWorktree({ root: r.dir, runId: 'par', stepId: id, base: sha })),
    );
    for (const w of made) assert.ok(w.ok, w.ok ? '' : w.message);
    assert.deepEqual((await listBraidWorktrees(r.dir)).map((w) => w.stepId).sort(), ids);
    await Promise.all(
      made.flatMap((w) => (w.ok ? [removeWorktree({ root: r.dir, path: w.path, branch: w.branch })] : [])),
    );
    assert.deepEqual(await listBraidWorktrees(r.dir), []);
    assert.equal(r.git(['branch', '--list', 'braid/*']), '');
    await pruneWorktrees(r.dir);
    assert.equal(existsSync(join(worktreesRoot(r.dir), 'par')), false);
  });

  it('prune drops the registration of a worktree deleted by hand, keeping its branch', async () => {
    const r = repo({ 'a.txt': 'a' });
    const w = await worktree(r, 'byhand', await base(r));
    rmSync(w.path, { recursive: true, force: true });
    assert.match(r.git(['worktree', 'list', '--porcelain']), /prunable/);
    await pruneWorktrees(r.dir);
    assert.doesNotMatch(r.git(['worktree', 'list', '--porcelain']), /\.braid|braid\/|prunable/);
    assert.deepEqual(await listBraidWorktrees(r.dir), []);
    assert.match(r.git(['branch', '--list', 'braid/*']), /braid\/run1\/byhand/);
  });

  it('prune rolls back a merge-back that died half-way, and leaves a live one alone', async () => {
    const r = repo({ 'a.txt': 'original\n' });
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    // A crashed transaction: a.txt already replaced (backup kept as old/0), b.txt not yet moved in.
    const tx = join(r.dir, '.braid', 'tmp', `merge-${dead}-deadbeef`);
    mkdirSync(join(tx, 'old'), { recursive: true });
    mkdirSync(join(tx, 'new'), { recursive: true });
    writeFileSync(join(r.dir, '.braid', '.gitignore'), '*\n');
    renameSync(join(r.dir, 'a.txt'), join(tx, 'old', '0'));
    writeFileSync(join(r.dir, 'a.txt'), 'new content\n');
    writeFileSync(join(tx, 'new', 'b.txt'), 'b\n');
    const st = lstatSync(join(r.dir, 'a.txt'));
    const ops = [
      { kind: 'put', path: 'a.txt', newMark: { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } },
      { kind: 'put', path: 'b.txt', newMark: { ino: 0, size: 0, mtimeMs: 0 } },
    ];
    writeFileSync(join(tx, 'journal.json'), JSON.stringify({ pid: dead, host: hostname(), dirs: [], ops }));
    const live = join(r.dir, '.braid', 'tmp', `merge-${process.pid}-live0000`);
    mkdirSync(live, { recursive: true });
    writeFileSync(
      join(live, 'journal.json'),
      JSON.stringify({ pid: process.pid, host: hostname(), dirs: [], ops: [] }),
    );
    await pruneWorktrees(r.dir);
    assert.equal(r.read('a.txt'), 'original\n');
    assert.equal(existsSync(join(r.dir, 'b.txt')), false);
    assert.equal(existsSync(tx), false);
    assert.ok(existsSync(live));
    assert.equal(r.git(['status', '--porcelain']), '');
  });
});
