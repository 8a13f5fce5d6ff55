// Random DAGs and the policies Braid is measured against: the real Scheduler on a simulated clock
// (critical-path or FIFO order), layered waves, and the lower and Graham bounds.
import { SimClock } from '../src/core/engine/scheduling/clock';
import { Scheduler } from '../src/core/engine/scheduling/scheduler';
import type { LockGate } from '../src/core/engine/scheduling/schedulerOptions';
import type { AttemptContext, AttemptResult, StepRunner } from '../src/core/engine/types';
import type { Graph, GraphStep } from '../src/core/plan/types';
import { rng } from './stats';

export interface DagOptions {
  /** Each step needs up to this many (0..maxNeeds, uniform) of the `window` steps before it. */
  readonly maxNeeds?: number;
  readonly window?: number;
  /** The step's `run` command; `true` by default. */
  readonly run?: (id: string, durationMs: number) => string;
  /** The step's write set (lock benches). */
  readonly writes?: (id: string, r: () => number) => string[];
}

/** A random DAG: each step needs up to 3 of the ~20 steps before it; durations 2–100, long-tailed. */
export function randomDag(n: number, seed: number, o: DagOptions = {}): { graph: Graph; dur: Map<string, number> } {
  const r = rng(seed);
  const maxNeeds = o.maxNeeds ?? 3,
    window = o.window ?? 20;
  const ids = Array.from({ length: n }, (_, i) => `s${i}`);
  const needs = ids.map((_, i) => {
    const out = new Set<string>();
    const m = i === 0 ? 0 : Math.floor(r() * (maxNeeds + 1));
    for (let j = 0; j < m; j++) out.add(ids[Math.max(0, i - 1 - Math.floor(r() * window))]!);
    return [...out].sort();
  });
  const dependents = ids.map(() => [] as string[]);
  needs.forEach((ns, i) => ns.forEach((x) => dependents[Number(x.slice(1))]!.push(ids[i]!)));
  const dur = new Map(ids.map((id) => [id, Math.round(1 + Math.exp(r() * 4.6))]));
  const steps = new Map<string, GraphStep>();
  ids.forEach((id, i) =>
    steps.set(id, {
      id,
      name: id,
      kind: 'run',
      run: o.run?.(id, dur.get(id)!) ?? 'true',
      needs: needs[i]!,
      dependents: dependents[i]!,
      env: {},
      writes: o.writes?.(id, r) ?? [],
      reads: [],
      isolation: 'shared',
      copy: [],
      symlink: [],
      sparse: [],
      retries: 0,
      retryDelayMs: 0,
      continueOnError: false,
      review: false,
      if: 'success',
      range: { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } },
      depth: 1,
    }),
  );
  return {
    graph: { plan: { file: 'bench', name: 'bench', version: 1, env: {}, pools: {} }, agents: {}, steps, order: ids },
    dur,
  };
}

/** Sleeps each step's duration on the simulated clock. */
export class SimRunner implements StepRunner {
  constructor(
    private readonly clock: SimClock,
    private readonly dur: ReadonlyMap<string, number>,
  ) {}
  async execute(ctx: AttemptContext): Promise<AttemptResult> {
    const d = this.dur.get(ctx.step.id)!;
    await this.clock.sleep(d);
    return { status: 'succeeded', exitCode: 0, signal: null, durationMs: d };
  }
}

/** Braid's Scheduler on a simulated clock; returns the makespan. */
export async function simulate(
  graph: Graph,
  dur: ReadonlyMap<string, number>,
  k: number,
  policy: 'critical-path' | 'fifo',
  locks?: LockGate,
): Promise<number> {
  const clock = new SimClock();
  const s = new Scheduler({
    graph,
    runId: 'b',
    runner: new SimRunner(clock, dur),
    clock,
    concurrency: k,
    policy,
    weight: (st) => dur.get(st.id)!,
    outputIntervalMs: 0,
    ...(locks ? { locks } : {}),
  });
  const r = await clock.runUntil(s.run());
  if (r.status !== 'succeeded') throw new Error(`bench run ended ${r.status}`);
  return clock.now();
}

/** Critical path, total work, the lower bound max(CP, W/k) and Graham's bound W/k + (1 − 1/k)·CP. */
export function bounds(
  graph: Graph,
  dur: ReadonlyMap<string, number>,
  k: number,
): { cp: number; work: number; lower: number; graham: number } {
  const finish = new Map<string, number>();
  for (const id of graph.order)
    finish.set(id, dur.get(id)! + Math.max(0, ...graph.steps.get(id)!.needs.map((n) => finish.get(n)!)));
  const cp = Math.max(...finish.values());
  const work = [...dur.values()].reduce((a, b) => a + b, 0);
  return { cp, work, lower: Math.max(cp, work / k), graham: work / k + (1 - 1 / k) * cp };
}

/** The seed's layers: a step's layer is one more than its deepest need's. */
export function layers(graph: Graph): string[][] {
  const level = new Map<string, number>();
  for (const id of graph.order)
    level.set(id, 1 + Math.max(-1, ...graph.steps.get(id)!.needs.map((n) => level.get(n)!)));
  const out: string[][] = [];
  for (const [id, l] of level) (out[l] ??= []).push(id);
  return out;
}

/** Layered waves: start a layer, wait for all of it, next layer (greedy slots within a layer). */
export function waves(graph: Graph, dur: ReadonlyMap<string, number>, k: number): number {
  let t = 0;
  for (const layer of layers(graph)) {
    const slots = new Array<number>(Math.min(k, layer.length)).fill(0);
    for (const id of layer) {
      let i = 0;
      for (let j = 1; j < slots.length; j++) if (slots[j]! < slots[i]!) i = j;
      slots[i]! += dur.get(id)!;
    }
    t += Math.max(...slots);
  }
  return t;
}
