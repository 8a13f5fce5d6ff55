// The lazily made abort of an attempt: it must behave exactly like an AbortController to runners,
// whenever (and through whatever copy of the context) they first read the signal.
import { strict as assert } from 'node:assert';
import { AttemptAbort, RunningAttempt, type AttemptSink } from '../../src/core/engine/scheduling/attempt';
import { makeGraph } from '../helpers/graph';

const sink: AttemptSink = { output: () => {}, progress: () => {} };

describe('attempt abort (lazy controller)', () => {
  it('a signal first read after the abort is already aborted, with the first reason', () => {
    const a = new AttemptAbort();
    a.abort('canceled');
    a.abort('timeout');
    assert.equal(a.signal.aborted, true);
    assert.equal(a.signal.reason, 'canceled');
  });

  it('a listener added before the abort fires once, with the reason', () => {
    const a = new AttemptAbort();
    const seen: unknown[] = [];
    a.signal.addEventListener('abort', () => seen.push(a.signal.reason));
    a.abort('budget');
    a.abort('canceled');
    assert.deepEqual(seen, ['budget']);
  });

  it("a runner's spread copy of the context still carries the (shared) signal", () => {
    const g = makeGraph([{ id: 'a' }]);
    const ctx = new RunningAttempt('run-1', g.steps.get('a')!, 1, new Map(), new Map(), sink);
    const copy = { ...ctx, title: 'setup' };
    ctx.abort.abort('canceled');
    assert.equal(copy.signal.aborted, true, 'the copy sees the abort');
    assert.equal(copy.signal, ctx.signal, 'one signal, not one a copy');
  });
});
