// Lock-aware priorities: the simulation they come from must be the Scheduler's own behaviour
// (or the ranks optimise the wrong thing), they must never be worse than the critical path on
// that simulation, and they must exist only where locks contend.
import { strict as assert } from 'node:assert';
import { bounds, randomDag, simulate } from '../../bench/scheduler';
import { processLocks } from '../../src/core/engine/locks/lockGate';
import { lockAwareRanks, simulatedMakespan, type LockRankInput } from '../../src/core/engine/scheduling/lockAwareRanks';
import { criticalPaths } from '../../src/core/plan/graph';
import type { Graph } from '../../src/core/plan/types';
import { makeGraph } from '../helpers/graph';

/** The lock bench's shape: about one of `regions` regions a step. */
const regionWrites =
  (regions: number) =>
  (_id: string, r: () => number): string[] => {
    const x = r();
    const pick = () => `r${Math.floor(r() * regions)}/**`;
    if (x < 0.1) return [];
    if (x < 0.9) return [pick()];
    return [...new Set([pick(), pick()])];
  };

const input = (
  graph: Graph,
  dur: ReadonlyMap<string, number>,
  k: number,
  takesLocks: LockRankInput['takesLocks'] = () => true,
): LockRankInput => ({ graph, weight: (s) => dur.get(s.id)!, concurrency: k, takesLocks });

describe('lock-aware priorities', function () {
  this.timeout(60_000);

  it('the simulation matches the real Scheduler on a simulated clock, with its ranks or the critical path', async () => {
    let improved = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const n = 20 + ((seed * 13) % 120),
        k = [2, 3, 4, 8][seed % 4]!;
      const { graph, dur } = randomDag(n, 900 + seed, { writes: regionWrites(2 + (seed % 5)) });
      const o = input(graph, dur, k);
      const ranks = lockAwareRanks(o);
      const cp = criticalPaths(graph, o.weight);
      const real = await simulate(graph, dur, k, 'critical-path', processLocks());
      assert.equal(
        real,
        simulatedMakespan(o, ranks ?? cp),
        `seed ${seed}: the Scheduler's makespan differs from the simulation's`,
      );
      if (ranks) {
        improved++;
        assert.ok(simulatedMakespan(o, ranks) < simulatedMakespan(o, cp), `seed ${seed}: ranks given without a gain`);
      }
      assert.ok(real >= bounds(graph, dur, k).lower, `seed ${seed}: below the lower bound`);
    }
    // The ranks exist to beat the critical path under contention; on these plans they must, often.
    assert.ok(improved >= 8, `only ${improved} of 24 contended plans improved`);
  });

  it('gives nothing when no two locked steps conflict', () => {
    // Every step writes its own file: locks, but none shared.
    const { graph, dur } = randomDag(60, 7, { writes: (id) => [`own/${id}.txt`] });
    assert.equal(lockAwareRanks(input(graph, dur, 4)), undefined);
  });

  it('gives nothing when the contending steps lock only at merge-back (worktree steps)', () => {
    const { graph, dur } = randomDag(60, 8, { writes: regionWrites(2) });
    assert.notEqual(
      lockAwareRanks(input(graph, dur, 2)),
      undefined,
      'this plan contends when locks are held while running',
    );
    assert.equal(lockAwareRanks(input(graph, dur, 2, () => false)), undefined);
  });

  it('a freed lock goes to its best waiter, not to a lower-ranked step that was ready sooner', async () => {
    // k = 2: `hold` (x/**) and `big` start. When `hold` ends at 10, `next` (needs hold, writes
    // x/**) becomes ready with rank 100 and `filler` (rank 1) has been waiting: the slot is
    // next's, though until hold's end is recorded its lock still looks held.
    const graph = makeGraph([
      { id: 'hold', writes: ['x/**'] },
      { id: 'big' },
      { id: 'filler' },
      { id: 'next', needs: ['hold'], writes: ['x/**'] },
      { id: 'tail', needs: ['next'] },
    ]);
    const dur = new Map([
      ['hold', 10],
      ['big', 100],
      ['filler', 1],
      ['next', 10],
      ['tail', 90],
    ]);
    const o = input(graph, dur, 2);
    assert.equal(lockAwareRanks(o), undefined, 'the critical path is already best here');
    assert.equal(simulatedMakespan(o, criticalPaths(graph, o.weight)), 110);
    assert.equal(
      await simulate(graph, dur, 2, 'critical-path', processLocks()),
      110,
      'next starts at 10, not after filler',
    );
  });
});
