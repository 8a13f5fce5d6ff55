// Part 1: makespan on random DAGs (simulated clock) of Braid's critical-path Scheduler against
// sequential, layered waves and a FIFO ready queue, each ÷ the lower bound max(CP, W/k).
import { bounds, randomDag, simulate, waves } from './scheduler';
import { envInt, envList, fixed, goal, median, medP90, quantile, table } from './stats';

const KS = [2, 4, 8, Infinity] as const;

export async function benchMakespan(): Promise<void> {
  const sizes = envList('BRAID_BENCH_SIZES', [50, 500, 5000]);
  const seeds = envInt('BRAID_BENCH_SEEDS', 30);
  // A knob to take fewer seeds at 2,000 steps and up (each simulated run there takes ~0.1 s).
  const seedsLarge = envInt('BRAID_BENCH_SEEDS_LARGE', 30);
  console.log('\n### Makespan on random DAGs (simulated clock)\n');
  console.log(
    'makespan ÷ lower bound max(CP, W/k), median (p90) over the seeds; "vs waves" is the median of waves ÷ braid per seed;',
  );
  console.log(
    '"÷ Graham" is the largest braid ÷ (W/k + (1 − 1/k)·CP) over the seeds. Goals: k = ∞ ≤ 1.01 × CP; k = 2, 4, 8 median ≤ 1.02, p90 ≤ 1.10, ≥ 1.3 × faster than waves.',
  );
  console.log(
    'No schedule finishes before the lower bound, so none can be more than (waves ÷ bound) × faster than waves: where the waves column is under 1.3, so is every scheduler.\n',
  );
  const rows: string[][] = [];
  for (const n of sizes) {
    const cellSeeds = n >= 2000 ? Math.min(seeds, seedsLarge) : seeds;
    for (const k of KS) {
      const r = {
        braid: [] as number[],
        fifo: [] as number[],
        waves: [] as number[],
        seq: [] as number[],
        speed: [] as number[],
        graham: [] as number[],
      };
      for (let seed = 1; seed <= cellSeeds; seed++) {
        const { graph, dur } = randomDag(n, seed * 7919 + n);
        const kk = k === Infinity ? n : k;
        const b = bounds(graph, dur, kk);
        const mb = await simulate(graph, dur, kk, 'critical-path');
        const mf = await simulate(graph, dur, kk, 'fifo');
        const mw = waves(graph, dur, kk);
        r.braid.push(mb / b.lower);
        r.fifo.push(mf / b.lower);
        r.waves.push(mw / b.lower);
        r.seq.push(b.work / b.lower);
        r.speed.push(mw / mb);
        r.graham.push(mb / b.graham);
      }
      const unlimited = k === Infinity;
      const okBraid = unlimited
        ? quantile(r.braid, 1) <= 1.01
        : median(r.braid) <= 1.02 && quantile(r.braid, 0.9) <= 1.1;
      const speed = median(r.speed);
      // No schedule beats the lower bound, so none is more than waves ÷ bound faster than waves.
      const ceiling = median(r.waves);
      rows.push([
        String(n),
        unlimited ? '∞' : String(k),
        String(cellSeeds),
        goal(medP90(r.braid), okBraid, unlimited ? 'max ≤ 1.01' : '≤ 1.02 (≤ 1.10)'),
        medP90(r.fifo),
        medP90(r.waves),
        medP90(r.seq),
        goal(
          `${fixed(speed, 2)}×`,
          speed >= 1.3,
          ceiling < 1.3 ? `≥ 1.3×; no schedule could pass ${fixed(ceiling, 2)}×` : '≥ 1.3×',
        ),
        goal(fixed(Math.max(...r.graham)), Math.max(...r.graham) <= 1 + 1e-9, '≤ 1'),
      ]);
    }
  }
  table(['steps', 'k', 'seeds', 'braid', 'fifo', 'waves', 'sequential', 'braid vs waves', 'max ÷ Graham'], rows);
}
