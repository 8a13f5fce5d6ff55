// The CLI under signals and readers that go away: SIGHUP cancels as SIGINT does, a second Ctrl-C
// stops at once with every step ended, a retry of a live run is refused, and a closed stdout is
// no crash.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { claimRun } from '../../src/core/engine/records/runClaim';
import { CLI_MAIN, engineWithSteps, survivors } from '../helpers/engineKill';

const ROOT = resolve(__dirname, '../..');
const braid = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [CLI_MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
const exited = (c: ChildProcess) => new Promise<number | null>((r) => c.once('exit', (code) => r(code)));
const runRecord = (dir: string, id: string) =>
  JSON.parse(readFileSync(join(dir, '.braid', 'runs', id, 'run.json'), 'utf8')) as { status: string };
const stderrSays = (c: ChildProcess, re: RegExp) =>
  new Promise<void>((r) => {
    let text = '';
    c.stderr!.on('data', (b: Buffer) => {
      text += b.toString();
      if (re.test(text)) r();
    });
  });

describe('braid CLI: signals, a live run, a closed stdout', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-signals-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('SIGHUP cancels the run like SIGINT: every step ended, the record written, exit 130', async () => {
    const { engine, pids, runId } = await engineWithSteps(dir, 2);
    const code = exited(engine);
    engine.kill('SIGHUP');
    assert.equal(await code, 130);
    assert.deepEqual(await survivors(pids, 15_000), []);
    assert.equal(runRecord(dir, runId).status, 'canceled');
    assert.equal(existsSync(join(dir, '.braid', 'runs', runId, 'engine.pid')), false, 'the run is free again');
  });

  it('a second SIGINT skips the grace but still ends every step (TERM-ignoring ones too)', async () => {
    const { engine, pids } = await engineWithSteps(dir, 2);
    const code = exited(engine);
    const canceling = stderrSays(engine, /canceling/);
    engine.kill('SIGINT');
    await canceling;
    engine.kill('SIGINT');
    assert.equal(await code, 130);
    assert.deepEqual(await survivors(pids, 15_000), []);
  });

  it('retry of a run whose engine still runs is refused (exit 1), and so is a second claim', async () => {
    const { engine, pids, runId } = await engineWithSteps(dir, 1);
    try {
      const r = braid(['retry', runId], dir);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`run ${runId} is still running \\(pid ${engine.pid}\\)`));
      assert.ok(
        pids.every((p) => existsSync(`/proc/${p}`)),
        'the running steps were left alone',
      );
    } finally {
      engine.kill('SIGKILL');
      await survivors(pids, 15_000);
    }
    // The dead engine's claim is taken over; a second one in the same process is refused.
    const runDir = join(dir, '.braid', 'runs', runId);
    const first = claimRun(runDir, runId);
    assert.ok(first.ok);
    const second = claimRun(runDir, runId);
    assert.equal(second.ok, false);
    first.release();
  });

  it('a stale claim of a dead process is taken over', () => {
    const runDir = join(dir, 'r');
    mkdirSync(runDir);
    writeFileSync(join(runDir, 'engine.pid'), `${spawnSync('true').pid} ${hostname()}\n`);
    const c = claimRun(runDir, 'r');
    assert.ok(c.ok);
    c.release();
    assert.equal(existsSync(join(runDir, 'engine.pid')), false);
  });

  it('a reader that went away (`| true`, `| head -1`) is no crash and no stack trace', async () => {
    writeFileSync(join(dir, 'p.braid.yaml'), 'version: 1\nsteps:\n  a:\n    run: echo hi\n  b:\n    run: echo ho\n');
    assert.equal(braid(['run', 'p.braid.yaml'], dir).status, 0);
    for (const args of [['status'], ['status', '--json'], ['graph', 'p.braid.yaml']]) {
      const c = spawn(process.execPath, [CLI_MAIN, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      c.stdout.destroy(); // closed before the command writes: its first write fails with EPIPE
      let stderr = '';
      c.stderr.on('data', (b: Buffer) => {
        stderr += b.toString();
      });
      const code = await exited(c);
      assert.equal(stderr, '', `${args.join(' ')}: ${stderr}`);
      assert.equal(code, 0);
    }
  });
});
