// What `braid run` and `braid validate` start before a plan's first step: in a git repository, one
// `git rev-parse` (the CLI's, whose answer the engine takes instead of asking git again), and no
// `git worktree prune` for a plan without worktree steps. Each git process is a fork and an exec
// on the way to the first step (docs/decisions/cli-start.md).
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { buildCli, MAIN } from '../helpers/cliRun';

describe('braid CLI: git processes before the first step', function () {
  this.timeout(60_000);
  let dir: string;
  let calls: string;
  let env: NodeJS.ProcessEnv;
  before(() => assert.ok(buildCli()));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-startgit-'));
    execFileSync('git', ['init', '-q'], { cwd: dir });
    writeFileSync(join(dir, 'p.braid.yaml'), 'version: 1\nname: one\nsteps:\n  a:\n    run: "true"\n');
    // A `git` first on PATH that notes its arguments, then runs the real one.
    const bin = join(dir, '.bin');
    mkdirSync(bin);
    calls = join(dir, '.git-calls');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${realGit}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    writeFileSync(calls, '');
    env = { ...process.env, NO_COLOR: '1', PATH: `${bin}${delimiter}${process.env.PATH}` };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const gitCalls = () => readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean);

  it('run of a shared step: one git rev-parse, nothing else', () => {
    const r = spawnSync(process.execPath, [MAIN, 'run', 'p.braid.yaml'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(gitCalls(), ['rev-parse --show-toplevel']);
  });

  it('validate: one git rev-parse', () => {
    const r = spawnSync(process.execPath, [MAIN, 'validate', 'p.braid.yaml'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(gitCalls(), ['rev-parse --show-toplevel']);
  });
});
