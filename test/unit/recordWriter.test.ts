import { strict as assert } from 'node:assert';
import { SimClock } from '../../src/core/engine/scheduling/clock';
import { RecordWriter, type WriteFs } from '../../src/core/engine/records/recordWriter';
import type { RunRecord } from '../../src/core/engine/records/runRecord';

/** A file system that only notes, at the simulated time, when each run.json landed. */
function fakeFs(clock: SimClock, landed: number[]): WriteFs {
  return {
    writeFile: async () => undefined,
    rename: async () => {
      landed.push(clock.now());
    },
    unlink: async () => undefined,
  };
}

/** A record of `n` steps (only its size matters to the writer). */
function record(n: number): RunRecord {
  const steps: Record<string, unknown> = {};
  for (let i = 0; i < n; i++)
    steps[`step-${i}`] = {
      status: 'succeeded',
      attempts: [{ exitCode: 0, startedAt: '2026-12-07T00:00:00.000Z', log: `logs/step-${i}.log` }],
    };
  return { id: 'r1', steps } as unknown as RunRecord;
}

/** When the first and second writes of a run that keeps changing land. */
async function twoWrites(n: number): Promise<number[]> {
  const clock = new SimClock();
  const landed: number[] = [];
  const w = new RecordWriter(fakeFs(clock, landed), clock, () => '/nowhere/run.json');
  const rec = record(n);
  await clock.runUntil(w.save(rec));
  await clock.runUntil(w.save(rec));
  return landed;
}

describe('record writer pacing', () => {
  it('a small record is written again 100 ms after the last write', async () => {
    assert.deepEqual(await twoWrites(10), [0, 100]);
  });

  it('a large record waits in proportion to what its last write cost, so writes stay a small share of the thread', async () => {
    // Serialising 50,000 steps takes tens of ms on any machine: 20 × that is well past 100 ms.
    const [first, second] = await twoWrites(50_000);
    assert.equal(first, 0);
    assert.ok(second! > 100, `second write at ${second} ms: expected the interval to grow with the record`);
  });
});
