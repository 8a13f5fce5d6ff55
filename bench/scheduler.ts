// Makespan of Braid's scheduler against sequential, layered waves and FIFO on random DAGs,
// each divided by the lower bound max(critical path, work / k). Simulated clock: ratios only.
import { SimClock } from '../src/core/engine/clock';
import { Scheduler } from '../src/core/engine/scheduler';
import type { AttemptContext, AttemptResult, StepRunner } from '../src/core/engine/types';
import type { Graph, GraphStep } from '../src/core/plan/types';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

/** A random layered-ish DAG: each step needs up to 3 of the ~20 steps before it. */
export function randomDag(n: number, seed: number): { graph: Graph; dur: Map<string, number> } {
  const r = rng(seed);
  const ids = Array.from({ length: n }, (_, i) => `s${i}`);
  const needs = ids.map((_, i) => {
    const out = new Set<string>();
    const m = i === 0 ? 0 : Math.floor(r() * 4);
    for (let j = 0; j < m; j++) out.add(ids[Math.max(0, i - 1 - Math.floor(r() * 20))]!);
    return [...out].sort();
  });
  const dependents = ids.map(() => [] as string[]);
  needs.forEach((ns, i) => ns.forEach((x) => dependents[Number(x.slice(1))]!.push(ids[i]!)));
  const dur = new Map(ids.map((id) => [id, Math.round(1 + Math.exp(r() * 4.6))]));
  const steps = new Map<string, GraphStep>();
  ids.forEach((id, i) => steps.set(id, {
    id, name: id, kind: 'run', run: 'true', needs: needs[i]!, dependents: dependents[i]!, env: {}, writes: [], reads: [],
    isolation: 'shared', copy: [], symlink: [], sparse: [], retries: 0, retryDelayMs: 0, continueOnError: false, if: 'success',
    range: { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } }, depth: 1,
  }));
  return { graph: { plan: { file: 'bench', name: 'bench', version: 1, env: {}, pools: {} }, agents: {}, steps, order: ids }, dur };
}

class SimRunner implements StepRunner {
  constructor(private readonly clock: SimClock, private readonly dur: Map<string, number>) {}
  async execute(ctx: AttemptContext): Promise<AttemptResult> {
    const d = this.dur.get(ctx.step.id)!;
    await this.clock.sleep(d);
    return { status: 'succeeded', exitCode: 0, signal: null, durationMs: d };
  }
}

export async function simulate(graph: Graph, dur: Map<string, number>, k: number, policy: 'critical-path' | 'fifo'): Promise<number> {
  const clock = new SimClock();
  const s = new Scheduler({ graph, runId: 'b', runner: new SimRunner(clock, dur), clock, concurrency: k, policy, weight: (st) => dur.get(st.id)!, outputIntervalMs: 0 });
  await clock.runUntil(s.run());
  return clock.now();
}

export function bounds(graph: Graph, dur: Map<string, number>, k: number): { cp: number; work: number; lower: number; graham: number } {
  const finish = new Map<string, number>();
  for (const id of graph.order) finish.set(id, dur.get(id)! + Math.max(0, ...graph.steps.get(id)!.needs.map((n) => finish.get(n)!)));
  const cp = Math.max(...finish.values());
  const work = [...dur.values()].reduce((a, b) => a + b, 0);
  return { cp, work, lower: Math.max(cp, work / k), graham: work / k + (1 - 1 / k) * cp };
}

/** Layered waves: start a layer, wait for all of it, next layer (greedy slots within a layer). */
export function waves(graph: Graph, dur: Map<string, number>, k: number): number {
  const level = new Map<string, number>();
  for (const id of graph.order) level.set(id, 1 + Math.max(-1, ...graph.steps.get(id)!.needs.map((n) => level.get(n)!)));
  const layers: string[][] = [];
  for (const [id, l] of level) (layers[l] ??= []).push(id);
  let t = 0;
  for (const layer of layers) {
    const slots = new Array<number>(Math.min(k, layer.length)).fill(0);
    for (const id of layer) { let i = 0; for (let j = 1; j < slots.length; j++) if (slots[j]! < slots[i]!) i = j; slots[i]! += dur.get(id)!; }
    t += Math.max(...slots);
  }
  return t;
}
