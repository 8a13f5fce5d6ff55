// Every view is a projection of one model: a run's record becomes the runs model (viewOf), engine
// events fold it forward (applyStepEvent), and the tree row (stepDescription) and the graph node
// (nodeUpdate) are read from it. Tables first, then the property that makes it one model: at
// every event, the model folded from events and the model read from the record agree.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimClock } from '../../src/core/engine/scheduling/clock';
import { LockTable } from '../../src/core/engine/locks/lockTable';
import { RunRecorder } from '../../src/core/engine/records/runRecorder';
import { RunStore } from '../../src/core/engine/records/runStore';
import type { RunRecord, StepRecord } from '../../src/core/engine/records/runRecord';
import { snapshotGraph } from '../../src/core/engine/records/snapshot';
import { Scheduler } from '../../src/core/engine/scheduling/scheduler';
import type { LockGate } from '../../src/core/engine/scheduling/schedulerOptions';
import type { AttemptContext, AttemptResult, EngineEvent, StepRunner } from '../../src/core/engine/types';
import type { Graph } from '../../src/core/plan/types';
import { endSentence } from '../../src/core/status';
import { nodeUpdate } from '../../src/extension/graph/graphNodes';
import { RunsModel } from '../../src/extension/runs/runsModel';
import { applyStepEvent, viewOf, type StepView } from '../../src/extension/runs/runView';
import { lockNote, stepDescription } from '../../src/extension/runs/treeText';
import { FakeAlternativeRunner } from '../helpers/fakeAlternativeRunner';
import { makeGraph } from '../helpers/graph';

const T0 = Date.parse('2026-12-06T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

function recordOf(graph: Graph, steps: Record<string, Partial<StepRecord>>, over: Partial<RunRecord> = {}): RunRecord {
  return {
    version: 1,
    id: '20261206-100000-abcd',
    planFile: '/w/p.braid.yaml',
    planName: 'p',
    workspace: '/w',
    status: 'running',
    createdAt: iso(0),
    host: { pid: 1, hostname: 'h' },
    graph: snapshotGraph(graph),
    steps: Object.fromEntries(graph.order.map((id) => [id, { id, status: 'pending', attempts: [], ...steps[id] }])),
    ...over,
  };
}

const oneStep = makeGraph([{ id: 'a', name: 'Build' }]);
const attempt = (n: number, ms = 2000) => ({ attempt: n, startedAt: iso(0), endedAt: iso(ms), durationMs: ms });

describe('status projections: a record, as the tree and the graph show it', () => {
  // [record of step a, tree row, node detail]
  const rows: Array<[string, Partial<StepRecord>, string, string | undefined]> = [
    ['pending', {}, '', undefined],
    ['succeeded', { status: 'succeeded', attempts: [attempt(1)], durationMs: 2000, exitCode: 0 }, '2.0s', undefined],
    // The bug users saw: after a reload the tree showed the code ("exit"), live the sentence.
    [
      'failed with a message',
      {
        status: 'failed',
        attempts: [attempt(1)],
        durationMs: 2000,
        exitCode: 1,
        reason: 'exit',
        message: 'exited with code 1',
      },
      '2.0s · exited with code 1',
      'exited with code 1',
    ],
    [
      'failed, code only',
      { status: 'failed', attempts: [attempt(1)], durationMs: 2000, exitCode: 2, reason: 'exit' },
      '2.0s · exited with code 2',
      'exited with code 2',
    ],
    [
      'killed, code only',
      { status: 'failed', attempts: [attempt(1)], durationMs: 2000, exitCode: null, signal: 'SIGKILL', reason: 'exit' },
      '2.0s · killed by SIGKILL',
      'killed by SIGKILL',
    ],
    [
      'timed out',
      {
        status: 'failed',
        attempts: [attempt(1, 1000), attempt(2, 1000)],
        durationMs: 2000,
        reason: 'timeout',
        message: 'timed out after 20m',
      },
      '2.0s · attempt 2 · timed out after 20m',
      'timed out after 20m',
    ],
    ['canceled, code only', { status: 'canceled', attempts: [], reason: 'canceled' }, 'canceled', 'canceled'],
    ['skipped', { status: 'skipped', reason: 'skipped', message: 'b failed' }, 'b failed', 'b failed'],
    [
      'not selected',
      { status: 'skipped', reason: 'not-selected', message: 'not selected for this run' },
      'not selected for this run',
      'not selected for this run',
    ],
    [
      'waiting for a lock before it starts',
      { status: 'waiting', waitingFor: { holder: 'b', paths: ['src/**'] } },
      'waiting for b: src/**',
      'waiting for b: src/**',
    ],
    [
      'a worktree step whose merge-back waits for a lock',
      {
        status: 'running',
        attempts: [{ attempt: 1, startedAt: iso(0) }],
        startedAt: iso(0),
        waitingFor: { holder: 'b', paths: ['src/**'] },
      },
      'waiting for b: src/** · 1.0s',
      'waiting for b: src/**',
    ],
    [
      'conflict',
      {
        status: 'conflict',
        attempts: [attempt(1)],
        durationMs: 2000,
        reason: 'conflict',
        message: 'merge-back conflict in a.ts',
      },
      '2.0s · merge-back conflict in a.ts',
      'merge-back conflict in a.ts',
    ],
    ['review', { status: 'review', attempts: [attempt(1)], durationMs: 2000 }, '2.0s', undefined],
  ];
  for (const [name, rec, row, detail] of rows) {
    it(`${name}: "${row}"`, () => {
      const step = viewOf(recordOf(oneStep, { a: rec })).steps.get('a')!;
      assert.equal(stepDescription(step, T0 + 1000), row);
      // The node carries the same time the row starts with (the graph shows it under the name).
      const time = /^(\d+(?:\.\d+)?m?s|\d+m \d+s)(?: · |$)/.exec(row.replace(/^waiting for [^·]+ · /, ''))?.[1];
      assert.deepEqual(nodeUpdate(step, T0 + 1000), {
        stepId: 'a',
        status: rec.status ?? 'pending',
        ...(step.attempt > 0 ? { attempt: step.attempt } : {}),
        ...(detail !== undefined ? { detail } : {}),
        ...(time !== undefined ? { time } : {}),
      });
    });
  }

  it('a waiting step shows when it retries, and says rate-limited by its code', () => {
    const at = T0 + 3_600_000;
    const clock = `${String(new Date(at).getHours()).padStart(2, '0')}:${String(new Date(at).getMinutes()).padStart(2, '0')}`;
    const step = viewOf(
      recordOf(oneStep, {
        a: {
          status: 'waiting',
          attempts: [attempt(1)],
          reason: 'rate-limited',
          message: 'rate-limited, retrying at …',
        },
      }),
    ).steps.get('a')!;
    step.retryAt = at;
    assert.equal(stepDescription(step, T0), `rate-limited, retrying at ${clock} · 2.0s`);
    step.reason = 'retry-delay';
    assert.equal(stepDescription(step, T0), `retrying at ${clock} · 2.0s`);
  });
});

describe('status projections: events fold the model forward', () => {
  const base = { time: iso(0), run: '20261206-100000-abcd' };
  const fresh = (): StepView => viewOf(recordOf(oneStep, {})).steps.get('a')!;

  // [events, then: status, tree row at T0 + 5 s, node detail]
  const rows: Array<[string, EngineEvent[], string, string, string | undefined]> = [
    ['starts', [{ ...base, type: 'step', id: 'a', status: 'running', attempt: 1 }], 'running', '5.0s', undefined],
    [
      'prints',
      [
        { ...base, type: 'step', id: 'a', status: 'running', attempt: 1 },
        { ...base, type: 'output', id: 'a', stream: 'stdout', text: 'one\ntwo\n' },
      ],
      'running',
      '5.0s · two',
      undefined,
    ],
    [
      'an agent reports',
      [
        { ...base, type: 'step', id: 'a', status: 'running', attempt: 1 },
        {
          ...base,
          type: 'agent',
          id: 'a',
          attempt: 1,
          costUsd: 0.0123,
          attemptCostUsd: 0.0123,
          activity: 'Edit a.ts',
        },
      ],
      'running',
      '5.0s · $0.0123 · Edit a.ts',
      '$0.0123 · Edit a.ts',
    ],
    [
      'fails: the code and the sentence, as the record has them',
      [
        { ...base, type: 'step', id: 'a', status: 'running', attempt: 1 },
        {
          ...base,
          time: iso(2000),
          type: 'step',
          id: 'a',
          status: 'failed',
          attempt: 1,
          exitCode: 1,
          reason: 'exit',
          message: 'exited with code 1',
        },
      ],
      'failed',
      '2.0s · exited with code 1',
      'exited with code 1',
    ],
    // The bug: a `lock` event turned a running worktree step `waiting`, and nothing set it back.
    [
      'a worktree step whose merge-back waits for a lock stays running, with a note',
      [
        { ...base, type: 'step', id: 'a', status: 'running', attempt: 1 },
        {
          ...base,
          type: 'step',
          id: 'a',
          status: 'running',
          attempt: 1,
          waitingFor: { holder: 'b', paths: ['src/**'] },
        },
        { ...base, type: 'lock', id: 'a', waitingFor: 'b', paths: ['src/**'] },
      ],
      'running',
      'waiting for b: src/** · 5.0s',
      'waiting for b: src/**',
    ],
    [
      '… and the note goes when the lock is granted (the attempt keeps its start)',
      [
        { ...base, type: 'step', id: 'a', status: 'running', attempt: 1 },
        {
          ...base,
          time: iso(1000),
          type: 'step',
          id: 'a',
          status: 'running',
          attempt: 1,
          waitingFor: { holder: 'b', paths: ['src/**'] },
        },
        { ...base, time: iso(1000), type: 'lock', id: 'a', waitingFor: 'b', paths: ['src/**'] },
        { ...base, time: iso(3000), type: 'step', id: 'a', status: 'running', attempt: 1 },
      ],
      'running',
      '5.0s',
      undefined,
    ],
    [
      "a retry delay keeps the failure's sentence until the next attempt",
      [
        { ...base, type: 'step', id: 'a', status: 'running', attempt: 1 },
        {
          ...base,
          type: 'step',
          id: 'a',
          status: 'waiting',
          attempt: 1,
          exitCode: 1,
          reason: 'retry-delay',
          message: 'exited with code 1; retrying in 500 ms',
          retryAt: iso(10_000),
        },
        { ...base, time: iso(1000), type: 'step', id: 'a', status: 'running', attempt: 2 },
      ],
      'running',
      '4.0s · wall 5.0s · attempt 2',
      'wall 5.0s',
    ],
  ];
  for (const [name, events, status, row, detail] of rows) {
    it(name, () => {
      const step = fresh();
      for (const e of events) if (e.type !== 'run' && e.type !== 'budget') applyStepEvent(step, e);
      assert.equal(step.status, status);
      assert.equal(stepDescription(step, T0 + 5000), row);
      assert.equal(nodeUpdate(step, T0 + 5000).detail, detail);
    });
  }
});

/** Runs `a` (takes its merge-back lock after it starts, waiting while `b` holds it) and `b`; `c` fails once then succeeds, `d` is skipped. */
class MergeBackRunner implements StepRunner {
  sched!: Scheduler;
  constructor(
    private readonly clock: SimClock,
    private readonly table: LockTable,
  ) {}

  async execute(ctx: AttemptContext): Promise<AttemptResult> {
    const id = ctx.step.id;
    const ok = (ms: number): AttemptResult => ({ status: 'succeeded', exitCode: 0, signal: null, durationMs: ms });
    if (id === 'b') {
      const g = this.table.tryAcquire('b', ['src/**'], []);
      await this.clock.sleep(50);
      if (g.ok) g.release();
      return ok(50);
    }
    if (id === 'a') {
      await this.clock.sleep(10);
      // The merge-back: wait for the lock as worktreeIsolator does, telling the scheduler.
      for (;;) {
        const g = this.table.tryAcquire('a', ['src/**'], []);
        if (g.ok) {
          this.sched.lockWait('a', undefined);
          g.release();
          return ok(10);
        }
        this.sched.lockWait('a', { holder: g.holder, paths: g.paths });
        await this.clock.sleep(5);
      }
    }
    if (id === 'c' && ctx.attempt === 1)
      return {
        status: 'failed',
        exitCode: 3,
        signal: null,
        reason: 'exit',
        message: 'exited with code 3',
        durationMs: 1,
      };
    if (id === 'e') return { status: 'failed', exitCode: 1, signal: null, reason: 'exit', durationMs: 1 };
    return ok(1);
  }
}

const elapsed = (row: string) => row.replace(/\d+h \d+m|\d+m \d+s|\d+\.\ds|\d+ms/g, 'T');

describe('status projections: one model, live or reloaded', () => {
  it('at every event, the model folded from events shows what the model read from the record shows', async () => {
    const graph = makeGraph([
      { id: 'a', isolation: 'worktree', writes: ['src/**'] },
      { id: 'b' },
      { id: 'c', retries: 1, retryDelayMs: 100 },
      { id: 'e' },
      { id: 'd', needs: ['e'] },
    ]);
    const clock = new SimClock();
    const table = new LockTable();
    const record = recordOf(graph, {});
    const recorder = new RunRecorder(record, () => {});
    const live = viewOf(structuredClone(record));
    const runner = new MergeBackRunner(clock, table);
    const seen: string[] = [];
    const gate: LockGate = {
      tryAcquire: () => ({ ok: true, release: () => {} }),
      onRelease: (l) => table.onRelease(l),
    };
    const sched = new Scheduler({
      graph,
      runId: record.id,
      runner,
      clock,
      random: () => 0,
      outputIntervalMs: 0,
      locks: gate,
      takesLocks: () => false,
      onEvent: (e) => {
        recorder.on(e);
        if (e.type === 'run' || e.type === 'budget') return;
        const step = live.steps.get(e.id)!;
        applyStepEvent(step, e);
        if (e.type !== 'step') return;
        const reloaded = viewOf(structuredClone(record)).steps.get(e.id)!;
        // Events are stamped by the run's clock, as the record's times are: both are read at its now.
        const [now, simNow] = [clock.now(), clock.now()];
        const facts = (s: StepView, at: number) => ({
          status: s.status,
          attempt: s.attempt,
          reason: s.reason,
          message: s.message,
          exitCode: s.exitCode,
          // The node's time is elapsed time: compared with the row's, below.
          waitingFor: s.waitingFor,
          end: endSentence(s),
          lock: lockNote(s),
          node: { ...nodeUpdate(s, at), time: undefined },
        });
        assert.deepEqual(facts(step, now), facts(reloaded, simNow), `${e.id} ${e.status}`);
        // Rows agree but for elapsed times.
        assert.equal(elapsed(stepDescription(step, now)), elapsed(stepDescription(reloaded, simNow)));
        seen.push(`${e.id}:${e.status}${e.waitingFor ? ' (waiting for lock)' : ''}`);
      },
    });
    runner.sched = sched;
    const r = await clock.runUntil(sched.run());
    assert.equal(r.status, 'failed');
    // The merge-back wait was seen, as `running` with a note and then without it.
    assert.ok(seen.includes('a:running (waiting for lock)'), seen.join(', '));
    assert.equal(seen.filter((s) => s.startsWith('a:running')).length, 3, seen.join(', '));
    assert.deepEqual(Object.fromEntries([...live.steps].map(([id, s]) => [id, s.status])), {
      a: 'succeeded',
      b: 'succeeded',
      c: 'succeeded',
      e: 'failed',
      d: 'skipped',
    });
    assert.equal(record.steps['a']!.waitingFor, undefined);
  });
});

describe('status projections of a best-of race', () => {
  it('at every event of a pick: review race, the view folded from events and the one read from the record agree, alternatives included', async () => {
    const graph = makeGraph([
      {
        id: 'a',
        isolation: 'worktree',
        bestOf: {
          pick: 'review',
          alternatives: [
            { index: 1, env: {} },
            { index: 2, env: {} },
          ],
        },
      },
    ]);
    const clock = new SimClock();
    const record = recordOf(graph, {});
    const recorder = new RunRecorder(record, () => {});
    const live = viewOf(structuredClone(record));
    const seen: string[] = [];
    let startedAt: number | undefined;
    const sched = new Scheduler({
      graph,
      runId: record.id,
      runner: new FakeAlternativeRunner(clock, { 'a.alt2': { durationMs: 30 } }),
      clock,
      random: () => 0,
      outputIntervalMs: 0,
      waitForPick: () => clock.sleep(100).then(() => 2),
      onEvent: (e) => {
        recorder.on(e);
        if (e.type !== 'step') return;
        const step = live.steps.get(e.id)!;
        applyStepEvent(step, e);
        const reloaded = viewOf(structuredClone(record)).steps.get(e.id)!;
        // Events are stamped T0 + the run's clock, the record by the run's clock: each read at its own now.
        const facts = (s: StepView, at: number) => ({
          status: s.status,
          attempt: s.attempt,
          reason: s.reason,
          message: s.message,
          winner: s.winner,
          alternatives: s.alternatives?.map((x) => [x.index, x.status, x.message]),
          end: endSentence(s),
          node: { ...nodeUpdate(s, at), time: undefined },
        });
        startedAt ??= step.startedAt;
        assert.deepEqual(facts(step, T0 + clock.now()), facts(reloaded, clock.now()), `${e.id} ${e.status}`);
        seen.push(`${e.status}${e.reason ? ` (${e.reason})` : ''}`);
      },
    });
    const r = await clock.runUntil(sched.run());
    assert.equal(r.steps.get('a')!.status, 'succeeded', r.steps.get('a')!.outcome?.message);
    assert.deepEqual(
      seen.filter((x, i) => seen[i - 1] !== x),
      ['running', 'waiting (pick)', 'running', 'succeeded'],
      seen.join(', '),
    );
    assert.equal(
      live.steps.get('a')!.startedAt,
      startedAt,
      'going on to land after the pick is the same attempt, not a new start',
    );
  });
});

describe('runs model', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-model-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("shows a run's end from its record at once: the record is saved before the end event, nothing polls", async () => {
    const store = new RunStore(dir);
    const graph = makeGraph([{ id: 'a' }]);
    const rec = recordOf(
      graph,
      { a: { status: 'running', attempts: [{ attempt: 1, startedAt: iso(0) }], startedAt: iso(0) } },
      { workspace: dir },
    );
    await store.create(rec);
    const model = new RunsModel();
    model.applyRecord(rec);
    // The engine saves the end, then announces it.
    rec.status = 'failed';
    rec.endedAt = iso(4000);
    rec.steps['a'] = {
      ...rec.steps['a']!,
      status: 'failed',
      endedAt: iso(4000),
      durationMs: 4000,
      exitCode: 1,
      reason: 'exit',
      message: 'exited with code 1',
      worktree: '.braid/worktrees/x/a',
    };
    await store.save(rec);
    await store.flush();
    const replaced: string[] = [];
    model.onDidReplace((run) => replaced.push(run.id));
    await model.enqueue(dir, { type: 'run', status: 'failed', plan: 'p', steps: 1, time: iso(4000), run: rec.id });
    const run = model.get(rec.id)!;
    assert.equal(run.status, 'failed');
    assert.deepEqual(replaced, [rec.id]);
    const a = run.steps.get('a')!;
    assert.equal(a.worktree, '.braid/worktrees/x/a', 'what only the record knows is shown');
    assert.equal(stepDescription(a), '4.0s · exited with code 1');
  });

  it('tells step listeners after the step changed, so a view reads the model, not the event', async () => {
    const graph = makeGraph([{ id: 'a' }]);
    const model = new RunsModel();
    const rec = recordOf(graph, {}, { workspace: dir });
    model.applyRecord(rec);
    const seen: string[] = [];
    model.onDidChangeStep(({ step, event }) =>
      seen.push(`${event.type}:${step.status}:${nodeUpdate(step).detail ?? ''}`),
    );
    const base = { time: iso(0), run: rec.id };
    await model.enqueue(dir, { ...base, type: 'step', id: 'a', status: 'running', attempt: 1 });
    await model.enqueue(dir, {
      ...base,
      type: 'step',
      id: 'a',
      status: 'running',
      attempt: 1,
      waitingFor: { holder: 'b', paths: ['x'] },
    });
    await model.enqueue(dir, { ...base, type: 'lock', id: 'a', waitingFor: 'b', paths: ['x'] });
    await model.enqueue(dir, { ...base, type: 'step', id: 'a', status: 'running', attempt: 1 });
    await model.enqueue(dir, { ...base, type: 'step', id: 'a', status: 'succeeded', attempt: 1, exitCode: 0 });
    assert.deepEqual(seen, [
      'step:running:',
      'step:running:waiting for b: x',
      'lock:running:waiting for b: x',
      'step:running:',
      'step:succeeded:',
    ]);
  });
});
