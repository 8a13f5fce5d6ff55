// What the CLI tells a user at the end of a run and before it: failures with their log's last
// lines, kept worktrees and the next commands; a result that covers what ran; warnings on `run`;
// a dry run that shows the selection; and the same refusals from validate, --dry-run and run.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeRepo } from '../helpers/gitRepo';
import { plan } from '../helpers/planText';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');
const braid = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
const runIdOf = (stdout: string) => /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(stdout)![1]!;

describe('braid CLI: what a user is told', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const dir = (plan: string): string => {
    const d = mkdtempSync(join(tmpdir(), 'braid-report-'));
    dirs.push(d);
    writeFileSync(join(d, 'p.braid.yaml'), plan);
    return d;
  };
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a failure ends with the last lines of its log, its kept worktree, and the next commands', () => {
    const repo = makeRepo({ 'src/a.txt': 'a\n', '.gitignore': '.braid/\n' });
    dirs.push(repo.dir);
    writeFileSync(
      join(repo.dir, 'p.braid.yaml'),
      plan`
        version: 1
        steps:
          build:
            isolation: worktree
            writes: [src/**]
            run: |
              echo compiling
              echo "error: boom at line 3" >&2
              exit 1
        `,
    );
    const r = braid(['run', 'p.braid.yaml'], repo.dir);
    assert.equal(r.status, 1);
    const id = runIdOf(r.stdout);
    assert.match(
      r.stdout,
      /build failed: exited with code 1\n  last lines of its log:\n(  │ .*\n)*  │ error: boom at line 3\n/,
    );
    assert.match(r.stdout, new RegExp(`its worktree is kept at \\S+ \\(branch braid/${id}/build\\)`));
    assert.match(
      r.stdout,
      new RegExp(`next:\\n  braid logs ${id} build\\n  braid clean ${id} .*\\n  braid retry ${id}\\n$`),
    );
  });

  it('--from STEP: the result covers what ran, not a failure carried over', () => {
    const d = dir('version: 1\nsteps:\n  a:\n    run: exit 1\n  report:\n    run: echo report\n');
    assert.equal(braid(['run', 'p.braid.yaml'], d).status, 1);
    const r = braid(['run', 'p.braid.yaml', '--from', 'report'], d);
    assert.equal(r.status, 0, r.stdout);
    assert.match(r.stdout, /run succeeded/);
    assert.doesNotMatch(r.stdout, /next:/, 'no failure of this run to report');
  });

  it("run prints the plan's warnings on stderr before it runs", () => {
    const d = dir("version: 1\nsteps:\n  a:\n    run: echo '${{ plan.name }}'\n");
    const r = braid(['run', 'p.braid.yaml'], d);
    assert.equal(r.status, 0);
    assert.match(r.stderr, /p\.braid\.yaml:4:\d+: warning: .*single quotes/);
  });

  it("--dry-run shows the selection: --only and a retry's", () => {
    const d = dir(
      plan`
        version: 1
        steps:
          a:
            run: exit 1
          b:
            run: "true"
          c:
            needs: [a]
            run: "true"
        `,
    );
    const only = braid(['run', 'p.braid.yaml', '--dry-run', '--only', 'c'], d);
    assert.equal(only.status, 0, only.stderr);
    assert.match(only.stdout, /would run 2 of 3 steps/);
    assert.deepEqual(
      only.stdout
        .split('\n')
        .filter((l) => /^  \w/.test(l))
        .map((l) => l.trim().split(' ')[0]),
      ['a', 'c'],
    );
    const id = runIdOf(braid(['run', 'p.braid.yaml'], d).stdout);
    const retry = braid(['retry', id, '--dry-run'], d);
    assert.match(retry.stdout, /would run 2 of 3 steps/);
    assert.doesNotMatch(retry.stdout, /^  b/m, 'b succeeded: a retry keeps it');
  });

  it('validate and --dry-run refuse a worktree plan outside git, as run does', () => {
    const d = dir('version: 1\nsteps:\n  a:\n    isolation: worktree\n    run: "true"\n');
    const run = braid(['run', 'p.braid.yaml'], d);
    assert.equal(run.status, 2);
    const v = braid(['validate', 'p.braid.yaml'], d);
    assert.equal(v.status, 1);
    assert.match(v.stdout, /p\.braid\.yaml:4:\d+: error: .*git/);
    const dry = braid(['run', 'p.braid.yaml', '--dry-run'], d);
    assert.equal(dry.status, 2);
    assert.match(dry.stderr, /error: .*git/);
  });
});
