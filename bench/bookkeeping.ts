// Part 2: the Scheduler's own cost a step: a runner that succeeds at once, so the whole run is
// bookkeeping (ready set, priorities, p-queue, states, events). Total time ÷ steps.
import { Scheduler } from '../src/core/engine/scheduler';
import type { AttemptResult, StepRunner } from '../src/core/engine/types';
import { randomDag } from './scheduler';
import { envInt, envList, goal, median, table, us } from './stats';

const instant: StepRunner = {
  execute: async (): Promise<AttemptResult> => ({ status: 'succeeded', exitCode: 0, signal: null, durationMs: 0 }),
};

async function perStepUs(n: number, k: number): Promise<number> {
  const { graph, dur } = randomDag(n, 4242 + n);
  const s = new Scheduler({ graph, runId: 'bk', runner: instant, concurrency: k, weight: (st) => dur.get(st.id)!, outputIntervalMs: 0 });
  const t = performance.now();
  const r = await s.run();
  const elapsed = performance.now() - t;
  if (r.status !== 'succeeded') throw new Error(`bookkeeping run ended ${r.status}`);
  return (elapsed * 1000) / n;
}

export async function benchBookkeeping(): Promise<void> {
  const sizes = envList('BRAID_BENCH_BOOK_SIZES', [1000, 10000]);
  const runs = envInt('BRAID_BENCH_BOOK_RUNS', 1);
  const k = 4;
  console.log(`\n### Scheduler bookkeeping a step (instant fake runner, k = ${k}, median of ${runs} run${runs > 1 ? 's' : ''} a size)\n`);
  console.log('The smaller size shows how the cost grows; the goal is at 10,000 steps.\n');
  await perStepUs(500, k); // warm up the JIT
  const rows: string[][] = [];
  for (const n of sizes) {
    const xs: number[] = [];
    for (let i = 0; i < runs; i++) xs.push(await perStepUs(n, k));
    const m = median(xs);
    rows.push([n.toLocaleString('en-US'), us(m), `${((m * n) / 1e6).toFixed(2)} s`, n === 10000 ? goal(us(m), m <= 10, '≤ 10 µs') : '']);
  }
  table(['steps', 'per step', 'whole run', 'goal'], rows);
}
