// Housekeeping from the CLI: `braid runs` shows every run and what it kept (worktrees, braid/*
// branches), `retry --last` takes the newest run, `clean --all` / `--older-than` remove what runs kept.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAge } from '../../src/cli/commands/housekeeping';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');
const braid = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
const runIdOf = (stdout: string) => /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(stdout)![1]!;

describe('braid CLI: runs, retry --last, clean --all / --older-than', function () {
  this.timeout(90_000);
  let repo: TestRepo;
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });
  afterEach(() => repo.cleanup());

  it('lists runs with their kept worktrees and branches, retries the last, cleans them all', () => {
    repo = makeRepo({ 'src/a.txt': 'a\n', '.gitignore': '.braid/\n' });
    writeFileSync(
      join(repo.dir, 'p.braid.yaml'),
      'version: 1\nsteps:\n  build:\n    isolation: worktree\n    writes: [src/**]\n    run: exit 1\n',
    );
    const first = runIdOf(braid(['run', 'p.braid.yaml'], repo.dir).stdout);
    const second = runIdOf(braid(['run', 'p.braid.yaml'], repo.dir).stdout);
    const runs = braid(['runs'], repo.dir);
    assert.equal(runs.status, 0, runs.stderr);
    assert.match(
      runs.stdout,
      new RegExp(
        `^${second}  failed .*\\n    kept worktree .*\\n    kept branches braid/${second}/build\\n${first}  failed`,
        'm',
      ),
    );
    assert.match(runs.stderr, /2 kept worktrees, 2 braid\/\* branches; braid clean/);
    const json = JSON.parse(braid(['runs', '--json'], repo.dir).stdout) as {
      runs: Array<{ id: string; kept: { branches: string[] } }>;
    };
    assert.deepEqual(
      json.runs.map((r) => r.kept.branches),
      [[`braid/${second}/build`], [`braid/${first}/build`]],
    );

    const retry = braid(['retry', '--last'], repo.dir);
    assert.equal(retry.status, 1);
    assert.equal(runIdOf(retry.stdout), second, 'the newest run, in place');

    const young = braid(['clean', '--older-than', '1h'], repo.dir);
    assert.equal(young.status, 0);
    assert.match(young.stderr, /0 runs cleaned of 0 considered/);
    const all = braid(['clean', '--all'], repo.dir);
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stderr, /2 runs cleaned of 2 considered/);
    assert.equal(repo.git(['branch', '--list', 'braid/*']).trim(), '');
    assert.doesNotMatch(braid(['runs'], repo.dir).stdout, /kept/);
  });

  it('usage: clean needs one of RUN-ID, --all, --older-than; durations in days too', () => {
    repo = makeRepo({});
    assert.equal(braid(['clean'], repo.dir).status, 2);
    assert.equal(braid(['clean', '--all', 'x'], repo.dir).status, 2);
    assert.equal(braid(['clean', '--older-than', 'soon'], repo.dir).status, 2);
    assert.equal(braid(['retry', '--last'], repo.dir).status, 1, 'no runs');
    assert.equal(parseAge('7d'), 7 * 86_400_000);
    assert.equal(parseAge('90m'), 90 * 60_000);
  });
});
