// The `review` state in the scheduler, with a fake runner on the simulated clock: a step in review
// holds no slot (another step runs meanwhile at concurrency 1), its dependents wait for the
// decision, approve lands it through the runner, reject fails it and skips them, and a canceled
// run ends with it still in review.
import { strict as assert } from 'node:assert';
import { SimClock } from '../../src/core/engine/scheduling/clock';
import { Scheduler } from '../../src/core/engine/scheduling/scheduler';
import type { ReviewDecision } from '../../src/core/engine/scheduling/reviewDecision';
import type { AttemptContext, AttemptResult, EngineEvent } from '../../src/core/engine/types';
import { FakeRunner } from '../helpers/fakeRunner';
import { makeGraph } from '../helpers/graph';

/** Steps named in `review` end their attempt in `review`; `land` lands them (or conflicts). */
class ReviewRunner extends FakeRunner {
  readonly landed: string[] = [];
  readonly rejected: string[] = [];
  constructor(
    clock: SimClock,
    private readonly reviewed: ReadonlySet<string>,
    private readonly conflicts = new Set<string>(),
  ) {
    super(clock);
  }
  override async execute(ctx: AttemptContext): Promise<AttemptResult> {
    const r = await super.execute(ctx);
    return r.status === 'succeeded' && this.reviewed.has(ctx.step.id) ? { ...r, status: 'review' } : r;
  }
  async land(stepId: string): Promise<AttemptResult> {
    this.landed.push(stepId);
    return this.conflicts.has(stepId)
      ? {
          status: 'conflict',
          exitCode: 0,
          signal: null,
          reason: 'conflict',
          message: 'both changed f.txt',
          durationMs: 1,
        }
      : { status: 'succeeded', exitCode: 0, signal: null, durationMs: 1, output: `out:${stepId}` };
  }
  reject(stepId: string): void {
    this.rejected.push(stepId);
  }
}

function setup(decide: ReviewDecision | 'cancel', conflicts: string[] = []) {
  const clock = new SimClock();
  const runner = new ReviewRunner(clock, new Set(['a']), new Set(conflicts));
  const events: EngineEvent[] = [];
  const graph = makeGraph([{ id: 'a' }, { id: 'b' }, { id: 'c', needs: ['a'] }]);
  let decidedAt = -1;
  const outcomes: unknown[] = [];
  const ac = new AbortController();
  const sched: Scheduler = new Scheduler({
    graph,
    runId: 'r1',
    runner,
    clock,
    concurrency: 1,
    random: () => 0,
    outputIntervalMs: 0,
    signal: ac.signal,
    weight: (s) => (s.id === 'a' ? 100 : 10),
    onEvent: (e) => {
      events.push(e);
      // The user decides a while after the step entered review (a timer keeps the clock going).
      if (e.type === 'step' && e.id === 'a' && e.status === 'review') {
        void clock.sleep(50).then(async () => {
          decidedAt = clock.now();
          if (decide === 'cancel') ac.abort();
          else outcomes.push(await sched.review('a', decide));
        });
      }
    },
  });
  return { clock, runner, events, run: () => clock.runUntil(sched.run()), decidedAt: () => decidedAt, outcomes };
}

const statuses = (events: EngineEvent[], id: string) =>
  events.filter((e) => e.type === 'step' && e.id === id).map((e) => (e as { status: string }).status);

describe('scheduler: the review state', () => {
  it('a step in review holds no slot; its dependent waits for the approval, which lands it', async () => {
    const { runner, events, run, decidedAt, outcomes } = setup({ action: 'approve' });
    const r = await run();
    assert.equal(r.status, 'succeeded');
    assert.deepEqual(statuses(events, 'a'), ['running', 'review', 'succeeded']);
    assert.ok(runner.startOf('b') < decidedAt(), 'b ran while a waited for review, at concurrency 1');
    assert.ok(runner.startOf('c') >= decidedAt(), 'c started only after the approval');
    assert.deepEqual(runner.landed, ['a']);
    assert.deepEqual(outcomes, [{ ok: true, status: 'succeeded' }]);
    assert.equal(r.steps.get('a')!.output, 'out:a');
  });

  it('reject fails the step (reason rejected) and skips its dependent; nothing lands', async () => {
    const { runner, events, run, outcomes } = setup({ action: 'reject', reason: 'no' });
    const r = await run();
    assert.equal(r.status, 'failed');
    assert.equal(r.steps.get('a')!.status, 'failed');
    assert.equal(r.steps.get('a')!.outcome?.reason, 'rejected');
    assert.equal(r.steps.get('a')!.outcome?.message, 'rejected: no');
    assert.equal(r.steps.get('c')!.status, 'skipped');
    assert.deepEqual(runner.landed, []);
    assert.deepEqual(runner.rejected, ['a']);
    assert.deepEqual(outcomes, [{ ok: true, status: 'failed' }]);
    assert.deepEqual(statuses(events, 'c'), ['skipped']);
  });

  it('an approval whose landing conflicts ends the step `conflict`', async () => {
    const { run, outcomes } = setup({ action: 'approve' }, ['a']);
    const r = await run();
    assert.equal(r.steps.get('a')!.status, 'conflict');
    assert.equal(r.steps.get('c')!.status, 'skipped');
    assert.deepEqual(outcomes, [{ ok: true, status: 'conflict', message: 'both changed f.txt' }]);
  });

  it('a canceled run ends with the step still in review (its change can land later)', async () => {
    const { run } = setup('cancel');
    const r = await run();
    assert.equal(r.status, 'canceled');
    assert.equal(r.steps.get('a')!.status, 'review');
    assert.equal(r.steps.get('c')!.status, 'canceled');
  });

  it('refuses merge on a step that is not `conflict`, changing nothing', async () => {
    const { run, runner, outcomes } = setup({ action: 'merge' });
    // Refused, a stays in review and the run waits on it: the simulated clock reports that.
    const r = await run().catch((e: Error) => e);
    assert.ok(r instanceof Error && /deadlock/.test(r.message), String(r));
    assert.deepEqual(outcomes, [{ ok: false, message: 'step a is review, not conflict' }]);
    assert.deepEqual(runner.landed, []);
  });
});
