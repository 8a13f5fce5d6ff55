// The one fold of a step's state (records/stepFold.ts), rule by rule: what opens and closes an
// attempt, what an agent's progress adds to the running one, and what the step's cost is.
import { strict as assert } from 'node:assert';
import { foldStep, startedAttempt, type StepFoldEvent } from '../../src/core/engine/records/stepFold';
import type { StepRecord } from '../../src/core/engine/records/runRecord';

const T0 = Date.parse('2026-12-06T10:00:00.000Z');
const base = { run: '20261206-100000-abcd', id: 'a' };
const at = (ms: number) => new Date(T0 + ms).toISOString();
type StepBody = Omit<Extract<StepFoldEvent, { type: 'step' }>, 'run' | 'id' | 'time' | 'type'>;
type AgentBody = Omit<Extract<StepFoldEvent, { type: 'agent' }>, 'run' | 'id' | 'time' | 'type'>;
const step = (ms: number, body: StepBody): StepFoldEvent => ({ ...base, type: 'step', time: at(ms), ...body });
const agent = (ms: number, body: AgentBody): StepFoldEvent => ({ ...base, type: 'agent', time: at(ms), ...body });
const fold = (events: StepFoldEvent[], from?: StepRecord) => events.reduce<StepRecord | undefined>(foldStep, from)!;

describe('the fold of a step’s state', () => {
  it('a pick is the middle of the attempt: waiting for it closes nothing, going on to land opens nothing, the end closes it once', () => {
    const waiting = fold([
      step(0, { status: 'running', attempt: 1 }),
      step(1000, { status: 'waiting', attempt: 1, reason: 'pick', message: 'waiting for a pick' }),
    ]);
    assert.equal(waiting.attempts.length, 1);
    assert.equal(waiting.attempts[0]!.endedAt, undefined, 'the attempt is still open');
    const resumed = foldStep(waiting, step(5000, { status: 'running', attempt: 1 }));
    assert.equal(startedAttempt(waiting, resumed), false);
    assert.equal(resumed.reason, undefined, 'the pick wait is over');
    const ended = foldStep(resumed, step(6000, { status: 'succeeded', attempt: 1, exitCode: 0 }));
    assert.deepEqual(
      [ended.attempts.length, ended.attempts[0]!.status, ended.attempts[0]!.durationMs, ended.durationMs],
      [1, 'succeeded', 6000, 6000],
    );
  });

  it('a retry: the failed attempt closes with its reason, the wait keeps it, the next one opens with its own start', () => {
    const rec = fold([
      step(0, { status: 'running', attempt: 1 }),
      step(2000, { status: 'waiting', attempt: 1, exitCode: 1, reason: 'retry-delay', retryAt: at(3000) }),
    ]);
    assert.deepEqual(
      [rec.attempts[0]!.status, rec.attempts[0]!.reason, rec.retryAt, rec.endedAt],
      ['failed', 'retry-delay', at(3000), undefined],
    );
    const next = foldStep(rec, step(3000, { status: 'running', attempt: 2 }));
    assert.ok(startedAttempt(rec, next));
    assert.deepEqual(
      [next.attempts.length, next.attempts[1]!.startedAt, next.startedAt, next.retryAt, next.exitCode],
      [2, at(3000), at(0), undefined, undefined],
    );
  });

  it("an agent's progress is the running attempt's; the step's cost is every attempt's, of every run, its source joined", () => {
    const before: StepRecord = {
      id: 'a',
      status: 'failed',
      attempts: [{ attempt: 1, startedAt: at(-9000), endedAt: at(-8000), costUsd: 0.5, costSource: 'reported' }],
      costUsd: 0.5,
      costSource: 'reported',
    };
    const rec = fold(
      [
        step(0, { status: 'running', attempt: 2 }),
        agent(100, {
          attempt: 2,
          sessionId: 's1',
          inputTokens: 10,
          attemptCostUsd: 0.25,
          attemptCostSource: 'estimated',
        }),
        // A report of another attempt than the running one changes nothing.
        agent(200, { attempt: 1, inputTokens: 999, attemptCostUsd: 9 }),
      ],
      before,
    );
    assert.deepEqual([rec.sessionId, rec.inputTokens, rec.costUsd, rec.costSource], ['s1', 10, 0.75, 'mixed']);
    const ended = foldStep(
      rec,
      step(1000, {
        status: 'succeeded',
        attempt: 2,
        usage: { inputTokens: 12, costUsd: 0.3, costSource: 'estimated', turns: 3 },
      }),
    );
    assert.deepEqual(
      [ended.attempts[1]!.inputTokens, ended.attempts[1]!.turns, ended.costUsd, ended.inputTokens],
      [12, 3, 0.8, 12],
    );
  });

  it('a new attempt of a best-of step starts from no race; its events say the race anew', () => {
    const alternatives = [{ index: 1, status: 'succeeded', attempts: 1 }];
    const first = fold([
      step(0, { status: 'running', attempt: 1 }),
      step(10, { status: 'failed', attempt: 1, alternatives, winner: 1, winnerWhy: 'first to pass' }),
    ]);
    assert.equal(first.winner, 1);
    const next = foldStep(first, step(20, { status: 'running', attempt: 2 }));
    assert.deepEqual([next.alternatives, next.winner, next.winnerWhy], [undefined, undefined, undefined]);
  });
});
