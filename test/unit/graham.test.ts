// Braid's dispatch is a list schedule (no slot idles while a step is ready), so on any DAG its
// makespan is within Graham's bound W/k + (1 − 1/k)·CP, and with a slot for every step it is the
// critical path exactly. Simulated clock: durations are exact, nothing depends on wall time.
import { strict as assert } from 'node:assert';
import { bounds, randomDag, simulate } from '../../bench/scheduler';

const EPS = 1e-9;

// Shapes: the bench's (up to 3 needs among the 20 before), narrow and deep, wide and shallow.
const SHAPES = [
  { name: 'bench', maxNeeds: 3, window: 20 },
  { name: 'deep', maxNeeds: 2, window: 3 },
  { name: 'wide', maxNeeds: 1, window: 80 },
] as const;

const cases: Array<{ label: string; n: number; seed: number; shape: (typeof SHAPES)[number] }> = [];
for (const shape of SHAPES) {
  for (let i = 0; i < 12; i++) {
    const n = 10 + ((i * 37) % 140);
    cases.push({ label: `${shape.name}, ${n} steps, seed ${i + 1}`, n, seed: 1000 + i * 31 + shape.maxNeeds, shape });
  }
}

describe("Graham's bound on random DAGs (simulated clock)", function () {
  this.timeout(120_000);

  for (const c of cases) {
    it(`${c.label}: makespan ≤ W/k + (1 − 1/k)·CP for k = 1, 2, 4, 8, and = CP unlimited`, async () => {
      const { graph, dur } = randomDag(c.n, c.seed, { maxNeeds: c.shape.maxNeeds, window: c.shape.window });
      for (const k of [1, 2, 4, 8]) {
        const b = bounds(graph, dur, k);
        for (const policy of ['critical-path', 'fifo'] as const) {
          const m = await simulate(graph, dur, k, policy);
          assert.ok(
            m <= b.graham + EPS,
            `${policy}, k = ${k}: makespan ${m} > Graham ${b.graham} (W ${b.work}, CP ${b.cp})`,
          );
          assert.ok(m >= b.lower - EPS, `${policy}, k = ${k}: makespan ${m} below the lower bound ${b.lower}`);
        }
        // One slot runs everything back to back: exactly the total work.
        if (k === 1) assert.equal(await simulate(graph, dur, 1, 'critical-path'), b.work);
      }
      const unlimited = bounds(graph, dur, c.n);
      assert.equal(await simulate(graph, dur, c.n, 'critical-path'), unlimited.cp);
    });
  }
});
