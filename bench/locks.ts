// Part 6: write-set locks on random DAGs (simulated clock). Each step writes about one of a few
// regions (`rN/**`). Braid's Scheduler with a processLocks() gate skips ahead past steps whose
// lock is busy; a head-of-line FIFO queue waits while its head's lock is busy. Both ÷ the
// lock-aware lower bound max(CP, W/k, the largest total work of one region).
import { processLocks } from '../src/core/engine/locks/lockGate';
import type { Graph } from '../src/core/plan/types';
import { bounds, randomDag, simulate } from './scheduler';
import { envInt, envList, fixed, goal, median, medP90, table } from './stats';

/** About one region a step: 10% none, 80% one, 10% two (`rN/**`, disjoint for different N). */
function writesOf(regions: number): (id: string, r: () => number) => string[] {
  return (_id, r) => {
    const x = r();
    const pick = () => `r${Math.floor(r() * regions)}/**`;
    if (x < 0.1) return [];
    if (x < 0.9) return [pick()];
    return [...new Set([pick(), pick()])];
  };
}

/**
 * A FIFO ready queue that only ever starts its head: when the head's region is held, nothing
 * starts until a release, even with idle slots and other ready steps whose regions are free.
 */
export function headOfLine(graph: Graph, dur: ReadonlyMap<string, number>, k: number): number {
  const remaining = new Map(graph.order.map((id) => [id, graph.steps.get(id)!.needs.length]));
  const queue = graph.order.filter((id) => remaining.get(id) === 0);
  const held = new Set<string>();
  let running: Array<{ id: string; end: number }> = [];
  let t = 0,
    done = 0;
  while (done < graph.order.length) {
    while (running.length < k && queue.length > 0) {
      const head = graph.steps.get(queue[0]!)!;
      if (head.writes.some((w) => held.has(w))) break;
      queue.shift();
      head.writes.forEach((w) => held.add(w));
      running.push({ id: head.id, end: t + dur.get(head.id)! });
    }
    if (running.length === 0) throw new Error('head-of-line simulation stalled');
    t = Math.min(...running.map((x) => x.end));
    const ended = running
      .filter((x) => x.end === t)
      .sort((a, b) => graph.order.indexOf(a.id) - graph.order.indexOf(b.id));
    running = running.filter((x) => x.end !== t);
    for (const { id } of ended) {
      done++;
      graph.steps.get(id)!.writes.forEach((w) => held.delete(w));
      for (const d of graph.steps.get(id)!.dependents) {
        const left = remaining.get(d)! - 1;
        remaining.set(d, left);
        if (left === 0) queue.push(d);
      }
    }
  }
  return t;
}

/** Lock-aware bounds: one region's steps run one at a time; at most `regions` locked steps at once. */
function regionBound(graph: Graph, dur: ReadonlyMap<string, number>, regions: number): number {
  const work = new Map<string, number>();
  let locked = 0;
  for (const id of graph.order) {
    const writes = graph.steps.get(id)!.writes;
    if (writes.length > 0) locked += dur.get(id)!;
    for (const w of writes) work.set(w, (work.get(w) ?? 0) + dur.get(id)!);
  }
  return Math.max(locked / regions, ...work.values());
}

export async function benchLocks(): Promise<void> {
  const sizes = envList('BRAID_BENCH_LOCK_SIZES', [50, 500]);
  const seeds = envInt('BRAID_BENCH_SEEDS', 30);
  const regionCounts = envList('BRAID_BENCH_REGIONS', [4, 6, 8]);
  console.log(
    `\n### Write-set locks on random DAGs (simulated clock, ${regionCounts.join(', ')} regions, each step writing ~1 of them)\n`,
  );
  console.log(
    'makespan ÷ the lock-aware lower bound max(CP, W/k, most work in one region, locked work ÷ regions), median (p90) over the seeds;',
  );
  console.log(
    '"fifo skip-ahead" is the Scheduler in ready order with the same locks. Goals at k = 4: braid median ≤ 1.10, head-of-line ÷ braid ≥ 1.2×.\n',
  );
  const rows: string[][] = [];
  for (const regions of regionCounts)
    for (const n of sizes) {
      for (const k of [2, 4, 8]) {
        const r = { braid: [] as number[], fifo: [] as number[], hol: [] as number[], gain: [] as number[] };
        for (let seed = 1; seed <= seeds; seed++) {
          const { graph, dur } = randomDag(n, seed * 6151 + n, { writes: writesOf(regions) });
          const lower = Math.max(bounds(graph, dur, k).lower, regionBound(graph, dur, regions));
          const mb = await simulate(graph, dur, k, 'critical-path', processLocks());
          const mf = await simulate(graph, dur, k, 'fifo', processLocks());
          const mh = headOfLine(graph, dur, k);
          r.braid.push(mb / lower);
          r.fifo.push(mf / lower);
          r.hol.push(mh / lower);
          r.gain.push(mh / mb);
        }
        const atGoal = k === 4;
        const mb = median(r.braid),
          gain = median(r.gain);
        rows.push([
          String(regions),
          String(n),
          String(k),
          atGoal ? goal(medP90(r.braid), mb <= 1.1, 'median ≤ 1.10') : medP90(r.braid),
          medP90(r.fifo),
          medP90(r.hol),
          atGoal ? goal(`${fixed(gain, 2)}×`, gain >= 1.2, '≥ 1.2×') : `${fixed(gain, 2)}×`,
        ]);
      }
    }
  table(
    ['regions', 'steps', 'k', 'braid (skip-ahead)', 'fifo skip-ahead', 'head-of-line fifo', 'head-of-line ÷ braid'],
    rows,
  );
}
