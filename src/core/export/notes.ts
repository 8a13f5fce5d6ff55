// What a plan asks for that GitHub Actions has no word for, said once at the top of the workflow
// and on stderr, beside how closely it is mapped.
import type { Graph } from '../plan/types';

/** Plan-wide settings without a counterpart. */
export function planNotes(graph: Graph): string[] {
  const notes: string[] = [];
  const { plan } = graph;
  if (plan.concurrency !== undefined) {
    notes.push(`concurrency: ${plan.concurrency} (the plan's cap on steps at once) has no workflow-wide counterpart: `
      + `every ready job starts; a matrix job runs at most ${plan.concurrency} of its steps at once (strategy.max-parallel)`);
  }
  const pools = Object.entries(plan.pools);
  if (pools.length > 0) {
    notes.push(`pools (${pools.map(([k, v]) => `${k}: ${v}`).join(', ')}) have no counterpart: `
      + 'a matrix job of a pool\'s steps runs at most its cap at once (strategy.max-parallel); separate jobs share no cap');
  }
  if (plan.maxCostUsd !== undefined) {
    notes.push(`max-cost-usd: ${plan.maxCostUsd} (the run's budget) has no counterpart: nothing stops the run when agents have spent it `
      + '(a claude step with its own max-cost-usd gets --max-budget-usd)');
  }
  if (plan.base !== undefined) notes.push(`base: ${plan.base} is not mapped: every job starts from the commit the workflow runs on`);
  for (const id of graph.order) {
    const b = graph.steps.get(id)!.bestOf;
    if (b) notes.push(`${id}: best-of ${b.alternatives.length} (pick ${b.pick}) has no counterpart: the job runs the step once, as its first alternative would without its own agent, model, prompt or env`);
  }
  return notes;
}
