// A step's time is the time it spent running: a step retried after a delay shows its attempts' time,
// and the wall time from its first start apart, labelled, in every view (one function: format.ts
// stepTimeText), whether the view was read from the record or folded from live events. A reused
// step shows the time it spent where it ran, and says it was reused.
import { strict as assert } from 'node:assert';
import { stepTimeText } from '../../src/core/format';
import type { RunRecord, StepRecord } from '../../src/core/engine/records/runRecord';
import { snapshotGraph } from '../../src/core/engine/records/snapshot';
import type { EngineEvent } from '../../src/core/engine/types';
import { nodeUpdate } from '../../src/extension/graph/graphNodes';
import { applyStepEvent, viewOf } from '../../src/extension/runs/runView';
import { stepDescription } from '../../src/extension/runs/treeText';
import { makeGraph } from '../helpers/graph';

const T0 = Date.parse('2026-12-06T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const RUN = '20261206-100000-abcd';
const graph = makeGraph([{ id: 'a' }]);

function viewOfStep(rec: Partial<StepRecord>) {
  const record: RunRecord = {
    version: 1,
    id: RUN,
    planFile: '/w/p.braid.yaml',
    planName: 'p',
    workspace: '/w',
    status: 'running',
    createdAt: iso(0),
    host: { pid: 1, hostname: 'h' },
    graph: snapshotGraph(graph),
    steps: { a: { id: 'a', status: 'pending', attempts: [], ...rec } },
  };
  return viewOf(record).steps.get('a')!;
}

// Three 3-second attempts with a minute's retry delay between them: 9 s of work over 2m 09s.
const retried: Partial<StepRecord> = {
  status: 'succeeded',
  startedAt: iso(0),
  endedAt: iso(129_000),
  durationMs: 129_000,
  exitCode: 0,
  attempts: [
    { attempt: 1, startedAt: iso(0), endedAt: iso(3000), durationMs: 3000, status: 'failed' },
    { attempt: 2, startedAt: iso(63_000), endedAt: iso(66_000), durationMs: 3000, status: 'failed' },
    { attempt: 3, startedAt: iso(126_000), endedAt: iso(129_000), durationMs: 3000, status: 'succeeded' },
  ],
};

describe('step times: time spent running, wall time apart', () => {
  it('the one function: running time, and the wall time only when visibly longer', () => {
    assert.equal(stepTimeText({ status: 'pending' }, T0), undefined);
    assert.deepEqual(stepTimeText({ status: 'succeeded', ranMs: 2000, startedAt: T0, endedAt: T0 + 2300 }, T0), {
      time: '2.0s',
    });
    assert.deepEqual(stepTimeText({ status: 'succeeded', ranMs: 9000, startedAt: T0, endedAt: T0 + 153_000 }, T0), {
      time: '9.0s',
      wall: 'wall 2m 33s',
    });
    // Running: the attempts that ended plus the running one so far.
    assert.deepEqual(
      stepTimeText({ status: 'running', ranMs: 4000, attemptStartedAt: T0 + 60_000, startedAt: T0 }, T0 + 61_500),
      { time: '5.5s', wall: 'wall 1m 02s' },
    );
    // Waiting out a retry delay: no attempt runs; the wall clock goes on.
    assert.deepEqual(stepTimeText({ status: 'waiting', ranMs: 4000, startedAt: T0 }, T0 + 30_000), {
      time: '4.0s',
      wall: 'wall 30.0s',
    });
  });

  it('read from the record: the tree row and the graph node show 9.0s, and "wall 2m 09s" apart', () => {
    const a = viewOfStep(retried);
    assert.equal(stepDescription(a, T0 + 200_000), '9.0s · wall 2m 09s · attempt 3');
    assert.deepEqual(nodeUpdate(a, T0 + 200_000), {
      stepId: 'a',
      status: 'succeeded',
      attempt: 3,
      detail: 'wall 2m 09s',
      time: '9.0s',
    });
  });

  it('folded from live events: the same, and while it runs, the running attempt counts from its own start', () => {
    const a = viewOfStep({});
    const step = (
      ms: number,
      status: 'running' | 'waiting' | 'succeeded',
      attempt: number,
      more: object = {},
    ): EngineEvent => ({ time: iso(ms), run: RUN, type: 'step', id: 'a', status, attempt, ...more });
    const fold = (e: EngineEvent) => applyStepEvent(a, e as Extract<EngineEvent, { type: 'step' }>);
    fold(step(0, 'running', 1));
    fold(
      step(3000, 'waiting', 1, {
        reason: 'retry-delay',
        message: 'exited with code 1; retrying in 1m',
        retryAt: iso(63_000),
      }),
    );
    fold(step(63_000, 'running', 2));
    assert.equal(
      stepDescription(a, T0 + 64_000),
      '4.0s · wall 1m 04s · attempt 2',
      'one attempt done (3 s), one running for 1 s',
    );
    fold(
      step(66_000, 'waiting', 2, {
        reason: 'retry-delay',
        message: 'exited with code 1; retrying in 1m',
        retryAt: iso(126_000),
      }),
    );
    fold(step(126_000, 'running', 3));
    fold(step(129_000, 'succeeded', 3, { exitCode: 0 }));
    assert.equal(stepDescription(a, T0 + 200_000), stepDescription(viewOfStep(retried), T0 + 200_000));
    assert.deepEqual(nodeUpdate(a, T0 + 200_000), nodeUpdate(viewOfStep(retried), T0 + 200_000));
  });

  it('a reused step shows the time it spent where it ran, and says reused, from the record and live alike', () => {
    const rec: Partial<StepRecord> = {
      status: 'succeeded',
      attempts: [],
      reused: { run: '20261205-090000-beef', endedAt: iso(-5000), durationMs: 1500 },
      message: 'reused from run 20261205-090000-beef',
      exitCode: 0,
    };
    const fromRecord = viewOfStep(rec);
    assert.equal(stepDescription(fromRecord, T0), '1.5s · reused');
    assert.deepEqual(nodeUpdate(fromRecord, T0), {
      stepId: 'a',
      status: 'succeeded',
      detail: 'reused from run 20261205-090000-beef',
      time: '1.5s',
    });
    const live = viewOfStep({});
    applyStepEvent(live, {
      time: iso(0),
      run: RUN,
      type: 'step',
      id: 'a',
      status: 'succeeded',
      attempt: 0,
      exitCode: 0,
      message: rec.message!,
      reused: rec.reused!,
    });
    assert.equal(stepDescription(live, T0), '1.5s · reused');
    assert.deepEqual(nodeUpdate(live, T0), nodeUpdate(fromRecord, T0));
  });
});
