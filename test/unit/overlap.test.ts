import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockTable } from '../../src/core/engine/locks/lockTable';
import { escapesWorkspace, resolveInside } from '../../src/core/paths/containment';
import { globsOverlap, lockConflict, normalizeGlob, writeSetsOverlap } from '../../src/core/paths/overlap';

// [a, b, overlap?, why]. Every row is asserted both ways.
const PAIRS: Array<[string, string, boolean, string]> = [
  ['src/**', 'src/a.ts', true, 'globstar covers the file'],
  ['src/*.ts', 'src/a/b.ts', false, 'star stays in one segment'],
  ['docs/*.md', 'docs/a.md', true, 'star matches the name'],
  ['docs/a.md', 'docs/b.md', false, 'distinct literals'],
  ['docs/a.md', 'docs/a.md', true, 'identical'],
  ['**', 'anything/at/all.txt', true, 'whole workspace'],
  ['**', '.env', true, 'whole workspace includes dotfiles'],
  ['web/**', 'server/**', false, 'distinct static bases'],
  ['src/*.ts', 'src/*.js', false, 'provably distinct suffixes'],
  ['src/*.ts', 'src/*s', true, 'suffix s is compatible with .ts'],
  ['src/a*', 'src/b*', false, 'provably distinct prefixes'],
  ['src/ab*', 'src/a*', true, 'prefix a is compatible with ab'],
  ['src/*.ts', 'src/a?.ts', true, 'both can match ab.ts'],
  ['a/{b,c}/**', 'a/c/x', true, 'brace alternative c'],
  ['a/{b,c}/**', 'a/d/x', false, 'no brace alternative matches d'],
  ['{web,server}/**', 'server/api.ts', true, 'top-level brace'],
  ['{web,server}/**', 'docs/x.md', false, 'top-level brace, no match'],
  ['src/**/*.test.ts', 'src/a/b/c.test.ts', true, 'globstar in the middle'],
  ['src/**/*.test.ts', 'src/a/b/c.ts', false, 'suffix must match the last segment'],
  ['src/**/*.ts', 'src/**/*.md', false, 'suffixes clash at every depth'],
  ['src/**/*.ts', '**/a/*.ts', true, 'src/a/x.ts'],
  ['**/*.md', 'docs/x/y.md', true, 'globstar at the front'],
  ['**/*.md', 'src/a.ts', false, 'no .md in a .ts path'],
  ['server', 'server/x.ts', true, 'extension-less literal counts as a directory'],
  ['docs/api', 'docs/api.md', false, 'api and api.md are different names'],
  ['src/*', 'src/a/b.ts', false, 'src/* covers direct children only'],
  ['src/**', 'src', true, 'globstar matches the base itself'],
  ['src/', 'src/a/b.ts', true, 'trailing slash means the whole folder'],
  ['./src/a.ts', 'src/a.ts', true, 'leading ./ is ignored'],
  ['src/./a.ts', 'src//a.ts', true, 'dot and empty segments are ignored'],
  ['src/x/../a.ts', 'src/a.ts', true, '.. is folded'],
  ['src/[ab].ts', 'src/b.ts', true, 'character class'],
  ['src/[ab].ts', 'src/c.ts', false, 'character class, no match'],
  ['src/*', 'src/.env', true, 'dotfiles count'],
  ['a/*/c', 'a/b/c', true, 'star segment in the middle'],
  ['a/*/c', 'a/b/d', false, 'last segment differs'],
  ['a/*/c', '*/b/*', true, 'stars on both sides'],
  ['!src/**', 'docs/a.md', true, 'negation: not reasoned about, so conservative'],
  ['{a/b,c}/x', 'a/b/x', true, 'slash inside braces: conservative'],
  ['.', 'src/a.ts', true, 'the root is the whole workspace'],
  ['src/@(a|b).ts', 'src/a.ts', true, 'extglob'],
  ['src/+(a).ts', 'src/b.ts', true, 'extglob: validation refuses it, so not reasoned about'],
];

describe('globsOverlap', () => {
  for (const [a, b, expected, why] of PAIRS) {
    it(`${a} ${expected ? 'overlaps' : 'is disjoint from'} ${b} (${why})`, () => {
      assert.equal(globsOverlap(a, b), expected, `(${a}, ${b})`);
      assert.equal(globsOverlap(b, a), expected, `(${b}, ${a})`);
    });
  }

  it('normalises ./, //, . and trailing /', () => {
    assert.equal(normalizeGlob('./src//a/./b/'), 'src/a/b/**');
    assert.equal(normalizeGlob('./'), '**');
  });

  it('writeSetsOverlap names the first overlapping pair', () => {
    assert.deepEqual(writeSetsOverlap(['docs/a.md', 'src/**'], ['web/**', 'src/x.ts']), ['src/**', 'src/x.ts']);
    assert.equal(writeSetsOverlap(['docs/**'], ['web/**', 'src/x.ts']), undefined);
    assert.equal(writeSetsOverlap([], ['**']), undefined);
  });

  it('lockConflict: write–write and write–read conflict, read–read never', () => {
    assert.deepEqual(lockConflict(['src/**'], [], ['src/a.ts'], []), ['src/**', 'src/a.ts']);
    assert.deepEqual(lockConflict(['src/**'], [], [], ['src/a.ts']), ['src/**', 'src/a.ts']);
    assert.deepEqual(lockConflict([], ['src/a.ts'], ['src/**'], []), ['src/a.ts', 'src/**']);
    assert.equal(lockConflict([], ['**'], [], ['**']), undefined);
    assert.equal(lockConflict(['web/**'], ['src/**'], ['server/**'], ['src/**']), undefined);
  });
});

describe('containment', () => {
  const ESCAPES: Array<[string, boolean]> = [
    ['src/a.ts', false],
    ['src/**', false],
    ['./docs/../src', false],
    ['a/b/../../c', false],
    ['..', true],
    ['../x', true],
    ['a/../../x', true],
    ['**/../../x', true],
    ['a\\..\\..\\x', true],
    ['/etc/passwd', true],
    ['C:\\Windows', true],
    ['c:/x', true],
    ['\\\\server\\share', true],
    ['..foo/bar', false],
  ];
  for (const [p, expected] of ESCAPES) {
    it(`${JSON.stringify(p)} ${expected ? 'escapes' : 'stays inside'}`, () =>
      assert.equal(escapesWorkspace(p), expected));
  }

  describe('resolveInside', () => {
    let root: string;
    let outside: string;
    before(() => {
      root = realpathSync(mkdtempSync(join(tmpdir(), 'braid-contain-')));
      outside = realpathSync(mkdtempSync(join(tmpdir(), 'braid-outside-')));
      mkdirSync(join(root, 'src'));
      symlinkSync(outside, join(root, 'out-link'));
      symlinkSync(join(root, 'src'), join(root, 'in-link'));
      symlinkSync(join(outside, 'missing'), join(root, 'dangling'));
    });
    after(() => {
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    });

    it('resolves plain paths, existing or not', () => {
      assert.equal(resolveInside(root, 'src/a.ts'), join(root, 'src', 'a.ts'));
      assert.equal(resolveInside(root, 'new/dir/file'), join(root, 'new', 'dir', 'file'));
      assert.equal(resolveInside(root, '.'), root);
    });
    it('rejects lexical escapes', () => {
      assert.equal(resolveInside(root, '../x'), undefined);
      assert.equal(resolveInside(root, '/tmp'), undefined);
    });
    it('rejects a symlink out of the workspace, also for paths below it that do not exist', () => {
      assert.equal(resolveInside(root, 'out-link'), undefined);
      assert.equal(resolveInside(root, 'out-link/new/file'), undefined);
      assert.equal(resolveInside(root, 'dangling'), undefined);
    });
    it('accepts a symlink that stays inside', () => {
      assert.equal(resolveInside(root, 'in-link/a.ts'), join(root, 'in-link', 'a.ts'));
    });
  });
});

describe('LockTable', () => {
  it('holds disjoint sets together', () => {
    const t = new LockTable();
    const a = t.tryAcquire('run/a', ['web/**'], []);
    const b = t.tryAcquire('run/b', ['server/**'], []);
    const c = t.tryAcquire('run/c', ['docs/a.md'], ['src/**']);
    assert.ok(a.ok && b.ok && c.ok);
    assert.deepEqual(
      t.held().map((h) => h.holder),
      ['run/a', 'run/b', 'run/c'],
    );
  });

  it('blocks an overlapping write set and names the holder and the paths', () => {
    const t = new LockTable();
    assert.ok(t.tryAcquire('run/a', ['src/**'], []).ok);
    assert.deepEqual(t.tryAcquire('run/b', ['src/a.ts'], []), {
      ok: false,
      holder: 'run/a',
      paths: ['src/a.ts', 'src/**'],
    });
  });

  it('lets readers share, and blocks writers against readers both ways', () => {
    const t = new LockTable();
    assert.ok(t.tryAcquire('r1', [], ['src/**']).ok);
    assert.ok(t.tryAcquire('r2', [], ['src/a.ts']).ok);
    const w = t.tryAcquire('w', ['src/a.ts'], []);
    assert.equal(w.ok, false);
    const t2 = new LockTable();
    assert.ok(t2.tryAcquire('w', ['src/**'], []).ok);
    assert.deepEqual(t2.tryAcquire('r', [], ['src/b.ts']), { ok: false, holder: 'w', paths: ['src/b.ts', 'src/**'] });
  });

  it('always grants a step with no writes and no reads, even against **', () => {
    const t = new LockTable();
    assert.ok(t.tryAcquire('all', ['**'], []).ok);
    assert.ok(t.tryAcquire('none', [], []).ok);
    assert.equal(t.tryAcquire('some', ['x'], []).ok, false);
  });

  it('release frees the set once, notifies listeners, and a disposed listener hears nothing', () => {
    const t = new LockTable();
    const calls: string[] = [];
    const sub1 = t.onRelease(() => calls.push('one'));
    t.onRelease(() => calls.push('two'));
    const a = t.tryAcquire('a', ['src/**'], []);
    assert.ok(a.ok);
    assert.equal(t.tryAcquire('b', ['src/x'], []).ok, false);
    sub1.dispose();
    a.release();
    a.release();
    assert.deepEqual(calls, ['two']);
    assert.ok(t.tryAcquire('b', ['src/x'], []).ok);
    assert.deepEqual(
      t.held().map((h) => h.holder),
      ['b'],
    );
  });

  it('throws when a holder acquires twice (a scheduler bug)', () => {
    const t = new LockTable();
    t.tryAcquire('a', ['x'], []);
    assert.throws(() => t.tryAcquire('a', ['y'], []), /already holds/);
  });

  it('decides against hundreds of disjoint holders', () => {
    const t = new LockTable();
    for (let i = 0; i < 300; i++) assert.ok(t.tryAcquire(`s${i}`, [`pkg${i}/**`], ['shared/**']).ok);
    assert.deepEqual(t.tryAcquire('late', ['pkg150/src/a.ts'], []), {
      ok: false,
      holder: 's150',
      paths: ['pkg150/src/a.ts', 'pkg150/**'],
    });
    assert.deepEqual(t.tryAcquire('w', ['shared/x'], []), {
      ok: false,
      holder: 's0',
      paths: ['shared/x', 'shared/**'],
    });
    assert.equal(t.held().length, 300);
  });
});
