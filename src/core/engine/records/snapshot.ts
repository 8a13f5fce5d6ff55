// The compiled plan as plain JSON, stored in run.json: a retry, `status` or the panel shows the
// plan as it ran, even after the file has changed.
import type { Graph, GraphStep, PlanInfo } from '../../plan/types';
import type { AgentDef } from '../../agents/agentDef';

/** A Graph without the Map: steps listed in the graph's topological order. */
export interface GraphSnapshot {
  readonly plan: PlanInfo;
  readonly agents: Readonly<Record<string, AgentDef>>;
  readonly steps: readonly GraphStep[];
}

/** The graph as plain JSON data, deep-copied (absent optional fields stay absent). */
export function snapshotGraph(g: Graph): GraphSnapshot {
  if (g.order.length !== g.steps.size)
    throw new Error(`snapshotGraph: order has ${g.order.length} ids, steps ${g.steps.size}`);
  const steps = g.order.map((id) => {
    const s = g.steps.get(id);
    if (!s) throw new Error(`snapshotGraph: order names unknown step ${id}`);
    return s;
  });
  // A JSON round trip, not structuredClone: what is stored is exactly what a reload will see.
  return JSON.parse(JSON.stringify({ plan: g.plan, agents: g.agents, steps })) as GraphSnapshot;
}

/** The Graph back from a snapshot; `order` is the snapshot's step order. */
export function graphFromSnapshot(s: GraphSnapshot): Graph {
  const steps = new Map<string, GraphStep>();
  for (const step of s.steps) {
    if (steps.has(step.id)) throw new Error(`graphFromSnapshot: duplicate step ${step.id}`);
    steps.set(step.id, step);
  }
  return { plan: s.plan, agents: s.agents, steps, order: s.steps.map((step) => step.id) };
}
