// A best-of step's alternatives on the graph panel: their nodes (drawn in the step's node while it
// is collapsed, in a subgraph beside it once expanded; plan/mermaid.ts) and their statuses, a
// projection of the runs model's step (its `alternatives` as they race, and the winner).
import { alternativeId } from '../../core/plan/alternativeStep';
import type { Graph, GraphStep } from '../../core/plan/types';
import { STEP_STATUSES, type StepStatus } from '../../core/status';
import type { GraphNode, StatusUpdate, WebviewAction } from '../../protocol/webview';
import { Command } from '../common/commandIds';
import { nodeUpdate } from './graphNodes';
import { awaitsPick, pickable } from '../runs/pickText';
import type { StepView } from '../runs/runView';
import { alternativeFacts } from '../runs/treeText';

const asStatus = (s: string | undefined): StepStatus =>
  s !== undefined && (STEP_STATUSES as readonly string[]).includes(s) ? (s as StepStatus) : 'pending';

/** The best-of steps the panel draws with their alternatives (a matrix instance's are not: it is drawn in its group). */
export function bestOfSteps(graph: Graph): string[] {
  return graph.order.filter((id) => {
    const s = graph.steps.get(id)!;
    return s.bestOf !== undefined && s.matrix === undefined;
  });
}

/** `fix.alt2` → `{ stepId: 'fix', index: 2 }` when the graph has that alternative drawn; else undefined. */
export function alternativeOf(graph: Graph | undefined, id: string): { stepId: string; index: number } | undefined {
  const m = /^(.+)\.alt(\d{1,2})$/.exec(id);
  const step = m ? graph?.steps.get(m[1]!) : undefined;
  if (!m || !step?.bestOf || step.matrix) return undefined;
  const index = Number(m[2]);
  return step.bestOf.alternatives.some((a) => a.index === index) ? { stepId: step.id, index } : undefined;
}

/** The nodes of a best-of step's alternatives, with their statuses in the run shown (pending before one). */
export function alternativeNodes(
  step: GraphStep,
  view: StepView | undefined,
  nodeIds: ReadonlyMap<string, string>,
): GraphNode[] {
  return (step.bestOf?.alternatives ?? []).map((a) => {
    const id = alternativeId(step.id, a.index);
    const agent = step.kind === 'prompt' ? (a.agent ?? step.agent) : undefined;
    return {
      stepId: id,
      nodeId: nodeIds.get(id)!,
      name: `${step.name} · alternative ${a.index}`,
      group: step.id,
      alternative: a.index,
      status: asStatus(view?.alternatives?.find((x) => x.index === a.index)?.status),
      ...(agent !== undefined ? { agent } : {}),
      ...(view?.winner === a.index ? { won: true } : {}),
    };
  });
}

/** Each alternative's status update: its status, how it stands in one line, whether it won or may be picked. */
export function alternativeUpdates(view: StepView): StatusUpdate[] {
  return (view.alternatives ?? []).map((a) => {
    // The node shows its status (and ★ when it won) itself: its detail says the rest.
    const detail = alternativeFacts(view, a.index).join(' · ');
    return {
      stepId: alternativeId(view.id, a.index),
      status: asStatus(a.status),
      ...(a.attempts > 0 ? { attempt: Math.min(a.attempts, 10_000) } : {}),
      ...(detail ? { detail: detail.slice(0, 4096) } : {}),
      won: view.winner === a.index,
      pick: pickable(view, a),
    };
  });
}

/** A step's node update, and a best-of step's alternatives' (the step offers the pick once its race waits for it). */
export function stepUpdates(view: StepView): StatusUpdate[] {
  const own = nodeUpdate(view);
  if (!view.alternatives) return [own];
  return [{ ...own, pick: awaitsPick(view) }, ...alternativeUpdates(view)];
}

/**
 * What a page's button on a best-of step or one of its alternatives runs: an alternative offers its
 * change and the pick, the step the pick (the list of its passed ones); `drop` for anything else
 * asked of an alternative (or a pick of no best-of step); undefined: not a best-of matter.
 */
export function bestOfAction(
  graph: Graph | undefined,
  runId: string | undefined,
  action: WebviewAction,
  stepId: string | undefined,
):
  | { command: typeof Command.openAlternativeChanges | typeof Command.pickAlternative; args: [string, string, number?] }
  | 'drop'
  | undefined {
  const alt = stepId !== undefined ? alternativeOf(graph, stepId) : undefined;
  if (action === 'pick' && !alt && runId && stepId !== undefined && graph?.steps.get(stepId)?.bestOf)
    return { command: Command.pickAlternative, args: [runId, stepId] };
  if (!alt && action !== 'pick') return undefined;
  if (!alt || !runId) return 'drop';
  if (action === 'review-changes')
    return { command: Command.openAlternativeChanges, args: [runId, alt.stepId, alt.index] };
  if (action === 'pick') return { command: Command.pickAlternative, args: [runId, alt.stepId, alt.index] };
  return 'drop';
}
