// The engine process and its client end to end: a real `braid serve` (the CLI bundle) started by
// connectEngine in a temp workspace, shell-step plans, real sockets.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { RunRecord } from '../../src/core/engine/store';
import type { EngineEvent } from '../../src/core/engine/types';
import { connectEngine, EngineRequestError, type EngineClient } from '../../src/extension/engineClient';
import { PROTOCOL_VERSION } from '../../src/protocol/engine';
import { engineSocketPathFor } from '../../src/protocol/socketPath';

const ROOT = resolve(__dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'braid-engine-test-'));
// Our own bundle of the CLI, so a concurrent build of out/ cannot swap it under a running engine.
const CLI = join(scratch, 'cli.js');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

/** Polls until `pred` holds; the bail-out only turns a hang into a readable failure. */
async function until(pred: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  for (const end = Date.now() + limitMs; !pred();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function workspace(plan?: string): { dir: string; plan: string } {
  const dir = mkdtempSync(join(scratch, 'ws-'));
  if (plan !== undefined) writeFileSync(join(dir, 'p.braid.yaml'), plan);
  return { dir, plan: join(dir, 'p.braid.yaml') };
}

const plan = (steps: string[]) => ['version: 1', 'steps:', ...steps].join('\n') + '\n';
const record = (dir: string, runId: string) => JSON.parse(readFileSync(join(dir, '.braid/runs', runId, 'run.json'), 'utf8')) as RunRecord;
const statuses = (rec: RunRecord) => Object.fromEntries(Object.values(rec.steps).map((s) => [s.id, s.status]));
const engineLog = (dir: string) => readFileSync(join(dir, '.braid/engine.log'), 'utf8');

describe('engine process and client', function () {
  this.timeout(60_000);
  const clients: EngineClient[] = [];
  const pids = new Set<number>();

  async function connect(dir: string, env: Record<string, string> = {}, log?: (l: string) => void): Promise<EngineClient> {
    const c = await connectEngine({
      workspace: dir, cliPath: CLI, clientName: 'engine.test',
      env: { BRAID_ENGINE_IDLE_MS: '30000', ...env }, ...(log ? { log } : {}),
    });
    clients.push(c);
    pids.add(c.pid);
    return c;
  }

  function collect(c: EngineClient): EngineEvent[] {
    const events: EngineEvent[] = [];
    c.onEvent((e) => events.push(e));
    return events;
  }

  before(async () => {
    await build({ entryPoints: [join(ROOT, 'src/cli/main.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: CLI, logLevel: 'warning' });
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.dispose();
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGTERM');
    for (const pid of pids) {
      await until(() => !alive(pid), `engine ${pid} to exit`, 10_000).catch(() => process.kill(pid, 'SIGKILL'));
    }
    pids.clear();
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('runs a plan: the run id first, then events, then per-step statuses that agree with run.json', async () => {
    const w = workspace(plan([
      '  a:', '    run: echo "hello-a [$ELECTRON_RUN_AS_NODE]"',
      '  b:', '    needs: [a]', '    run: exit 3',
      '  c:', '    needs: [b]', '    run: echo never',
    ]));
    const c = await connect(w.dir);
    const events = collect(c);
    const { runId } = await c.run({ planFile: 'p.braid.yaml' });
    const ended = await c.whenEnded(runId);
    assert.deepEqual(ended, { runId, status: 'failed', steps: { a: 'succeeded', b: 'failed', c: 'skipped' } });
    const rec = record(w.dir, runId);
    assert.equal(rec.status, 'failed');
    assert.deepEqual(statuses(rec), ended.steps);
    assert.equal(rec.planFile, w.plan, 'a workspace-relative plan is resolved against the workspace');

    for (const e of events) assert.equal(e.run, runId);
    assert.deepEqual(events.filter((e) => e.type === 'run').map((e) => e.type === 'run' && e.status), ['started', 'failed']);
    const steps = events.flatMap((e) => (e.type === 'step' ? [`${e.id}:${e.status}`] : []));
    for (const s of ['a:running', 'a:succeeded', 'b:running', 'b:failed']) assert.ok(steps.includes(s), `${s} in ${steps.join(' ')}`);
    assert.ok(steps.indexOf('a:succeeded') < steps.indexOf('b:running'));
    const bFailed = events.find((e) => e.type === 'step' && e.id === 'b' && e.status === 'failed');
    assert.equal(bFailed?.type === 'step' && bFailed.exitCode, 3);
    const out = events.flatMap((e) => (e.type === 'output' && e.id === 'a' ? [e.text] : [])).join('');
    assert.equal(out, 'hello-a []\n', 'steps do not inherit the variable that launched the engine as Node');
  });

  it('refuses an invalid plan or an unknown step with the reason (and the diagnostics)', async () => {
    const w = workspace(plan(['  a:', '    run: echo', '    nedds: [b]']));
    const c = await connect(w.dir);
    await assert.rejects(c.run({ planFile: w.plan }), (e: unknown) => {
      assert.ok(e instanceof EngineRequestError);
      assert.ok(e.diagnostics.length > 0 && e.diagnostics.every((d) => d.file === w.plan));
      assert.match(e.message, /p\.braid\.yaml:5:5:/);
      return true;
    });
    writeFileSync(w.plan, plan(['  a:', '    run: echo']));
    await assert.rejects(c.run({ planFile: w.plan, only: ['nope'] }), /unknown step: nope/);
    await assert.rejects(c.cancelRun('20261202-100000-abcd'), /not active/);
    await assert.rejects(c.retry({ runId: '20261202-100000-abcd' }), /unknown run/);
    await assert.rejects(c.whenEnded('20261202-100000-abcd'), /not active/, 'nothing to wait for');
  });

  it('cancels one sleeping step, then the whole run; the record agrees', async () => {
    const w = workspace(plan([
      '  a:', '    run: sleep 30',
      '  b:', '    run: sleep 30',
      '  c:', '    needs: [a]', '    run: echo c',
    ]));
    const c = await connect(w.dir);
    const events = collect(c);
    const { runId } = await c.run({ planFile: w.plan });
    const is = (id: string, status: string) => () => events.some((e) => e.type === 'step' && e.id === id && e.status === status);
    await until(() => is('a', 'running')() && is('b', 'running')(), 'a and b to run');
    assert.deepEqual((await c.listRuns()).active, [runId]);
    await assert.rejects(c.cancelStep(runId, 'nope'), /no step nope/);

    await c.cancelStep(runId, 'a');
    await until(is('a', 'canceled'), 'a canceled');
    assert.equal(is('b', 'canceled')(), false, 'b keeps running');
    await c.cancelRun(runId);
    const ended = await c.whenEnded(runId);
    assert.equal(ended.status, 'canceled');
    assert.equal(ended.steps.a, 'canceled');
    assert.equal(ended.steps.b, 'canceled');
    assert.notEqual(ended.steps.c, 'succeeded');
    assert.deepEqual(statuses(record(w.dir, runId)), ended.steps);
    assert.deepEqual((await c.listRuns()).active, []);
  });

  it('a window reload: a second client gets a snapshot with the live run, then its events; the first leaving does not stop it', async () => {
    const w = workspace();
    const go = join(w.dir, 'go');
    writeFileSync(w.plan, plan([
      '  a:', `    run: while [ ! -f '${go}' ]; do sleep 0.05; done; echo a-done`,
      '  b:', '    needs: [a]', '    run: echo b-done',
    ]));
    const first = await connect(w.dir);
    const firstEvents = collect(first);
    const { runId } = await first.run({ planFile: w.plan });
    await until(() => firstEvents.some((e) => e.type === 'step' && e.id === 'a' && e.status === 'running'), 'a to run');

    const second = await connect(w.dir);
    assert.equal(second.pid, first.pid, 'one engine per workspace');
    const snapshots: RunRecord[][] = [];
    second.onSnapshot((runs) => snapshots.push(runs));
    const events = collect(second);
    await until(() => snapshots.length > 0, 'the snapshot');
    assert.deepEqual(snapshots[0]!.map((r) => [r.id, r.status, r.steps.a?.status, r.steps.b?.status]), [[runId, 'running', 'running', 'pending']]);

    first.dispose();
    await until(() => /client 1 disconnected/.test(engineLog(w.dir)), 'the engine to see the first client go');
    writeFileSync(go, '');
    const ended = await second.whenEnded(runId);
    assert.deepEqual(ended, { runId, status: 'succeeded', steps: { a: 'succeeded', b: 'succeeded' } });
    assert.equal(record(w.dir, runId).status, 'succeeded');
    const steps = events.flatMap((e) => (e.type === 'step' ? [`${e.id}:${e.status}`] : []));
    assert.deepEqual(steps, ['a:succeeded', 'b:running', 'b:succeeded'], 'the events after the snapshot, none before it');
    assert.equal(events.flatMap((e) => (e.type === 'output' ? [e.text] : [])).join(''), 'a-done\nb-done\n');
  });

  it('two windows starting an engine at once end up with one', async () => {
    const w = workspace(plan(['  a:', '    run: echo']));
    const [a, b] = await Promise.all([connect(w.dir), connect(w.dir)]);
    assert.equal(a.pid, b.pid);
    assert.equal(engineLog(w.dir).match(/listening on/g)?.length, 1);
    const { runId } = await b.run({ planFile: w.plan });
    assert.equal((await a.whenEnded(runId)).status, 'succeeded', 'both clients follow the same runs');
  });

  it('drops invalid and schema-invalid messages on a raw socket and keeps serving', async () => {
    const w = workspace(plan(['  a:', '    run: echo']));
    const c = await connect(w.dir);
    const raw = createConnection(engineSocketPathFor(w.dir));
    const replies: Record<string, unknown>[] = [];
    let buf = '';
    raw.setEncoding('utf8');
    raw.on('data', (t: string) => {
      buf += t;
      for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) { replies.push(JSON.parse(buf.slice(0, nl))); buf = buf.slice(nl + 1); }
    });
    await new Promise((r) => raw.once('connect', r));
    raw.write('this is not json\n42\n{"type":"nope","id":1}\n{"type":"run","id":2}\n{"id":3}\n');
    raw.write(JSON.stringify({ type: 'listRuns', id: 4 }) + '\n');
    raw.write(JSON.stringify({ type: 'hello', id: 5, protocol: PROTOCOL_VERSION + 1, client: 'old' }) + '\n');
    raw.write(JSON.stringify({ type: 'hello', id: 6, protocol: PROTOCOL_VERSION, client: 'raw' }) + '\n');
    await until(() => replies.some((m) => m.type === 'snapshot'), 'the raw client\'s snapshot');
    assert.deepEqual(replies.map((m) => [m.type, m.id, m.ok]), [
      ['reply', 4, false], ['reply', 5, false], ['reply', 6, true], ['snapshot', undefined, undefined],
    ], 'nothing answers the invalid lines; a request before hello and a wrong protocol are refused');
    raw.destroy();
    assert.equal((await c.whenEnded((await c.run({ planFile: w.plan })).runId)).status, 'succeeded');
    assert.equal(engineLog(w.dir).match(/dropped invalid message/g)?.length, 5);
  });

  it('the client drops invalid messages from an engine and keeps going', async () => {
    const w = workspace();
    const path = engineSocketPathFor(w.dir);
    const fake: Server = createServer((s) => {
      s.setEncoding('utf8');
      s.on('data', (t: string) => {
        for (const l of t.split('\n').filter(Boolean)) {
          const m = JSON.parse(l) as { type: string; id: number };
          if (m.type === 'hello') {
            s.write('garbage\n' + JSON.stringify({ type: 'reply', id: m.id, ok: 'yes' }) + '\n' + JSON.stringify({ type: 'reply', id: 999, ok: true, result: {} }) + '\n');
            s.write(JSON.stringify({ type: 'reply', id: m.id, ok: true, result: { protocol: PROTOCOL_VERSION, pid: 4242, workspace: w.dir } }) + '\n');
            s.write(JSON.stringify({ type: 'snapshot', runs: [] }) + '\n');
          } else if (m.type === 'run') {
            s.write(JSON.stringify({ type: 'reply', id: m.id, ok: true, result: { runId: '../x' } }) + '\n');
          }
        }
      });
    });
    await new Promise<void>((r) => fake.listen(path, r));
    let c: EngineClient | undefined;
    try {
      const logged: string[] = [];
      c = await connectEngine({ workspace: w.dir, cliPath: CLI, log: (l) => logged.push(l) });
      assert.equal(c.pid, 4242);
      const snapshots: RunRecord[][] = [];
      c.onSnapshot((runs) => snapshots.push(runs));
      await until(() => snapshots.length === 1, 'the snapshot after the hello reply');
      assert.equal(logged.filter((l) => /dropped/.test(l)).length, 3, logged.join('\n'));
      await assert.rejects(c.run({ planFile: 'p' }), /invalid run result/);
      assert.equal(c.connected, true);
    } finally {
      c?.dispose();
      await new Promise((r) => fake.close(r));
    }
  });

  it('exits by itself after the idle period with no clients and no runs', async () => {
    const w = workspace();
    const c = await connect(w.dir, { BRAID_ENGINE_IDLE_MS: '200' });
    const pid = c.pid;
    let disconnected = false;
    c.onDisconnect(() => { disconnected = true; });
    const path = engineSocketPathFor(w.dir);
    assert.ok(existsSync(path));
    await sleep(400);
    assert.ok(alive(pid) && !disconnected, 'a connected client keeps the engine');
    c.dispose();
    await until(() => !alive(pid), 'the idle engine to exit');
    assert.equal(existsSync(path), false, 'its socket is gone');
    assert.match(engineLog(w.dir), /stopping: idle/);
  });

  it('replaces a stale socket left by a dead engine', async () => {
    const w = workspace(plan(['  a:', '    run: echo']));
    const path = engineSocketPathFor(w.dir);
    const dead = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    await new Promise((r) => dead.once('exit', r));
    assert.ok(existsSync(path), 'a socket file nobody listens on');
    const c = await connect(w.dir);
    assert.notEqual(c.pid, dead.pid);
    assert.equal((await c.whenEnded((await c.run({ planFile: w.plan })).runId)).status, 'succeeded');
  });

  it('on SIGTERM cancels its runs, writes their records and exits; a run of a dead engine becomes interrupted', async () => {
    const w = workspace(plan(['  a:', '    run: sleep 30']));
    const c = await connect(w.dir);
    const events = collect(c);
    const { runId } = await c.run({ planFile: w.plan });
    await until(() => events.some((e) => e.type === 'step' && e.status === 'running'), 'a to run');
    const ended = c.whenEnded(runId);
    process.kill(c.pid, 'SIGTERM');
    assert.deepEqual(await ended, { runId, status: 'canceled', steps: { a: 'canceled' } });
    await until(() => !alive(c.pid), 'the engine to exit');
    assert.equal(record(w.dir, runId).status, 'canceled');

    // A killed engine records nothing: the next engine marks its run interrupted.
    const again = await connect(w.dir);
    const more = collect(again);
    writeFileSync(w.plan, plan(['  a:', '    run: sleep 3']));
    const second = await again.run({ planFile: w.plan });
    await until(() => more.some((e) => e.type === 'step' && e.status === 'running'), 'a to run again');
    process.kill(again.pid, 'SIGKILL');
    await until(() => !alive(again.pid), 'the killed engine to be gone');
    const third = await connect(w.dir);
    const { runs } = await third.listRuns();
    assert.equal(runs.find((r) => r.id === second.runId)?.status, 'interrupted');
    await third.shutdown();
    await until(() => !alive(third.pid), 'the engine to exit after shutdown');
  });
});
