// A step's `if:` once its needs are finished: whether it runs, or why it is skipped.
import type { Graph, GraphStep } from '../../plan/types';
import type { StepStatus } from '../types';

/** The ends that fail a run unless the step may `continue-on-error`. */
export const FAILED: ReadonlySet<StepStatus> = new Set(['failed', 'conflict', 'canceled', 'interrupted']);

/** Why a step whose needs are all finished is skipped; undefined when it runs. */
export function skipReason(g: Graph, step: GraphStep, status: (id: string) => StepStatus): string | undefined {
  if (step.if === 'always') return undefined;
  if (step.if === 'failure') return anyAncestorFailed(g, step, status) ? undefined : 'nothing it needs failed';
  for (const n of step.needs) {
    const s = status(n);
    if (s === 'succeeded') continue;
    if (FAILED.has(s) && g.steps.get(n)!.continueOnError && s !== 'canceled') continue;
    return `${n} ${s}`;
  }
  return undefined;
}

function anyAncestorFailed(g: Graph, step: GraphStep, status: (id: string) => StepStatus): boolean {
  const seen = new Set<string>();
  const stack = [...step.needs];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const s = status(id);
    if (s === 'failed' || s === 'conflict') return true;
    stack.push(...g.steps.get(id)!.needs);
  }
  return false;
}
