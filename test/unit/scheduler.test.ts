import { strict as assert } from 'node:assert';
import { SimClock } from '../../src/core/engine/scheduling/clock';
import { LockTable } from '../../src/core/engine/locks/lockTable';
import { Scheduler } from '../../src/core/engine/scheduling/scheduler';
import type { LockGate, SchedulerOptions } from '../../src/core/engine/scheduling/schedulerOptions';
import type { EngineEvent } from '../../src/core/engine/types';
import type { GraphStep } from '../../src/core/plan/types';
import { FakeRunner, type FakeBehaviour } from '../helpers/fakeRunner';
import { makeGraph, type StepSpec } from '../helpers/graph';

function setup(
  specs: StepSpec[],
  behave: Record<string, FakeBehaviour> = {},
  opts: Partial<SchedulerOptions> = {},
  plan = {},
) {
  const clock = new SimClock();
  const runner = new FakeRunner(clock, behave);
  const events: EngineEvent[] = [];
  const graph = makeGraph(specs, { plan });
  const weight = (s: GraphStep) => behave[s.id]?.durationMs ?? 10;
  const sched = new Scheduler({
    graph,
    runId: 'r1',
    runner,
    clock,
    weight,
    random: () => 0,
    onEvent: (e) => events.push(e),
    outputIntervalMs: 0,
    ...opts,
  });
  const run = () => clock.runUntil(sched.run());
  return { clock, runner, events, sched, run };
}

const finalStatuses = (steps: ReadonlyMap<string, { status: string }>) =>
  Object.fromEntries([...steps].map(([k, v]) => [k, v.status]));

describe('scheduler', () => {
  it('starts a step the moment its own needs finish, not when its layer does', async () => {
    // a(10) → c ; b(100) → d. c must start at 10, long before b ends.
    const { runner, run } = setup([{ id: 'a' }, { id: 'b' }, { id: 'c', needs: ['a'] }, { id: 'd', needs: ['b'] }], {
      a: { durationMs: 10 },
      b: { durationMs: 100 },
      c: { durationMs: 10 },
      d: { durationMs: 10 },
    });
    const r = await run();
    assert.equal(r.status, 'succeeded');
    assert.equal(runner.startOf('c'), 10);
    assert.equal(runner.startOf('d'), 100);
  });

  it('respects the concurrency cap and runs the longest remaining path first', async () => {
    const { runner, run } = setup(
      [{ id: 'short1' }, { id: 'short2' }, { id: 'long' }, { id: 'tail', needs: ['long'] }],
      { short1: { durationMs: 10 }, short2: { durationMs: 10 }, long: { durationMs: 10 }, tail: { durationMs: 50 } },
      { concurrency: 1 },
    );
    await run();
    assert.equal(runner.maxRunning, 1);
    assert.equal(runner.log[0]!.id, 'long', 'long has the longest remaining path (60)');
  });

  it('fifo policy takes ready steps in plan order (a baseline)', async () => {
    const { runner, run } = setup(
      [{ id: 'short1' }, { id: 'long' }, { id: 'tail', needs: ['long'] }],
      { tail: { durationMs: 50 } },
      { concurrency: 1, policy: 'fifo' },
    );
    await run();
    assert.equal(runner.log[0]!.id, 'short1');
  });

  it('caps steps sharing a pool on top of the global cap', async () => {
    const specs = [1, 2, 3, 4]
      .map((i) => ({ id: `p${i}`, pool: 'anthropic' }))
      .concat([{ id: 'free', pool: undefined } as never]);
    const { runner, run } = setup(specs, {}, { concurrency: 4 }, { pools: { anthropic: 2 } });
    await run();
    const at0 = runner.log
      .filter((l) => l.start === 0)
      .map((l) => l.id)
      .sort();
    assert.deepEqual(at0, ['free', 'p1', 'p2']);
  });

  it('a failed step skips its dependents while independent branches go on; the run fails', async () => {
    const { run, events } = setup(
      [{ id: 'a' }, { id: 'b', needs: ['a'] }, { id: 'c', needs: ['b'] }, { id: 'x' }, { id: 'y', needs: ['x'] }],
      { a: { fail: true } },
    );
    const r = await run();
    assert.deepEqual(finalStatuses(r.steps), {
      a: 'failed',
      x: 'succeeded',
      b: 'skipped',
      y: 'succeeded',
      c: 'skipped',
    });
    assert.equal(r.status, 'failed');
    assert.ok(events.some((e) => e.type === 'step' && e.id === 'b' && e.status === 'skipped'));
  });

  it('continue-on-error lets dependents run and does not fail the run', async () => {
    const { run } = setup(
      [
        { id: 'a', continueOnError: true },
        { id: 'b', needs: ['a'] },
      ],
      { a: { fail: true } },
    );
    const r = await run();
    assert.deepEqual(finalStatuses(r.steps), { a: 'failed', b: 'succeeded' });
    assert.equal(r.status, 'succeeded');
  });

  it('if: failure runs only when something it needs (transitively) failed; if: always runs regardless', async () => {
    const specs: StepSpec[] = [
      { id: 'a' },
      { id: 'b', needs: ['a'] },
      { id: 'onFail', needs: ['b'], if: 'failure' },
      { id: 'cleanup', needs: ['b'], if: 'always' },
    ];
    const failing = await setup(specs, { a: { fail: true } }).run();
    assert.deepEqual(finalStatuses(failing.steps), {
      a: 'failed',
      b: 'skipped',
      onFail: 'succeeded',
      cleanup: 'succeeded',
    });
    const passing = await setup(specs).run();
    assert.deepEqual(finalStatuses(passing.steps), {
      a: 'succeeded',
      b: 'succeeded',
      onFail: 'skipped',
      cleanup: 'succeeded',
    });
  });

  it('retries with a doubling delay that holds no slot', async () => {
    const { runner, run } = setup(
      [{ id: 'flaky', retries: 2, retryDelayMs: 100 }, { id: 'other' }],
      { flaky: { fail: [1, 2], durationMs: 10 }, other: { durationMs: 5 } },
      { concurrency: 1 },
    );
    const r = await run();
    assert.equal(r.steps.get('flaky')!.status, 'succeeded');
    assert.equal(r.steps.get('flaky')!.attempt, 3);
    // attempt 1 ends at 10; other runs in the delay (10..15); attempt 2 at 10+100=110; ends 120; attempt 3 at 120+200=320.
    assert.equal(runner.startOf('other'), 10);
    assert.equal(runner.startOf('flaky', 2), 110);
    assert.equal(runner.startOf('flaky', 3), 320);
  });

  it('gives up after its retries and reports failure', async () => {
    const { run } = setup([{ id: 'bad', retries: 1, retryDelayMs: 1 }], { bad: { fail: true } });
    const r = await run();
    assert.equal(r.steps.get('bad')!.status, 'failed');
    assert.equal(r.steps.get('bad')!.attempt, 2);
  });

  it('passes outputs of finished needs to the runner', async () => {
    const { runner, run } = setup([{ id: 'a' }, { id: 'b', needs: ['a'] }], { a: { output: 'schema!' } });
    await run();
    const ctx = runner.contexts.find((c) => c.step.id === 'b')!;
    assert.equal(ctx.outputs.get('a'), 'schema!');
    assert.equal(ctx.statuses.get('a'), 'succeeded');
  });

  it('start() hands the runner live, read-only views of outputs and statuses, not copies', async () => {
    // a(10) → b(10); x runs 0..50 alongside, so it is still running when b starts.
    const { runner, run } = setup([{ id: 'a' }, { id: 'b', needs: ['a'] }, { id: 'x' }], {
      a: { output: 'from a', durationMs: 10 },
      b: { durationMs: 10 },
      x: { output: 'from x', durationMs: 50 },
    });
    const seen: Record<string, unknown> = {};
    const execute = runner.execute.bind(runner);
    runner.execute = (ctx) => {
      if (ctx.step.id === 'b') {
        seen.output = ctx.outputs.get('a');
        seen.status = ctx.statuses.get('a');
        seen.x = ctx.statuses.get('x');
        seen.withOutput = [...ctx.outputs.keys()].sort();
      }
      return execute(ctx);
    };
    await run();
    assert.deepEqual(seen, { output: 'from a', status: 'succeeded', x: 'running', withOutput: ['a'] });
    const [ca, cb] = ['a', 'b'].map((id) => runner.contexts.find((c) => c.step.id === id)!);
    assert.equal(ca!.outputs, cb!.outputs, 'one view for every attempt');
    assert.equal(cb!.outputs.get('x'), 'from x', 'the view shows what finished later');
    assert.equal(cb!.statuses.get('b'), 'succeeded');
    assert.equal(cb!.outputs.size, 3);
    assert.equal((cb!.outputs as unknown as { set?: unknown }).set, undefined, 'nothing can write through it');
  });

  it('cancel kills running steps and marks the rest canceled', async () => {
    const ac = new AbortController();
    const { clock, run } = setup(
      [{ id: 'a' }, { id: 'b', needs: ['a'] }, { id: 'c' }],
      { a: { durationMs: 100 }, c: { durationMs: 5 } },
      { signal: ac.signal },
    );
    void clock.sleep(50).then(() => ac.abort());
    const r = await run();
    assert.equal(r.status, 'canceled');
    assert.deepEqual(finalStatuses(r.steps), { a: 'canceled', c: 'succeeded', b: 'canceled' });
  });

  it('cancelStep cancels one running step and skips what needs it', async () => {
    const { clock, sched, run } = setup([{ id: 'a' }, { id: 'b', needs: ['a'] }, { id: 'c' }], {
      a: { durationMs: 100 },
      c: { durationMs: 200 },
    });
    void clock.sleep(20).then(() => sched.cancelStep('a'));
    const r = await run();
    assert.deepEqual(finalStatuses(r.steps), { a: 'canceled', c: 'succeeded', b: 'skipped' });
    assert.equal(r.status, 'failed');
  });

  it('keep: a retry re-runs only what is not kept and reuses kept outputs', async () => {
    const keep = new Map([['a', { status: 'succeeded' as const, output: 'kept' }]]);
    const { runner, run } = setup([{ id: 'a' }, { id: 'b', needs: ['a'] }], {}, { keep });
    const r = await run();
    assert.deepEqual(
      runner.log.map((l) => l.id),
      ['b'],
    );
    assert.equal(runner.contexts[0]!.outputs.get('a'), 'kept');
    assert.equal(r.status, 'succeeded');
  });

  it('batches output into events and emits step lifecycle events in order', async () => {
    const { run, events } = setup([{ id: 'a' }]);
    await run();
    const kinds = events.filter((e) => e.type !== 'output').map((e) => (e.type === 'step' ? e.status : e.type));
    assert.deepEqual(kinds, ['running', 'succeeded']);
    const out = events.filter((e) => e.type === 'output');
    assert.equal(out.length, 1);
    assert.equal(out[0]!.type === 'output' && out[0]!.text, 'hello from a\n');
  });

  describe('with locks', () => {
    const gate = (table: LockTable): LockGate => ({
      tryAcquire: (s) => {
        const g = table.tryAcquire(s.id, s.writes, s.reads);
        return g.ok ? g : { ok: false, holder: g.holder, paths: g.paths };
      },
      onRelease: (l) => table.onRelease(l),
    });

    it('overlapping write sets never run at once, disjoint ones do, and a blocked step never holds back others', async () => {
      const table = new LockTable();
      const { runner, run, events } = setup(
        [
          { id: 'wide', writes: ['src/**'] },
          { id: 'narrow', writes: ['src/a.ts'] },
          { id: 'docs', writes: ['docs/**'] },
        ],
        { wide: { durationMs: 100 }, narrow: { durationMs: 100 }, docs: { durationMs: 10 } },
        { concurrency: 2, locks: gate(table) },
      );
      const r = await run();
      assert.equal(r.status, 'succeeded');
      assert.equal(runner.startOf('wide'), 0);
      assert.equal(runner.startOf('docs'), 0, 'docs skips ahead of the blocked narrow');
      assert.equal(runner.startOf('narrow'), 100);
      const lock = events.find((e) => e.type === 'lock');
      assert.ok(lock && lock.type === 'lock' && lock.id === 'narrow' && lock.waitingFor === 'wide');
    });
  });
});
