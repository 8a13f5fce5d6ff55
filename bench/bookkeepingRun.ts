// The bookkeeping measurement itself, shared by the bundled child (the code as shipped) and the
// in-process run under tsx: a runner that succeeds at once, so the whole run is the Scheduler's
// own work (ready set, priorities, slots, states, events). Total time ÷ steps.
import { Scheduler } from '../src/core/engine/scheduling/scheduler';
import type { AttemptResult, StepRunner } from '../src/core/engine/types';
import { randomDag } from './scheduler';
import { median } from './stats';

const instant: StepRunner = {
  execute: async (): Promise<AttemptResult> => ({ status: 'succeeded', exitCode: 0, signal: null, durationMs: 0 }),
};

async function perStepUs(n: number, k: number): Promise<number> {
  const { graph, dur } = randomDag(n, 4242 + n);
  const s = new Scheduler({
    graph,
    runId: 'bk',
    runner: instant,
    concurrency: k,
    weight: (st) => dur.get(st.id)!,
    outputIntervalMs: 0,
  });
  const t = performance.now();
  const r = await s.run();
  const elapsed = performance.now() - t;
  if (r.status !== 'succeeded') throw new Error(`bookkeeping run ended ${r.status}`);
  return (elapsed * 1000) / n;
}

/** Median µs a step at each size, after a JIT warm-up (a single 500-step run left the 1,000-step
 * figure still mostly compiling). */
export async function measureBookkeeping(sizes: readonly number[], runs: number, k: number): Promise<number[]> {
  for (let i = 0; i < 3; i++) await perStepUs(1000, k);
  const out: number[] = [];
  for (const n of sizes) {
    const xs: number[] = [];
    for (let i = 0; i < runs; i++) xs.push(await perStepUs(n, k));
    out.push(median(xs));
  }
  return out;
}
