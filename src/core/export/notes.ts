// What a plan asks for that GitHub Actions has no word for, said once at the top of the workflow
// and on stderr, beside how closely it is mapped.
import { posix } from 'node:path';
import type { Graph } from '../plan/types';

/** The review gate's environment: its required reviewers approve each job of a `review: true` step. */
export const REVIEW_ENVIRONMENT = 'braid-review';

/**
 * Why the workflow cannot start an agent it does not install: a command by a path outside the
 * repository (absolute, or climbing out with `..`) is not on the runner at all; a bare name must
 * be put on the runner's PATH; a path inside the repository is in the checkout (undefined: no note).
 */
export function uninstalledAgentNote(stepId: string, agentName: string, exe: string): string | undefined {
  if (posix.isAbsolute(exe) || /^[A-Za-z]:[\\/]/.test(exe)) {
    return `${stepId}: agent ${agentName}'s command ${exe} points outside the repository (a path on this machine): the runner's checkout has no such file; put it in the repository and name it by a relative path, or install it in a setup`;
  }
  if (exe.includes('/')) {
    return posix.normalize(exe).startsWith('../')
      ? `${stepId}: agent ${agentName}'s command ${exe} points outside the repository: the runner's checkout has no such file; put it in the repository, or install it in a setup`
      : undefined;
  }
  return `${stepId}: agent ${agentName} (${exe}) is not installed by the workflow: make it available on the runner`;
}

/** The note a plan with `review: true` steps gets: where the gate is, and that it comes before the job. */
export function reviewNote(ids: readonly string[]): string | undefined {
  if (ids.length === 0) return undefined;
  return (
    `review: true (${ids.join(', ')}) is GitHub's environment gate: each such job runs in the environment ${REVIEW_ENVIRONMENT} and waits for its required reviewers, ` +
    'who approve before the job runs, not after its change (the change is reviewed again on the pull request)'
  );
}

/** Plan-wide settings without a counterpart. */
export function planNotes(graph: Graph): string[] {
  const notes: string[] = [];
  const { plan } = graph;
  if (plan.concurrency !== undefined) {
    notes.push(
      `concurrency: ${plan.concurrency} (the plan's cap on steps at once) has no workflow-wide counterpart: ` +
        `every ready job starts; a matrix job runs at most ${plan.concurrency} of its steps at once (strategy.max-parallel)`,
    );
  }
  const pools = Object.entries(plan.pools);
  if (pools.length > 0) {
    notes.push(
      `pools (${pools.map(([k, v]) => `${k}: ${v}`).join(', ')}) have no counterpart: ` +
        "a matrix job of a pool's steps runs at most its cap at once (strategy.max-parallel); separate jobs share no cap",
    );
  }
  if (plan.maxCostUsd !== undefined) {
    notes.push(
      `max-cost-usd: ${plan.maxCostUsd} (the run's budget) has no counterpart: nothing stops the run when agents have spent it ` +
        '(a claude step with its own max-cost-usd gets --max-budget-usd)',
    );
  }
  const review = reviewNote(graph.order.filter((id) => graph.steps.get(id)!.review));
  if (review) notes.push(review);
  if (plan.base !== undefined)
    notes.push(`base: ${plan.base} is not mapped: every job starts from the commit the workflow runs on`);
  for (const id of graph.order) {
    const b = graph.steps.get(id)!.bestOf;
    if (b)
      notes.push(
        `${id}: best-of ${b.alternatives.length} (pick ${b.pick}) has no counterpart: the job runs the step once, as its first alternative would without its own agent, model, prompt or env`,
      );
  }
  return notes;
}
