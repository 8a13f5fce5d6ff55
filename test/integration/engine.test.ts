// The engine process and its client end to end: a real `braid serve` (the CLI bundle) started by
// connectEngine in a temp workspace, shell-step plans (and the fake agent for budgets and resume),
// real sockets.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { MAX_OUTPUT_EVENT_CHARS } from '../../src/core/engine/events';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import type { EngineEvent } from '../../src/core/engine/types';
import { connectEngine, EngineRequestError, type EngineClient } from '../../src/extension/engine/engineClient';
import { PROTOCOL_VERSION, type LiveRunRecord } from '../../src/protocol/engine';
import { engineSocketPathFor } from '../../src/core/engineSocket';
import { goneSoon, launchersOf } from '../helpers/processes';
import { until, untilHolds } from '../helpers/until';
import { plan } from '../helpers/planText';

const ROOT = resolve(__dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'braid-engine-test-'));
// Our own bundle of the CLI, so a concurrent build of out/ cannot swap it under a running engine.
const CLI = join(scratch, 'cli.js');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function workspace(plan?: string): { dir: string; plan: string } {
  const dir = mkdtempSync(join(scratch, 'ws-'));
  if (plan !== undefined) writeFileSync(join(dir, 'p.braid.yaml'), plan);
  return { dir, plan: join(dir, 'p.braid.yaml') };
}

const record = (dir: string, runId: string) =>
  JSON.parse(readFileSync(join(dir, '.braid/runs', runId, 'run.json'), 'utf8')) as RunRecord;
const statuses = (rec: RunRecord) => Object.fromEntries(Object.values(rec.steps).map((s) => [s.id, s.status]));
const engineLog = (dir: string) => readFileSync(join(dir, '.braid/engine.log'), 'utf8');

// Agent steps run the fake agent as `claude` (its stream format); each reports $0.0123 unless told.
const FAKE = join(ROOT, 'test/fixtures/agents/fake-agent.mjs');
const SESSION = '7f3c9a2e-1b4d-4c8e-9f10-2a3b4c5d6e7f';
const q = (s: string) => JSON.stringify(s);
const agentPlan = (lines: string[]) =>
  [
    'version: 1',
    'agents:',
    '  claude:',
    `    command: [${q(process.execPath)}, ${q(FAKE)}, -p, "\${{ prompt }}", --output-format, stream-json, --verbose]`,
    '    env: { FAKE_AGENT_FORMAT: claude }',
    '    input: text',
    ...lines,
  ].join('\n') + '\n';
// a and b together reach the $0.0246 budget: c waits for the decision. (A step whose own stream
// passes the budget is stopped: budgets.test.ts; here the budget is reached as b ends, not passed.)
const BUDGET_STEPS = [
  '  a:',
  '    prompt: one',
  '  b:',
  '    needs: [a]',
  '    prompt: two',
  '  c:',
  '    needs: [b]',
  '    prompt: three',
];
const budgetPlan = agentPlan(['max-cost-usd: 0.0246', 'concurrency: 1', 'steps:', ...BUDGET_STEPS]);
type BudgetEvent = Extract<EngineEvent, { type: 'budget' }>;
const budgets = (events: EngineEvent[]) => events.filter((e): e is BudgetEvent => e.type === 'budget');
const near = (a: number | undefined, b: number) => a !== undefined && Math.abs(a - b) < 1e-9;

describe('engine process and client', function () {
  this.timeout(60_000);
  const clients: EngineClient[] = [];
  const pids = new Set<number>();

  async function connect(
    dir: string,
    env: Record<string, string> = {},
    log?: (l: string) => void,
  ): Promise<EngineClient> {
    const c = await connectEngine({
      workspace: dir,
      cliPath: CLI,
      clientName: 'engine.test',
      env: { BRAID_ENGINE_IDLE_MS: '30000', ...env },
      ...(log ? { log } : {}),
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
    await build({
      entryPoints: [join(ROOT, 'src/cli/main.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: CLI,
      logLevel: 'warning',
    });
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.dispose();
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGTERM');
    for (const pid of pids) {
      await untilHolds(() => !alive(pid), `engine ${pid} to exit`, 10_000).catch(() => process.kill(pid, 'SIGKILL'));
    }
    pids.clear();
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('runs a plan: the run id first, then events, then per-step statuses that agree with run.json', async () => {
    const w = workspace(
      plan`
        version: 1
        steps:
          a:
            run: echo "hello-a [$ELECTRON_RUN_AS_NODE]"
          b:
            needs: [a]
            run: exit 3
          c:
            needs: [b]
            run: echo never
        `,
    );
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
    assert.deepEqual(
      events.filter((e) => e.type === 'run').map((e) => e.type === 'run' && e.status),
      ['started', 'failed'],
    );
    const steps = events.flatMap((e) => (e.type === 'step' ? [`${e.id}:${e.status}`] : []));
    for (const s of ['a:running', 'a:succeeded', 'b:running', 'b:failed'])
      assert.ok(steps.includes(s), `${s} in ${steps.join(' ')}`);
    assert.ok(steps.indexOf('a:succeeded') < steps.indexOf('b:running'));
    const bFailed = events.find((e) => e.type === 'step' && e.id === 'b' && e.status === 'failed');
    assert.equal(bFailed?.type === 'step' && bFailed.exitCode, 3);
    const out = events.flatMap((e) => (e.type === 'output' && e.id === 'a' ? [e.text] : [])).join('');
    assert.equal(out, 'hello-a []\n', 'steps do not inherit the variable that launched the engine as Node');
  });

  it('a step printing 50 MiB as fast as it can: the window stays connected; each output event is capped and says what it left out', async () => {
    // Before the cap, every byte went to the window: the unread backlog passed the engine's
    // 32 MiB limit and it disconnected the window mid-run.
    const line = `flood ${'x'.repeat(73)}`;
    const total = 50 * 1024 * 1024;
    const w = workspace(plan`
      version: 1
      steps:
        flood:
          run: yes ${line} | head -c ${total}
      `);
    const c = await connect(w.dir);
    const events = collect(c);
    const { runId } = await c.run({ planFile: 'p.braid.yaml' });
    assert.equal((await c.whenEnded(runId)).status, 'succeeded');
    const out = events.filter(
      (e): e is Extract<EngineEvent, { type: 'output' }> => e.type === 'output' && e.id === 'flood',
    );
    assert.ok(
      out.every((e) => e.text.length <= MAX_OUTPUT_EVENT_CHARS),
      'no event over the cap',
    );
    assert.ok(
      out.some((e) => e.skippedLines !== undefined && e.skippedLines > 0),
      'lines were left out',
    );
    // Every line is accounted for: shown, or counted as left out, in order.
    const lines = Math.floor(total / (line.length + 1));
    const shown = out.reduce((n, e) => n + (e.text.match(/\n/g)?.length ?? 0), 0);
    const skipped = out.reduce((n, e) => n + (e.skippedLines ?? 0), 0);
    assert.equal(shown + skipped, lines);
    assert.ok(
      out.every((e) => e.skippedLines === undefined || e.text.startsWith(line) || e.text === ''),
      'a capped event starts at a line',
    );
    assert.ok(
      shown + skipped > 0 && statSync(join(w.dir, '.braid', 'runs', runId, 'logs', 'flood.log')).size >= total,
      'the log has every byte',
    );
  });

  it('refuses an invalid plan or an unknown step with the reason (and the diagnostics)', async () => {
    const w = workspace(plan`
      version: 1
      steps:
        a:
          run: echo
          nedds: [b]
      `);
    const c = await connect(w.dir);
    await assert.rejects(c.run({ planFile: w.plan }), (e: unknown) => {
      assert.ok(e instanceof EngineRequestError);
      assert.ok(e.diagnostics.length > 0 && e.diagnostics.every((d) => d.file === w.plan));
      assert.match(e.message, /p\.braid\.yaml:5:5:/);
      return true;
    });
    writeFileSync(
      w.plan,
      plan`
        version: 1
        steps:
          a:
            run: echo
        `,
    );
    await assert.rejects(c.run({ planFile: w.plan, only: ['nope'] }), /unknown step: nope/);
    await assert.rejects(c.cancelRun('20261202-100000-abcd'), /not active/);
    await assert.rejects(c.retry({ runId: '20261202-100000-abcd' }), /unknown run/);
    await assert.rejects(c.whenEnded('20261202-100000-abcd'), /not active/, 'nothing to wait for');
  });

  it('cancels one sleeping step, then the whole run; the record agrees', async () => {
    const w = workspace(
      plan`
        version: 1
        steps:
          a:
            run: sleep 30
          b:
            run: sleep 30
          c:
            needs: [a]
            run: echo c
        `,
    );
    const c = await connect(w.dir);
    const events = collect(c);
    const { runId } = await c.run({ planFile: w.plan });
    const is = (id: string, status: string) => () =>
      events.some((e) => e.type === 'step' && e.id === id && e.status === status);
    await untilHolds(() => is('a', 'running')() && is('b', 'running')(), 'a and b to run');
    assert.deepEqual((await c.listRuns()).active, [runId]);
    await assert.rejects(c.cancelStep(runId, 'nope'), /no step nope/);

    await c.cancelStep(runId, 'a');
    await untilHolds(is('a', 'canceled'), 'a canceled');
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
    writeFileSync(
      w.plan,
      plan`
        version: 1
        steps:
          a:
            run: while [ ! -f '${go}' ]; do sleep 0.05; done; echo a-done
          b:
            needs: [a]
            run: echo b-done
        `,
    );
    const first = await connect(w.dir);
    const firstEvents = collect(first);
    const { runId } = await first.run({ planFile: w.plan });
    await untilHolds(
      () => firstEvents.some((e) => e.type === 'step' && e.id === 'a' && e.status === 'running'),
      'a to run',
    );

    const second = await connect(w.dir);
    assert.equal(second.pid, first.pid, 'one engine per workspace');
    const snapshots: RunRecord[][] = [];
    second.onSnapshot((runs) => snapshots.push(runs));
    const events = collect(second);
    await untilHolds(() => snapshots.length > 0, 'the snapshot');
    assert.deepEqual(
      snapshots[0]!.map((r) => [r.id, r.status, r.steps.a?.status, r.steps.b?.status]),
      [[runId, 'running', 'running', 'pending']],
    );

    first.dispose();
    await untilHolds(() => /client 1 disconnected/.test(engineLog(w.dir)), 'the engine to see the first client go');
    writeFileSync(go, '');
    const ended = await second.whenEnded(runId);
    assert.deepEqual(ended, { runId, status: 'succeeded', steps: { a: 'succeeded', b: 'succeeded' } });
    assert.equal(record(w.dir, runId).status, 'succeeded');
    const steps = events.flatMap((e) => (e.type === 'step' ? [`${e.id}:${e.status}`] : []));
    assert.deepEqual(
      steps,
      ['a:succeeded', 'b:running', 'b:succeeded'],
      'the events after the snapshot, none before it',
    );
    assert.equal(events.flatMap((e) => (e.type === 'output' ? [e.text] : [])).join(''), 'a-done\nb-done\n');
  });

  it('two windows starting an engine at once end up with one', async () => {
    const w = workspace(plan`
      version: 1
      steps:
        a:
          run: echo
      `);
    const [a, b] = await Promise.all([connect(w.dir), connect(w.dir)]);
    assert.equal(a.pid, b.pid);
    assert.equal(engineLog(w.dir).match(/listening on/g)?.length, 1);
    const { runId } = await b.run({ planFile: w.plan });
    assert.equal((await a.whenEnded(runId)).status, 'succeeded', 'both clients follow the same runs');
  });

  it('drops invalid and schema-invalid messages on a raw socket and keeps serving', async () => {
    const w = workspace(plan`
      version: 1
      steps:
        a:
          run: echo
      `);
    const c = await connect(w.dir);
    const raw = createConnection(engineSocketPathFor(w.dir, PROTOCOL_VERSION));
    const replies: Record<string, unknown>[] = [];
    let buf = '';
    raw.setEncoding('utf8');
    raw.on('data', (t: string) => {
      buf += t;
      for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
        replies.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    });
    await new Promise((r) => raw.once('connect', r));
    raw.write('this is not json\n42\n{"type":"nope","id":1}\n{"type":"run","id":2}\n{"id":3}\n');
    raw.write(JSON.stringify({ type: 'listRuns', id: 4 }) + '\n');
    raw.write(JSON.stringify({ type: 'hello', id: 5, protocol: PROTOCOL_VERSION + 1, client: 'old' }) + '\n');
    raw.write(JSON.stringify({ type: 'hello', id: 6, protocol: PROTOCOL_VERSION, client: 'raw' }) + '\n');
    await untilHolds(() => replies.some((m) => m.type === 'snapshot'), "the raw client's snapshot");
    assert.deepEqual(
      replies.map((m) => [m.type, m.id, m.ok]),
      [
        ['reply', 4, false],
        ['reply', 5, false],
        ['reply', 6, true],
        ['snapshot', undefined, undefined],
      ],
      'nothing answers the invalid lines; a request before hello and a wrong protocol are refused',
    );
    raw.destroy();
    assert.equal((await c.whenEnded((await c.run({ planFile: w.plan })).runId)).status, 'succeeded');
    assert.equal(engineLog(w.dir).match(/dropped invalid message/g)?.length, 5);
  });

  it('the client drops invalid messages from an engine and keeps going', async () => {
    const w = workspace();
    const path = engineSocketPathFor(w.dir, PROTOCOL_VERSION);
    const fake: Server = createServer((s) => {
      s.setEncoding('utf8');
      s.on('data', (t: string) => {
        for (const l of t.split('\n').filter(Boolean)) {
          const m = JSON.parse(l) as { type: string; id: number };
          if (m.type === 'hello') {
            s.write(
              'garbage\n' +
                JSON.stringify({ type: 'reply', id: m.id, ok: 'yes' }) +
                '\n' +
                JSON.stringify({ type: 'reply', id: 999, ok: true, result: {} }) +
                '\n',
            );
            s.write(
              JSON.stringify({
                type: 'reply',
                id: m.id,
                ok: true,
                result: { protocol: PROTOCOL_VERSION, pid: 4242, workspace: w.dir },
              }) + '\n',
            );
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
      await untilHolds(() => snapshots.length === 1, 'the snapshot after the hello reply');
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
    // Long enough that a loaded machine's connect does not outlast it.
    const c = await connect(w.dir, { BRAID_ENGINE_IDLE_MS: '1000' });
    const pid = c.pid;
    let disconnected = false;
    c.onDisconnect(() => {
      disconnected = true;
    });
    const path = engineSocketPathFor(w.dir, PROTOCOL_VERSION);
    assert.ok(existsSync(path));
    // A round trip: the engine has taken the connection. Its idle clock is not running: stopped if
    // it started while nobody was connected, or never started if the client came first (the log
    // says which, in order).
    await c.listRuns();
    const idleLines = (): string[] =>
      engineLog(w.dir)
        .split('\n')
        .filter((l) => /idle clock/.test(l));
    assert.doesNotMatch(idleLines().at(-1) ?? 'no idle clock yet', /idle clock started/, idleLines().join('\n'));
    assert.ok(alive(pid) && !disconnected, 'a connected client keeps the engine');
    c.dispose();
    await untilHolds(
      () => /idle clock started/.test(idleLines().at(-1) ?? ''),
      'the idle clock to start once the window left',
    );
    await untilHolds(() => !alive(pid), 'the idle engine to exit');
    assert.equal(existsSync(path), false, 'its socket is gone');
    assert.match(engineLog(w.dir), /stopping: idle/);
  });

  it('keeps its resident launcher between runs: a later run’s step is forked by the one made before; it ends with the engine', async () => {
    const w = workspace(plan`
      version: 1
      steps:
        a:
          run: echo "ppid $PPID"
      `);
    const c = await connect(w.dir);
    const parentOf = async (): Promise<number> => {
      const events = collect(c);
      const { runId } = await c.run({ planFile: w.plan });
      assert.equal((await c.whenEnded(runId)).status, 'succeeded');
      const text = events.flatMap((e) => (e.type === 'output' && e.id === 'a' ? [e.text] : [])).join('');
      return Number(/ppid (\d+)/.exec(text)?.[1]);
    };
    const first = await parentOf();
    // The engine keeps one resident launcher (resident.ts), which forked the first run's step.
    assert.deepEqual(launchersOf(c.pid, 'braid-resident'), [first]);
    assert.equal(await parentOf(), first, 'the second run’s step came from the same resident');
    await c.shutdown();
    assert.ok(await goneSoon(first), `resident ${first} ended with the engine`);
  });

  it('replaces a stale socket left by a dead engine', async () => {
    const w = workspace(plan`
      version: 1
      steps:
        a:
          run: echo
      `);
    const path = engineSocketPathFor(w.dir, PROTOCOL_VERSION);
    const dead = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    await new Promise((r) => dead.once('exit', r));
    assert.ok(existsSync(path), 'a socket file nobody listens on');
    const c = await connect(w.dir);
    assert.notEqual(c.pid, dead.pid);
    assert.equal((await c.whenEnded((await c.run({ planFile: w.plan })).runId)).status, 'succeeded');
  });

  it('on SIGTERM cancels its runs, writes their records and exits; a run of a dead engine becomes interrupted', async () => {
    const w = workspace(plan`
      version: 1
      steps:
        a:
          run: sleep 30
      `);
    const c = await connect(w.dir);
    const events = collect(c);
    const { runId } = await c.run({ planFile: w.plan });
    await untilHolds(() => events.some((e) => e.type === 'step' && e.status === 'running'), 'a to run');
    const ended = c.whenEnded(runId);
    process.kill(c.pid, 'SIGTERM');
    assert.deepEqual(await ended, { runId, status: 'canceled', steps: { a: 'canceled' } });
    await untilHolds(() => !alive(c.pid), 'the engine to exit');
    assert.equal(record(w.dir, runId).status, 'canceled');

    // A killed engine records nothing: the next engine marks its run interrupted.
    const again = await connect(w.dir);
    const more = collect(again);
    writeFileSync(
      w.plan,
      plan`
        version: 1
        steps:
          a:
            run: sleep 3
        `,
    );
    const second = await again.run({ planFile: w.plan });
    await untilHolds(() => more.some((e) => e.type === 'step' && e.status === 'running'), 'a to run again');
    process.kill(again.pid, 'SIGKILL');
    await untilHolds(() => !alive(again.pid), 'the killed engine to be gone');
    // The new engine marks it as it starts, beside the request that reads it: wait for the mark.
    const third = await connect(w.dir);
    await until(
      async () => (await third.listRuns()).runs.find((r) => r.id === second.runId)?.status,
      (status) => status === 'interrupted',
      'the dead engine’s run to be marked interrupted',
    );
    await third.shutdown();
    await untilHolds(() => !alive(third.pid), 'the engine to exit after shutdown');
  });

  describe('budgets and resume', () => {
    it('a run at its budget is held (the budget event without a decision); continue lets the next steps run', async () => {
      const w = workspace(budgetPlan);
      const c = await connect(w.dir);
      const events = collect(c);
      const { runId } = await c.run({ planFile: w.plan });
      await untilHolds(() => budgets(events).length > 0, 'the budget question');
      const [asked] = budgets(events);
      assert.equal(asked!.decision, undefined);
      assert.equal(asked!.run, runId);
      assert.ok(near(asked!.spentUsd, 0.0246) && asked!.budgetUsd === 0.0246, JSON.stringify(asked));
      await untilHolds(
        () => events.some((e) => e.type === 'step' && e.id === 'b' && e.status === 'succeeded'),
        'b to finish',
      );
      // Held, the run starts nothing. The engine answers requests in order and starts a ready step
      // in the same turn as its need ends, so after a round trip a wrongly started c would show.
      await c.listRuns();
      assert.ok(
        !events.some((e) => e.type === 'step' && e.id === 'c' && e.status === 'running'),
        'c waits for the decision',
      );

      assert.deepEqual(await c.budgetDecision(runId, 'continue'), { accepted: true });
      const ended = await c.whenEnded(runId);
      assert.deepEqual(ended, {
        runId,
        status: 'succeeded',
        steps: { a: 'succeeded', b: 'succeeded', c: 'succeeded' },
      });
      assert.deepEqual(
        budgets(events).map((e) => e.decision),
        [undefined, 'continue'],
      );
      assert.ok(near(record(w.dir, runId).costUsd, 0.0369));
      assert.deepEqual(await c.budgetDecision(runId, 'stop'), { accepted: false }, 'the run is over: too late');
    });

    it('stop: the unstarted steps are canceled with reason budget, the run fails with reason budget', async () => {
      const w = workspace(budgetPlan);
      const c = await connect(w.dir);
      const events = collect(c);
      const answers: Promise<unknown>[] = [];
      c.onEvent((e) => {
        if (e.type === 'budget' && !e.decision) answers.push(c.budgetDecision(e.run, 'stop'));
      });
      const { runId } = await c.run({ planFile: w.plan });
      const ended = await c.whenEnded(runId);
      assert.deepEqual(ended, { runId, status: 'failed', steps: { a: 'succeeded', b: 'succeeded', c: 'canceled' } });
      assert.deepEqual(await Promise.all(answers), [{ accepted: true }]);
      const rec = record(w.dir, runId);
      assert.equal(rec.reason, 'budget');
      assert.equal(rec.steps.c!.reason, 'budget');
      assert.equal(rec.steps.c!.attempts.length, 0, 'c never started');
      assert.deepEqual(
        budgets(events).map((e) => e.decision),
        [undefined, 'stop'],
      );
      const end = events.filter((e) => e.type === 'run').at(-1);
      assert.ok(end?.type === 'run' && end.status === 'failed' && end.reason === 'budget', JSON.stringify(end));
    });

    it('a window connecting while a run is held sees pendingBudget in its snapshot; the first answer wins', async () => {
      const w = workspace(budgetPlan);
      const first = await connect(w.dir);
      const firstEvents = collect(first);
      const { runId } = await first.run({ planFile: w.plan });
      await untilHolds(() => budgets(firstEvents).length > 0, 'the budget question');

      const second = await connect(w.dir);
      const snapshots: LiveRunRecord[][] = [];
      second.onSnapshot((runs) => snapshots.push(runs));
      const secondEvents = collect(second);
      await untilHolds(() => snapshots.length > 0, 'the snapshot');
      const held = snapshots[0]!.find((r) => r.id === runId);
      assert.ok(held?.pendingBudget, JSON.stringify(snapshots[0]));
      assert.ok(near(held.pendingBudget.spentUsd, 0.0246) && held.pendingBudget.budgetUsd === 0.0246);
      // Pending while b finishes, then waiting (ready, held back): never started.
      assert.ok(
        ['pending', 'waiting'].includes(held.steps.c!.status) && held.steps.c!.attempts.length === 0,
        JSON.stringify(held.steps.c),
      );

      assert.deepEqual(await second.budgetDecision(runId, 'stop'), { accepted: true });
      assert.deepEqual(await first.budgetDecision(runId, 'continue'), { accepted: false }, 'too late: stop came first');
      const ended = await first.whenEnded(runId);
      assert.equal(ended.status, 'failed');
      assert.equal(ended.steps.c, 'canceled');
      // Each window hears the decision on its own socket: the second's may come after the first's end.
      for (const events of [firstEvents, secondEvents]) {
        await untilHolds(() => budgets(events).some((e) => e.decision), 'the decision on every connection');
        assert.deepEqual(
          budgets(events)
            .map((e) => e.decision)
            .filter(Boolean),
          ['stop'],
        );
      }

      // Once decided, a snapshot no longer shows it held (the run is over, here: none active).
      await second.request('hello', { protocol: PROTOCOL_VERSION, client: 'again' });
      await untilHolds(() => snapshots.length > 1, 'the second snapshot');
      assert.deepEqual(snapshots[1], []);
    });

    it('canceling a held run ends it canceled; a late answer is refused', async () => {
      const w = workspace(budgetPlan);
      const c = await connect(w.dir);
      const events = collect(c);
      const { runId } = await c.run({ planFile: w.plan });
      await untilHolds(() => budgets(events).length > 0, 'the budget question');
      await c.cancelRun(runId);
      const ended = await c.whenEnded(runId);
      assert.equal(ended.status, 'canceled');
      assert.equal(ended.steps.c, 'canceled');
      assert.deepEqual(await c.budgetDecision(runId, 'continue'), { accepted: false }, 'too late: the run is over');
      await assert.rejects(
        c.budgetDecision('20990101-000000-dead', 'continue'),
        /not active/,
        'a run this engine never had',
      );
    });

    it('with no answer within the timeout the run stops', async () => {
      const w = workspace(budgetPlan);
      const c = await connect(w.dir, { BRAID_ENGINE_BUDGET_TIMEOUT_MS: '300' });
      const events = collect(c);
      const { runId } = await c.run({ planFile: w.plan });
      const ended = await c.whenEnded(runId);
      assert.deepEqual(ended.steps, { a: 'succeeded', b: 'succeeded', c: 'canceled' });
      assert.equal(record(w.dir, runId).reason, 'budget');
      assert.deepEqual(
        budgets(events).map((e) => e.decision),
        [undefined, 'stop'],
      );
      assert.match(engineLog(w.dir), /no decision within 300 ms: stopping it/);
    });

    it('with no window connected when the budget is reached the run stops at once', async () => {
      const w = workspace();
      const go = join(w.dir, 'go');
      writeFileSync(
        w.plan,
        agentPlan([
          'max-cost-usd: 0.05',
          'steps:',
          '  gate:',
          `    run: while [ ! -f '${go}' ]; do sleep 0.05; done`,
          '  spend:',
          '    needs: [gate]',
          '    prompt: spend',
          '    env: { FAKE_AGENT_COST: "0.05" }',
          '  after:',
          '    needs: [spend]',
          '    prompt: more',
        ]),
      );
      const c = await connect(w.dir, { BRAID_ENGINE_BUDGET_TIMEOUT_MS: '600000' });
      const { runId } = await c.run({ planFile: w.plan });
      c.dispose();
      await untilHolds(() => /client 1 disconnected/.test(engineLog(w.dir)), 'the engine to see the client go');
      writeFileSync(go, '');
      await untilHolds(() => record(w.dir, runId).status !== 'running', 'the run to end', 30_000);
      const rec = record(w.dir, runId);
      assert.equal(rec.status, 'failed');
      assert.equal(rec.reason, 'budget');
      assert.deepEqual(statuses(rec), { gate: 'succeeded', spend: 'succeeded', after: 'canceled' });
      assert.match(
        engineLog(w.dir),
        /reached its budget \(\$0\.0500 of \$0\.0500\) with no window to ask: stopping it/,
      );
    });

    it('retry with resume continues the agent’s recorded session; without it the agent starts over', async () => {
      const w = workspace();
      const argvFile = join(w.dir, 'argv.json');
      writeFileSync(
        w.plan,
        agentPlan([
          `env: { FAKE_AGENT_ARGV_FILE: ${q(argvFile)} }`,
          'steps:',
          '  a:',
          '    prompt: build the thing',
          '    check: test -f done',
        ]),
      );
      const argv = () => JSON.parse(readFileSync(argvFile, 'utf8')) as { argv: string[]; prompt: string };
      const c = await connect(w.dir);
      const { runId } = await c.run({ planFile: w.plan });
      assert.equal((await c.whenEnded(runId)).status, 'failed');
      assert.equal(record(w.dir, runId).steps.a!.sessionId, SESSION);

      await c.retry({ runId });
      assert.equal((await c.whenEnded(runId)).status, 'failed');
      assert.ok(!argv().argv.includes('--resume'), JSON.stringify(argv()));
      assert.match(
        argv().prompt,
        /^build the thing\n\nThe previous attempt \(attempt 1\) failed: check failed \(exit 1\): test -f done\n/,
      );

      writeFileSync(join(w.dir, 'done'), '');
      assert.deepEqual(await c.retry({ runId, resume: true }), { runId });
      assert.equal((await c.whenEnded(runId)).status, 'succeeded');
      assert.deepEqual(argv().argv.slice(0, 3), ['--resume', SESSION, '-p']);
      assert.match(
        argv().prompt,
        /^The previous attempt \(attempt 2\) failed: check failed \(exit 1\): test -f done\n/,
        'told why, not RESUME_PROMPT',
      );
      assert.equal(record(w.dir, runId).steps.a!.attempts.length, 3);
    });
  });
});
