// The disk under .braid as users meet it: full (a small tmpfs, where this user may mount one),
// or another file system than the workspace's (.braid a symlink to /dev/shm): one clear line and
// exit 1 for the first, a merge-back that lands for the second.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');
const braid = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

describe('braid CLI: a full disk, .braid on another file system', function () {
  this.timeout(60_000);
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });

  it('a full disk under .braid: run and status say so in one line, exit 1 and 0, no stack trace', function () {
    const dir = mkdtempSync(join(tmpdir(), 'braid-full-'));
    const braidDir = join(dir, '.braid');
    mkdirSync(braidDir);
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', braidDir]).status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      this.skip(); // mounting needs root
    }
    try {
      writeFileSync(
        join(dir, 'p.braid.yaml'),
        'version: 1\nsteps:\n  a:\n    run: head -c 200000 /dev/zero | tr "\\\\0" x | fold -w 99\n  b:\n    needs: [a]\n    run: echo b\n',
      );
      const run = braid(['run', 'p.braid.yaml'], dir);
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /^braid: no space left on the device \(ENOSPC.*\); .*braid status\n$/m);
      assert.doesNotMatch(run.stderr, /internal error|    at /);
      const status = braid(['status'], dir);
      assert.equal(status.status, 0, status.stderr);
      assert.match(status.stdout, /^run \S+ · p · /);
      assert.doesNotMatch(status.stderr, /internal error|    at /);
    } finally {
      spawnSync('umount', [braidDir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('.braid on another file system: merge-backs land (puts and deletions), no EXDEV conflict', function () {
    const shm = '/dev/shm';
    if (!existsSync(shm) || statSync(shm).dev === statSync(tmpdir()).dev) this.skip();
    let repo: TestRepo | undefined;
    const elsewhere = mkdtempSync(join(shm, 'braid-exdev-'));
    try {
      repo = makeRepo({ 'a.txt': 'a\n', 'gone.txt': 'bye\n', '.gitignore': '.braid\n' });
      symlinkSync(elsewhere, join(repo.dir, '.braid'));
      writeFileSync(
        join(repo.dir, 'p.braid.yaml'),
        'version: 1\nsteps:\n  s:\n    isolation: worktree\n    writes: ["*.txt"]\n    run: echo more >> a.txt; echo new > b.txt; rm gone.txt\n',
      );
      const r = braid(['run', 'p.braid.yaml'], repo.dir);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.equal(repo.read('a.txt'), 'a\nmore\n');
      assert.equal(repo.read('b.txt'), 'new\n');
      assert.equal(existsSync(join(repo.dir, 'gone.txt')), false);
    } finally {
      repo?.cleanup();
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
