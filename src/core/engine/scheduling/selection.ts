// Which steps a run executes (`--only`, `--from`, `retry`), and what the rest keep.
import type { Graph } from '../../plan/types';
import { rerunByRetry, type StepStatus } from '../../status';

/** The steps named and everything they need, transitively. */
export function withNeeds(graph: Graph, ids: Iterable<string>): Set<string> {
  return closure(graph, ids, 'needs');
}

/** The steps named and everything that depends on them, transitively. */
export function withDependents(graph: Graph, ids: Iterable<string>): Set<string> {
  return closure(graph, ids, 'dependents');
}

function closure(graph: Graph, ids: Iterable<string>, edge: 'needs' | 'dependents'): Set<string> {
  const out = new Set<string>();
  const stack = [...ids];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    stack.push(...graph.steps.get(id)![edge]);
  }
  return out;
}

/**
 * Steps a retry re-runs: the named ones (or every step that did not succeed) and what they block.
 * Steps of the plan that the earlier run never had also run.
 */
export function retrySet(
  graph: Graph,
  previous: ReadonlyMap<string, StepStatus>,
  named?: readonly string[],
): Set<string> {
  const seeds =
    named && named.length > 0
      ? named
      : graph.order.filter((id) => !previous.has(id) || rerunByRetry(previous.get(id)!));
  return withDependents(graph, seeds);
}

export interface Selection {
  readonly only?: readonly string[];
  readonly from?: string;
  /** A retry: the earlier run's statuses, and the steps named (none: every one that did not succeed). */
  readonly retry?: { readonly previous: ReadonlyMap<string, StepStatus>; readonly steps?: readonly string[] };
}

/** The steps a run executes: a retry's set, else `only` with its needs, else `from` with its dependents, else all. Ids must be known. */
export function selectSteps(graph: Graph, s: Selection): Set<string> {
  if (s.retry) return retrySet(graph, s.retry.previous, s.retry.steps);
  if (s.only && s.only.length > 0) return withNeeds(graph, s.only);
  if (s.from) return withDependents(graph, [s.from]);
  return new Set(graph.order);
}

/** Unknown ids among `ids`, for a usage error. */
export function unknownSteps(graph: Graph, ids: readonly string[]): string[] {
  return ids.filter((id) => !graph.steps.has(id));
}
