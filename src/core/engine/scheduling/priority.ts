// Remaining critical path of each step, weighted by its expected duration: the scheduler's priority.
import type { Graph, GraphStep } from '../../plan/types';

/** Default expected durations when a step has no history (ms): agents are slow, commands quick. */
export const DEFAULT_WEIGHT_MS: Readonly<Record<GraphStep['kind'], number>> = { prompt: 120_000, run: 5_000 };

/** Longest weighted path from each step to a sink, counting the step itself. */
export function criticalPaths(graph: Graph, weight: (step: GraphStep) => number): Map<string, number> {
  const cp = new Map<string, number>();
  for (let i = graph.order.length - 1; i >= 0; i--) {
    const step = graph.steps.get(graph.order[i]!)!;
    let tail = 0;
    for (const d of step.dependents) tail = Math.max(tail, cp.get(d) ?? 0);
    cp.set(step.id, weight(step) + tail);
  }
  return cp;
}

/** Expected duration: the median of earlier runs, else a default per kind; hop count when asked. */
export function historyWeight(history: ReadonlyMap<string, number>): (step: GraphStep) => number {
  return (step) => history.get(step.id) ?? DEFAULT_WEIGHT_MS[step.kind];
}
