// Best-of steps in the scheduler (simulated clock, a fake runner that settles like the worktree
// isolator): every pick policy, the slots alternatives take, and every way a race can fail.
import { strict as assert } from 'node:assert';
import { PRESETS } from '../../src/core/agents/presets';
import { alternativeStep } from '../../src/core/plan/alternativeStep';
import { scoreLine } from '../../src/core/engine/steps/checkScore';
import { stepInvocation } from '../../src/core/engine/steps/render';
import { SimClock } from '../../src/core/engine/scheduling/clock';
import { Scheduler } from '../../src/core/engine/scheduling/scheduler';
import type { SchedulerOptions } from '../../src/core/engine/scheduling/schedulerOptions';
import type { EngineEvent } from '../../src/core/engine/types';
import type { BestOf, PickPolicy } from '../../src/core/plan/types';
import { FakeAlternativeRunner, type AltBehaviour } from '../helpers/fakeAlternativeRunner';
import { makeGraph, type StepSpec } from '../helpers/graph';

const bestOf = (n: number, pick: PickPolicy = 'first'): BestOf => ({
  pick,
  alternatives: Array.from({ length: n }, (_, i) => ({ index: i + 1, env: {} })),
});

function setup(
  specs: StepSpec[],
  behave: Record<string, AltBehaviour>,
  opts: Partial<SchedulerOptions> = {},
  plan = {},
) {
  const clock = new SimClock();
  const runner = new FakeAlternativeRunner(clock, behave);
  const events: EngineEvent[] = [];
  const sched = new Scheduler({
    graph: makeGraph(specs, { plan }),
    runId: 'r1',
    runner,
    clock,
    weight: () => 10,
    random: () => 0,
    onEvent: (e) => events.push(e),
    outputIntervalMs: 0,
    ...opts,
  });
  return { clock, runner, events, sched, run: () => clock.runUntil(sched.run()) };
}

const race = (n: number, pick: PickPolicy = 'first', extra: Partial<StepSpec> = {}): StepSpec => ({
  id: 'a',
  isolation: 'worktree',
  bestOf: bestOf(n, pick),
  ...extra,
});

describe('best-of steps (alternatives.ts)', () => {
  it('pick first: the first to pass wins, the others are canceled at that moment, and only it lands', async () => {
    const { runner, run } = setup([race(3), { id: 'b', needs: ['a'] }], {
      'a.alt1': { durationMs: 50 },
      'a.alt2': { durationMs: 10 },
      'a.alt3': { durationMs: 30 },
    });
    const r = await run();
    const a = r.steps.get('a')!;
    assert.equal(r.status, 'succeeded');
    assert.equal(a.status, 'succeeded');
    assert.equal(a.output, 'out:a.alt2', "the step's output is the winner's");
    assert.deepEqual(a.winner, { index: 2, why: 'first to pass' });
    assert.match(a.outcome!.message!, /alternative 2 won: first to pass/);
    assert.deepEqual(
      a.alternatives!.map((x) => [x.index, x.status, x.attempts]),
      [
        [1, 'canceled', 1],
        [2, 'succeeded', 1],
        [3, 'canceled', 1],
      ],
    );
    assert.deepEqual(
      runner.landed.filter((id) => id.startsWith('a.')),
      ['a.alt2'],
    );
    assert.equal(runner.endOf('a.alt1'), 10, 'canceled when the winner passed, not when it would have ended');
    assert.equal(runner.endOf('a.alt3'), 10);
    assert.equal(runner.log.find((l) => l.id === 'a.alt1')!.abortReason, 'lost');
    assert.equal(runner.log.find((l) => l.id === 'b')!.start, 10, 'the dependent starts once the winner landed');
    assert.deepEqual(runner.settledCalls, [
      { stepId: 'a', winner: 'a.alt2', losers: ['a.alt1', 'a.alt3'], keep: 'none' },
    ]);
  });

  it("the step's end event carries its alternatives and the winner (the views' tree and graph read them)", async () => {
    const { events, run } = setup([race(2)], { 'a.alt1': { durationMs: 20 }, 'a.alt2': { fail: true } });
    await run();
    const end = events.find((e) => e.type === 'step' && e.id === 'a' && e.status === 'succeeded');
    assert.ok(end && end.type === 'step');
    assert.equal(end.winner, 1);
    assert.deepEqual(
      end.alternatives!.map((x) => [x.index, x.status]),
      [
        [1, 'succeeded'],
        [2, 'failed'],
      ],
    );
    // During the race, a `running` event at each alternative's change: the views follow it live.
    const live = events
      .filter((e) => e.type === 'step' && e.id === 'a' && e.status === 'running' && e.alternatives)
      .map((e) => (e.type === 'step' ? e.alternatives!.map((x) => x.status).join(',') : ''));
    assert.ok(live.includes('running,running'), `both racing: ${live.join(' | ')}`);
    assert.ok(live.includes('running,failed'), `alternative 2 failed while 1 still ran: ${live.join(' | ')}`);
  });

  it('every change of an alternative reaches a step event at once, each running and ending before the step ends', async () => {
    const { events, run } = setup([race(3, 'first', { retries: 1, retryDelayMs: 5 })], {
      'a.alt1': { durationMs: 30 },
      'a.alt2': { fail: [1], durationMs: 5 },
      'a.alt3': { durationMs: 100 },
    });
    await run();
    const seen = events.flatMap((e) => (e.type === 'step' && e.id === 'a' ? [e] : []));
    const endAt = seen.findIndex((e) => e.status === 'succeeded');
    const before = seen.slice(0, endAt);
    const states = (i: number) =>
      before.map((e) => e.alternatives?.find((x) => x.index === i)?.status).filter((x) => x !== undefined);
    // Each transition once, in order (no repeated report of an unchanged race).
    // Alternative 2 fails at 5, waits out its retry delay, runs again and passes at 15: it wins.
    assert.deepEqual(
      dedupe(states(2)),
      ['pending', 'running', 'waiting', 'running', 'succeeded'],
      'its retry wait shows',
    );
    assert.deepEqual(dedupe(states(1)), ['running', 'canceled']);
    assert.deepEqual(dedupe(states(3)), ['pending', 'running', 'canceled']);
    assert.ok(
      before.every((e) => e.status === 'running'),
      'the step itself stays running while they race',
    );
    assert.ok(
      before.some((e) => e.winner === 2),
      'the winner is announced before the step ends',
    );
    const texts = before.map((e) => JSON.stringify([e.alternatives, e.winner]));
    assert.equal(new Set(texts).size, texts.length, 'an unchanged race is not reported again');
  });

  it('pick review: waiting for the pick holds no slot; the next ready step runs meanwhile, and the pick lands after', async () => {
    let picked!: (n: number) => void;
    const asked: number[] = [];
    const { clock, runner, events, sched, run } = setup(
      [race(2, 'review'), { id: 'c' }],
      { 'a.alt1': { durationMs: 10 }, 'a.alt2': { durationMs: 10 } },
      {
        concurrency: 2,
        weight: (s) => (s.id === 'c' ? 1 : 10),
        waitForPick: (_step, candidates) => {
          asked.push(clock.now());
          void candidates;
          return new Promise<number>((res) => {
            picked = res;
          });
        },
      },
    );
    const done = run();
    await clock.sleep(50);
    const c = runner.log.find((l) => l.id === 'c');
    assert.ok(c, 'c ran while the pick was pending');
    assert.equal(c.start, 10, 'c started when both alternatives had passed and the step waited for the pick');
    assert.deepEqual(asked, [10]);
    const a = sched.state('a')!;
    assert.equal(a.status, 'waiting');
    assert.equal(a.outcome?.reason, 'pick');
    assert.match(a.outcome.message!, /^waiting for a pick: alternatives 1, 2 passed \(braid pick r1 a N\)$/);
    const wait = events.find((e) => e.type === 'step' && e.id === 'a' && e.status === 'waiting');
    assert.ok(wait && wait.type === 'step' && wait.reason === 'pick', 'the wait is announced with its reason');
    picked(2);
    const r = await done;
    assert.equal(r.steps.get('a')!.status, 'succeeded');
    assert.deepEqual(r.steps.get('a')!.winner, { index: 2, why: 'picked' });
    assert.deepEqual(
      runner.landed.filter((id) => id.startsWith('a.')),
      ['a.alt2'],
    );
    assert.equal(r.steps.get('a')!.attempt, 1, 'one attempt, which the pick finished');
    const after = dedupe(
      events.filter((e) => e.type === 'step' && e.id === 'a').map((e) => (e.type === 'step' ? e.status : '')),
    );
    assert.deepEqual(after, ['running', 'waiting', 'running', 'succeeded'], 'running again to land, then its end');
  });

  it('a cancel of the run while a pick: review step waits for the pick ends it canceled; nothing lands', async () => {
    const { clock, runner, sched, run } = setup(
      [race(2, 'review'), { id: 'b', needs: ['a'] }],
      {},
      {
        waitForPick: (_s, _c, signal) =>
          new Promise<number>((_res, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
          ),
      },
    );
    const done = run();
    await clock.sleep(30);
    assert.equal(sched.state('a')!.status, 'waiting');
    sched.cancel();
    const r = await done;
    assert.equal(r.status, 'canceled');
    assert.equal(r.steps.get('a')!.status, 'canceled');
    assert.equal(r.steps.get('b')!.status, 'canceled');
    assert.deepEqual(runner.landed, []);
    assert.deepEqual(runner.dropped.sort(), ['a.alt1', 'a.alt2']);
  });

  it('pick check: every alternative fails its check or run: the step fails, naming each', async () => {
    const { runner, run } = setup([race(2, 'check', { check: 's' })], {
      'a.alt1': { fail: true },
      'a.alt2': { fail: true },
    });
    const r = await run();
    assert.equal(r.steps.get('a')!.status, 'failed');
    assert.match(r.steps.get('a')!.outcome!.message!, /^all 2 alternatives failed/);
    assert.deepEqual(runner.landed, []);
  });

  it('pick review: when every alternative fails nobody is asked to pick; the step fails naming each', async () => {
    let asked = 0;
    const { run } = setup(
      [race(2, 'review')],
      { 'a.alt1': { fail: true }, 'a.alt2': { fail: true } },
      {
        waitForPick: async () => {
          asked++;
          return 1;
        },
      },
    );
    const r = await run();
    assert.equal(asked, 0);
    assert.equal(r.steps.get('a')!.status, 'failed');
    assert.match(
      r.steps.get('a')!.outcome!.message!,
      /^all 2 alternatives failed \(1: a\.alt1 exited 1; 2: a\.alt2 exited 1\)$/,
    );
  });

  it("the run's budget reached (not passed) mid-race: an alternative queued behind the others does not start", async () => {
    const { runner, run } = setup(
      [race(3, 'first')],
      { 'a.alt1': { costs: [[10, 0.05]], durationMs: 20, fail: true }, 'a.alt2': { durationMs: 50 } },
      { concurrency: 2 },
      { maxCostUsd: 0.05 },
    );
    const r = await run();
    assert.equal(runner.attempts('a.alt3'), 0, 'alternative 3 never started');
    const alt3 = r.steps.get('a')!.alternatives!.find((x) => x.index === 3)!;
    assert.deepEqual([alt3.status, alt3.message], ['canceled', 'not started: the run reached its budget']);
    assert.equal(r.steps.get('a')!.status, 'succeeded', 'alternative 2, already running, finished and won');
  });

  it("an alternative runs as its own step: its agent, model, prompt and env over the step's, BRAID_ALTERNATIVE set", () => {
    const graph = makeGraph(
      [{ id: 'fix', kind: 'prompt', prompt: 'fix it', agent: 'claude', env: { A: '1', B: '1' } }],
      { agents: PRESETS },
    );
    const step = graph.steps.get('fix')!;
    const alt = alternativeStep(step, {
      index: 2,
      agent: 'codex',
      model: 'o3',
      prompt: 'fix it #${{ alternative.index }}',
      env: { B: '2' },
    });
    assert.equal(alt.id, 'fix.alt2');
    const inv = stepInvocation({ graph, step: alt, runId: 'r', outputs: new Map(), statuses: new Map(), baseEnv: {} });
    assert.equal(inv.argv[0], 'codex');
    assert.ok(inv.argv.includes('--model=o3'), `the model as codex's flag (stepAgent.ts): ${inv.argv.join(' ')}`);
    assert.ok(inv.argv.includes('fix it #2'), inv.argv.join(' '));
    assert.equal(inv.env.BRAID_ALTERNATIVE, '2');
    assert.equal(inv.env.BRAID_STEP_ID, 'fix', 'the step it belongs to');
    assert.deepEqual([inv.env.A, inv.env.B], ['1', '2']);
  });

  it('every alternative takes a slot: the cap and a pool bound the race and the steps beside it', async () => {
    const { runner, run } = setup([race(3), { id: 'c' }], {}, { concurrency: 3 });
    await run();
    assert.equal(runner.maxRunning, 3, 'c waited for the race: 3 alternatives fill a cap of 3');
    const pooled = setup(
      [race(3, 'first', { pool: 'p' }), { id: 'c', pool: 'p' }],
      { 'a.alt1': { fail: true }, 'a.alt2': { durationMs: 50 } },
      { concurrency: 8 },
      { pools: { p: 2 } },
    );
    await pooled.run();
    assert.equal(pooled.runner.maxRunning, 2, 'a pool of 2 runs two alternatives at once; the third waits for a lane');
    assert.equal(
      pooled.runner.log.find((l) => l.id === 'a.alt3')!.start,
      10,
      'the third ran once the failed first gave its lane up',
    );
    assert.equal(pooled.runner.log.find((l) => l.id === 'c')!.start, 20, 'c waited for the pool the race held');
  });

  it('a best-of step waiting for its slots holds back the steps ranked below it (no starvation by one-slot steps)', async () => {
    // Cap 2: b runs 0–100; r (best-of 2, ranked first through its tail) is ready at 10 with one slot free.
    const cs = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, needs: ['a'] }));
    const { runner, run } = setup(
      [{ id: 'a' }, { id: 'b' }, { ...race(2), id: 'r', needs: ['a'] }, { id: 'tail', needs: ['r'] }, ...cs],
      { a: { durationMs: 10 }, b: { durationMs: 100 } },
      {
        concurrency: 2,
        weight: (s) => (s.id === 'b' ? 100 : s.id === 'tail' ? 500 : 10),
      },
    );
    await run();
    assert.equal(runner.log.find((l) => l.id === 'r.alt1')!.start, 100, 'r starts when b frees the second slot');
    assert.ok(
      runner.log.filter((l) => l.id.startsWith('c')).every((l) => l.start >= 110),
      'no c took the slot r waited for',
    );
  });

  it('pick check: all run to the end; the highest score wins, ties to the one that passed first', async () => {
    const { runner, run } = setup([race(3, 'check', { check: 'score' })], {
      'a.alt1': { durationMs: 10, score: 0.5 },
      'a.alt2': { durationMs: 40, score: 0.93 },
      'a.alt3': { durationMs: 20, score: 0.93 },
    });
    const r = await run();
    const a = r.steps.get('a')!;
    assert.deepEqual(a.winner, { index: 3, why: 'score 0.93' });
    assert.equal(a.output, 'out:a.alt3');
    assert.equal(r.steps.get('a')!.outcome?.endedAt, 40, 'decided only when the slowest ended');
    assert.deepEqual(runner.landed, ['a.alt3']);
    assert.deepEqual(runner.dropped.sort(), ['a.alt1', 'a.alt2']);
    assert.deepEqual(
      a.alternatives!.map((x) => [x.status, x.score]),
      [
        ['succeeded', 0.5],
        ['succeeded', 0.93],
        ['succeeded', 0.93],
      ],
    );
    assert.match(a.alternatives![0]!.message!, /alternative 3 won/);
  });

  it('pick check with no score at all: the alternative that passed first wins, and the reason says no check printed `score: N`', async () => {
    const { runner, run } = setup([race(3, 'check', { check: 'npx ava' })], {
      'a.alt1': { durationMs: 40 },
      'a.alt2': { durationMs: 10 },
      'a.alt3': { durationMs: 20 },
    });
    const r = await run();
    const a = r.steps.get('a')!;
    assert.deepEqual(a.winner, { index: 2, why: 'first to pass (no check printed a `score: N` line)' });
    assert.deepEqual(runner.landed, ['a.alt2']);
  });

  it('a scored alternative outranks one without a score, whenever each passed', async () => {
    const { runner, run } = setup([race(2, 'check', { check: 's' })], {
      'a.alt1': { durationMs: 10 },
      'a.alt2': { durationMs: 30, score: -1 },
    });
    const r = await run();
    assert.deepEqual(r.steps.get('a')!.winner, { index: 2, why: 'score -1' });
    assert.deepEqual(runner.landed, ['a.alt2']);
  });

  it('pick review: all run; the step waits for the pick among those that passed', async () => {
    const asked: Array<{ step: string; candidates: readonly number[] }> = [];
    const { runner, run } = setup(
      [race(3, 'review')],
      { 'a.alt2': { fail: true }, 'a.alt3': { durationMs: 30 } },
      {
        waitForPick: async (step, candidates) => {
          asked.push({ step, candidates });
          return 3;
        },
      },
    );
    const r = await run();
    assert.deepEqual(asked, [{ step: 'a', candidates: [1, 3] }]);
    assert.deepEqual(r.steps.get('a')!.winner, { index: 3, why: 'picked' });
    assert.deepEqual(runner.landed, ['a.alt3']);
    assert.deepEqual(runner.dropped, ['a.alt1']);
  });

  it('retries apply to each alternative on its own', async () => {
    const { runner, run } = setup([race(2, 'check', { retries: 2, retryDelayMs: 100, check: 's' })], {
      'a.alt1': { fail: [1, 2], score: 1 },
      'a.alt2': { score: 0 },
    });
    const r = await run();
    assert.equal(runner.attempts('a.alt1'), 3);
    assert.equal(runner.attempts('a.alt2'), 1);
    assert.deepEqual(r.steps.get('a')!.winner, { index: 1, why: 'score 1' });
    assert.equal(r.steps.get('a')!.attempt, 1, 'one attempt of the step');
  });

  it('all fail: the step fails naming each, is not retried as a whole, keeps their worktrees, and skips its dependents', async () => {
    const { runner, run } = setup([race(3, 'first', { retries: 1, retryDelayMs: 5 }), { id: 'b', needs: ['a'] }], {
      'a.alt1': { fail: true },
      'a.alt2': { fail: true },
      'a.alt3': { fail: true },
    });
    const r = await run();
    const a = r.steps.get('a')!;
    assert.equal(a.status, 'failed');
    assert.match(
      a.outcome!.message!,
      /^all 3 alternatives failed \(1: a\.alt1 exited 1; 2: a\.alt2 exited 1; 3: a\.alt3 exited 1\)$/,
    );
    assert.equal(a.attempt, 1);
    for (const i of [1, 2, 3]) assert.equal(runner.attempts(`a.alt${i}`), 2, 'each alternative used its own retry');
    assert.equal(r.steps.get('b')!.status, 'skipped');
    assert.equal(runner.settledCalls[0]!.keep, 'all');
    assert.equal(a.winner, undefined);
  });

  it("the winner's merge-back ends conflict: the step is conflict, the losers were dropped", async () => {
    const { runner, run } = setup([race(2, 'check', { check: 's' })], {
      'a.alt1': { score: 2, conflict: true },
      'a.alt2': { score: 1 },
    });
    const r = await run();
    const a = r.steps.get('a')!;
    assert.equal(a.status, 'conflict');
    assert.match(a.outcome!.message!, /alternative 1 won \(score 2\) but merge-back conflict in a\.txt/);
    assert.deepEqual(runner.dropped, ['a.alt2']);
    assert.equal(r.status, 'failed');
  });

  it('a cancel of the run while the alternatives race kills every one and ends the step canceled', async () => {
    const { clock, runner, sched, run } = setup([race(3)], {
      'a.alt1': { durationMs: 100 },
      'a.alt2': { durationMs: 100 },
      'a.alt3': { durationMs: 100 },
    });
    const done = run();
    await clock.sleep(5).then(() => sched.cancel());
    const r = await done;
    assert.equal(r.status, 'canceled');
    assert.equal(r.steps.get('a')!.status, 'canceled');
    assert.deepEqual(
      runner.log.map((l) => [l.id, l.status, l.end]),
      [
        ['a.alt1', 'canceled', 5],
        ['a.alt2', 'canceled', 5],
        ['a.alt3', 'canceled', 5],
      ],
    );
    assert.deepEqual(runner.landed, []);
  });

  it("the step's budget reached mid-race: the alternatives' costs add up, and every one is canceled", async () => {
    const { runner, run } = setup([race(2, 'first', { maxCostUsd: 0.05 })], {
      'a.alt1': { costs: [[10, 0.03]], durationMs: 100 },
      'a.alt2': { costs: [[20, 0.03]], durationMs: 100 },
    });
    const r = await run();
    const a = r.steps.get('a')!;
    assert.equal(a.status, 'canceled');
    assert.equal(a.outcome?.reason, 'budget');
    assert.equal(a.costUsd, 0.06);
    assert.deepEqual(
      runner.log.map((l) => [l.id, l.end, l.abortReason]),
      [
        ['a.alt1', 20, 'budget'],
        ['a.alt2', 20, 'budget'],
      ],
    );
  });

  it("the run's budget reached (not passed) mid-race: running alternatives finish, none is retried", async () => {
    const { runner, run } = setup(
      [race(2, 'first', { retries: 3, retryDelayMs: 1 })],
      { 'a.alt1': { costs: [[10, 0.05]], durationMs: 20, fail: true }, 'a.alt2': { durationMs: 50 } },
      {},
      { maxCostUsd: 0.05 },
    );
    const r = await run();
    assert.equal(runner.attempts('a.alt1'), 1, 'not retried past the budget');
    assert.equal(
      r.steps.get('a')!.status,
      'succeeded',
      'reaching the budget holds new work; what runs within it finishes',
    );
    assert.equal(r.reason, 'budget');
  });

  it("the run's budget passed mid-race: the race is stopped there, every alternative canceled, reason budget", async () => {
    const { runner, run } = setup(
      [race(2, 'first')],
      { 'a.alt1': { costs: [[10, 0.06]], durationMs: 100 }, 'a.alt2': { durationMs: 100 } },
      {},
      { maxCostUsd: 0.05 },
    );
    const r = await run();
    const a = r.steps.get('a')!;
    assert.equal(a.status, 'canceled');
    assert.equal(a.outcome?.reason, 'budget');
    assert.ok(
      runner.log.every((l) => l.end === 10),
      `both stopped when the cost passed it: ${JSON.stringify(runner.log)}`,
    );
  });

  it('scoreLine reads only a line `score: N` (the last one), never the last number printed', () => {
    assert.equal(scoreLine('tests: 41/44 passed\nscore: 0.93\n'), 0.93);
    assert.equal(scoreLine('score: 3\n  Score: -2.5e1  \n'), -25);
    assert.equal(scoreLine('✔ 32 tests passed\n'), undefined, 'a test count is no score');
    assert.equal(scoreLine('score 87\ncoverage 87%\nthe score: 4 of 5\n'), undefined);
    assert.equal(scoreLine('score: 5 apples'), undefined);
  });
});

/** Consecutive repeats dropped. */
function dedupe<T>(xs: readonly T[]): T[] {
  return xs.filter((x, i) => i === 0 || xs[i - 1] !== x);
}
