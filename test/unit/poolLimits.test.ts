// The adaptive pool cap on its own (simulated clock): cut to what the provider serves, grown back
// one step a probe, the probe interval doubled by a limit right after a probe.
import { strict as assert } from 'node:assert';
import { SimClock } from '../../src/core/engine/scheduling/clock';
import { MIN_PROBE_MS, PoolLimits } from '../../src/core/engine/scheduling/poolLimits';

describe('engine/poolLimits', () => {
  it('cuts to the running count, probes up one at a time, doubles the interval after a failed probe, ends whole', async () => {
    const clock = new SimClock();
    let restores = 0;
    const pools = new PoolLimits({ p: 6 }, 16, clock, () => {
      restores++;
    });
    assert.equal(pools.cap('p'), 6);
    assert.deepEqual(pools.limited('p', 2, 1000), { cap: 2, until: MIN_PROBE_MS }, 'never sooner than 30 s');
    const seen: number[] = [];
    const watch = (async () => {
      await clock.sleep(MIN_PROBE_MS);
      seen.push(pools.cap('p')!); // probe 1: 3
      assert.equal(
        pools.limited('p', 3, 1000).until,
        MIN_PROBE_MS + 2 * MIN_PROBE_MS,
        'a limit right after a probe doubles the interval',
      );
      seen.push(pools.cap('p')!); // 3: the provider serves 3
      await clock.sleep(2 * MIN_PROBE_MS);
      seen.push(pools.cap('p')!); // 4
      await clock.sleep(2 * MIN_PROBE_MS);
      seen.push(pools.cap('p')!); // 5
      await clock.sleep(2 * MIN_PROBE_MS);
      seen.push(pools.cap('p') ?? -1); // whole again: no cut
    })();
    await clock.runUntil(watch);
    assert.deepEqual(seen, [3, 3, 4, 5, 6]);
    assert.equal(pools.cut('p'), undefined);
    assert.equal(restores, 4);
    pools.dispose();
  });

  it('never cuts below 1 nor above the cap it had', () => {
    const clock = new SimClock();
    const pools = new PoolLimits({}, 8, clock, () => {});
    assert.equal(pools.limited('q', 0, 10).cap, 1);
    assert.equal(pools.limited('q', 5, 10).cap, 1, 'more running than the cut cap: the cap stays');
    pools.dispose();
  });
});
