// The `graph` message of a plan's panel: the mermaid drawing of its graph, with the shown run's
// statuses, and what the page needs besides (nodes, groups, a key that changes only when a re-layout
// is due). Apart from graphPanel.ts: it is a projection of a graph and a run, no panel state.
import { lockPairs } from '../../core/plan/lockPairs';
import { toMermaid } from '../../core/plan/mermaid';
import type { Graph } from '../../core/plan/types';
import type { StepStatus } from '../../core/status';
import { alternativeId } from '../../core/plan/alternativeStep';
import type { HostMessage } from '../../protocol/webview';
import { alternativeNodes, bestOfSteps } from './graphAlternatives';
import { runHeader } from './runHeader';
import type { RunsModel } from '../runs/runsModel';
import type { RunView } from '../runs/runView';
import { stepTime } from '../runs/treeText';

type GraphMessage = Extract<HostMessage, { type: 'graph' }>;

/**
 * The page's `graph` message for the graph and the shown run (if any), with the matrix groups and
 * best-of steps the user expanded; and the graph's best-of steps, whose alternatives' statuses follow.
 */
export function graphMessage(
  graph: Graph,
  run: RunView | undefined,
  expanded: ReadonlySet<string>,
  runs: RunsModel,
): { message: GraphMessage; bestOf: string[] } {
  const statuses = new Map<string, StepStatus>();
  for (const id of graph.order) statuses.set(id, run?.steps.get(id)?.status ?? 'pending');
  // Every matrix group is one node with its counts until the user expands it.
  const groups = [
    ...new Set(graph.order.map((id) => graph.steps.get(id)!.matrix?.group).filter((g) => g !== undefined)),
  ];
  const collapseGroups = new Set(groups.filter((g) => !expanded.has(g)));
  // Before a run, and while it runs: which steps the write-set locks keep apart.
  const locks = lockPairs(graph);
  // Best-of steps: one node with their alternatives' counts until the user expands them too.
  const bestOf = bestOfSteps(graph);
  const expandedBestOf = new Set(bestOf.filter((id) => expanded.has(id)));
  const { text, nodeIds, clusterIds } = toMermaid(graph, {
    statuses,
    collapseGroups,
    lockPairs: locks,
    slots: true,
    alternatives: { expanded: expandedBestOf, id: alternativeId },
  });
  // What the drawing shows besides statuses: ids, needs, names, agents, groups, lock links.
  // A rename re-lays the graph out; a status change never does.
  const structure =
    graph.order
      .map((id) => {
        const st = graph.steps.get(id)!;
        return `${id}<${st.needs.join(',')}>${st.name}@${st.agent ?? ''}#${st.matrix?.group ?? ''}*${st.bestOf?.alternatives.map((a) => a.agent ?? '').join(',') ?? ''}`;
      })
      .join(';') + locks.map((l) => `|${l.a}~${l.b}`).join('');
  const message: GraphMessage = {
    type: 'graph',
    mermaid: text,
    planName: graph.plan.name,
    structureKey: `${hash([...collapseGroups, '|', ...expandedBestOf].join(','))}:${hash(structure)}`,
    ...(run ? { runId: run.id, run: runHeader(run, runs) } : {}),
    groups: [
      ...groups.map((g) => ({
        group: g,
        collapsed: collapseGroups.has(g),
        ...(clusterIds.has(g) ? { clusterId: clusterIds.get(g)! } : {}),
      })),
      ...bestOf.map((id) => ({
        group: id,
        collapsed: !expandedBestOf.has(id),
        alternatives: true,
        ...(clusterIds.has(id) ? { clusterId: clusterIds.get(id)! } : {}),
      })),
    ],
    nodes: graph.order.flatMap((id) => {
      const s = graph.steps.get(id)!;
      const view = run?.steps.get(id);
      const time = view ? stepTime(view) : undefined;
      // A best-of step is the group of its alternatives, whose nodes follow it.
      const group = s.matrix?.group ?? (s.bestOf && !s.matrix ? s.id : undefined);
      const node = {
        stepId: id,
        nodeId: nodeIds.get(id)!,
        name: s.name,
        status: statuses.get(id)!,
        ...(s.agent ? { agent: s.agent } : {}),
        ...(group !== undefined ? { group } : {}),
        ...(time ? { time } : {}),
      };
      return s.bestOf && !s.matrix ? [node, ...alternativeNodes(s, view, nodeIds)] : [node];
    }),
  };
  return { message, bestOf };
}

function hash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36) + s.length.toString(36);
}
