// The weights of the scheduler's priority (plan/graph.ts's criticalPaths): each step's expected duration.
import type { GraphStep } from '../../plan/types';

/** Default expected durations when a step has no history (ms): agents are slow, commands quick. */
export const DEFAULT_WEIGHT_MS: Readonly<Record<GraphStep['kind'], number>> = { prompt: 120_000, run: 5_000 };

/** Expected duration: the median of earlier runs, else a default per kind; hop count when asked. */
export function historyWeight(history: ReadonlyMap<string, number>): (step: GraphStep) => number {
  return (step) => history.get(step.id) ?? DEFAULT_WEIGHT_MS[step.kind];
}
