// The DAG as mermaid flowchart text. Pure, so it is snapshot-tested here and only rendered in
// the webview. Node ids are ours (`n0…`), never user text, and every label is entity-encoded,
// so no step name can change the diagram's structure or inject markup or directives.
import type { StepStatus } from '../status';
import { ATTENTION, STEP_STATUSES } from '../status';
import type { Graph, GraphStep } from './types';

export interface MermaidOptions {
  /** Current statuses by step id; adds `class` lines (the classDefs are always there). */
  readonly statuses?: ReadonlyMap<string, StepStatus>;
  /** Draw each matrix group as one node. */
  readonly collapseMatrix?: boolean;
  /** Draw these matrix groups (by group id) as one node each; the others as a subgraph of their instances. */
  readonly collapseGroups?: ReadonlySet<string>;
  /** Steps the locks keep apart (lockPairs.ts): drawn as dotted, undirected `lock` links. */
  readonly lockPairs?: readonly { readonly a: string; readonly b: string }[];
  /**
   * Empty, fixed-size places in each step's label for its status icon and its time (the graph
   * panel fills them as statuses change; their size is laid out once, so a change never re-lays).
   */
  readonly slots?: boolean;
  /**
   * Draw best-of steps (not matrix instances) with their alternatives: one node with the
   * alternatives' counts, or (the steps in `expanded`) a subgraph of the alternatives racing into
   * the step's own node. `id` names an alternative (the engine's `<step>.alt<i>`); each is in
   * `nodeIds` (a collapsed step's alternatives share its node, as a collapsed group's instances do).
   */
  readonly alternatives?: {
    readonly expanded: ReadonlySet<string>;
    readonly id: (stepId: string, index: number) => string;
  };
}

/** The status icon's place, before the name. */
export const STATUS_SLOT = "<span class='braid-status'></span>";
/** The time's place, on a line of its own under the name. */
export const TIME_SLOT = "<span class='braid-time'></span>";
/**
 * A collapsed group's counts (`7/10 ✓ · 2 ▶ · 1 ✗`), under its name: wide enough for the group's
 * size (`d` digits a number), so counts change in place and never re-lay the graph out.
 */
export const countsSlot = (size: number): string =>
  `<span class='braid-counts braid-counts-d${Math.min(5, String(size).length)}'></span>`;

// Colours read on light and dark themes alike; status changes only swap a node's class.
const CLASS_DEFS: Readonly<Record<StepStatus, string>> = {
  pending: 'fill:#f3f4f6,stroke:#9ca3af,color:#374151',
  waiting: 'fill:#fef3c7,stroke:#d97706,color:#111827',
  running: 'fill:#dbeafe,stroke:#2563eb,color:#111827,stroke-width:2px',
  review: 'fill:#ccfbf1,stroke:#0d9488,color:#111827,stroke-width:2px',
  succeeded: 'fill:#dcfce7,stroke:#16a34a,color:#111827',
  failed: 'fill:#fee2e2,stroke:#dc2626,color:#111827,stroke-width:2px',
  skipped: 'fill:#f9fafb,stroke:#d1d5db,color:#6b7280,stroke-dasharray:4',
  canceled: 'fill:#e5e7eb,stroke:#6b7280,color:#374151',
  conflict: 'fill:#ffedd5,stroke:#ea580c,color:#111827,stroke-width:2px',
  interrupted: 'fill:#f3e8ff,stroke:#9333ea,color:#111827',
};

// Letters, digits, space and punctuation that mean nothing inside a quoted mermaid label.
// Everything else (`"`, `#`, `%`, `<`, `>`, `&`, backtick, brackets, braces, `:`, `;`, `$` of
// KaTeX `$$…$$`, symbols) becomes a `#<code>;` entity, which mermaid decodes to the character
// as text. Escaping `#` and `%` also rules out user-made entities and `%%{init}%%` directives.
const SAFE = /[\p{L}\p{N} \-_.,!?'+=*/()@~^|]/u;
const ALL_SAFE = /^[\p{L}\p{N} \-_.,!?'+=*/()@~^|]*$/u;

/** Entity-encodes user text for a quoted mermaid label; line breaks and control chars become spaces. */
export function mermaidLabel(text: string): string {
  const plain = text.replace(/\r\n|[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ');
  // Most names need no entity: one test of the whole name instead of one a character.
  if (ALL_SAFE.test(plain)) return plain;
  let out = '';
  for (const ch of plain) {
    out += SAFE.test(ch) ? ch : `#${ch.codePointAt(0) ?? 0};`;
  }
  return out;
}

const stepLabel = (s: GraphStep, slots: boolean): string => {
  const name = mermaidLabel(s.name);
  const agent = s.kind === 'prompt' && s.agent !== undefined ? `<br>${mermaidLabel(s.agent)}` : '';
  return slots ? `${STATUS_SLOT}${name}${agent}<br>${TIME_SLOT}` : `${name}${agent}`;
};

/** The graph as a `flowchart LR`, with the mermaid node id of every step. */
export function toMermaid(
  graph: Graph,
  opts: MermaidOptions = {},
): {
  text: string;
  nodeIds: ReadonlyMap<string, string>;
  /** The subgraph id (`g0`, …) of each group drawn expanded (a matrix group's id, or an expanded best-of step's). */
  clusterIds: ReadonlyMap<string, string>;
} {
  const collapsed = (group: string): boolean =>
    opts.collapseMatrix === true || (opts.collapseGroups?.has(group) ?? false);
  const slots = opts.slots === true;
  const stepOf = (id: string): GraphStep => {
    const s = graph.steps.get(id);
    if (!s) throw new Error(`toMermaid: graph.order names unknown step "${id}"`);
    return s;
  };
  const members = new Map<string, string[]>();
  for (const id of graph.order) {
    const g = stepOf(id).matrix?.group;
    if (g !== undefined) (members.get(g) ?? members.set(g, []).get(g)!).push(id);
  }

  const nodeIds = new Map<string, string>();
  const groupNode = new Map<string, string>();
  const clusterIds = new Map<string, string>();
  /** Expanded best-of steps: their alternatives' ids. */
  const racing = new Map<string, string[]>();
  const lines = ['flowchart LR'];
  let nodeCount = 0;
  let groupCount = 0;
  for (const id of graph.order) {
    if (nodeIds.has(id)) continue;
    const step = stepOf(id);
    const group = step.matrix?.group;
    const alts = opts.alternatives && group === undefined ? step.bestOf?.alternatives : undefined;
    if (alts && opts.alternatives) {
      const n = `n${nodeCount++}`;
      nodeIds.set(id, n);
      const altIds = alts.map((a) => opts.alternatives!.id(id, a.index));
      if (!opts.alternatives.expanded.has(id)) {
        for (const a of altIds) nodeIds.set(a, n);
        // Counts with room for the winner (`★ 2 won · 1/3 ✓ · 2 ⊘`): a two-digit group's place.
        const count = slots ? `${countsSlot(10)}<br>${TIME_SLOT}` : `${alts.length} alternatives`;
        lines.push(`  ${n}["${slots ? STATUS_SLOT : ''}${mermaidLabel(step.name)}<br>${count}"]`);
        continue;
      }
      const cluster = `g${groupCount++}`;
      clusterIds.set(id, cluster);
      lines.push(`  subgraph ${cluster} ["${mermaidLabel(`${step.name} · ${alts.length} alternatives`)}"]`);
      alts.forEach((a, i) => {
        const m = `n${nodeCount++}`;
        nodeIds.set(altIds[i]!, m);
        const agent =
          step.kind === 'prompt' && (a.agent ?? step.agent) !== undefined
            ? `<br>${mermaidLabel(a.agent ?? step.agent!)}`
            : '';
        lines.push(
          `    ${m}["${slots ? STATUS_SLOT : ''}alternative ${a.index}${agent}${slots ? `<br>${TIME_SLOT}` : ''}"]`,
        );
      });
      lines.push('  end');
      lines.push(`  ${n}["${stepLabel(step, slots)}"]`);
      racing.set(id, altIds);
      continue;
    }
    if (group === undefined) {
      const n = `n${nodeCount++}`;
      nodeIds.set(id, n);
      lines.push(`  ${n}["${stepLabel(step, slots)}"]`);
      continue;
    }
    const ids = members.get(group) ?? [id];
    if (collapsed(group)) {
      const n = `n${nodeCount++}`;
      groupNode.set(group, n);
      for (const m of ids) nodeIds.set(m, n);
      const count = slots ? countsSlot(ids.length) : `${ids.length} ${ids.length === 1 ? 'step' : 'steps'}`;
      lines.push(`  ${n}["${slots ? STATUS_SLOT : ''}${mermaidLabel(group)}<br>${count}"]`);
      continue;
    }
    const cluster = `g${groupCount++}`;
    clusterIds.set(group, cluster);
    lines.push(`  subgraph ${cluster} ["${mermaidLabel(group)}"]`);
    for (const m of ids) {
      const n = `n${nodeCount++}`;
      nodeIds.set(m, n);
      lines.push(`    ${n}["${stepLabel(stepOf(m), slots)}"]`);
    }
    lines.push('  end');
  }

  const edges = new Set<string>();
  for (const id of graph.order) {
    // An expanded best-of step: what it needs feeds each alternative, and each races into the step.
    const to1 = nodeIds.get(id);
    if (to1 === undefined) throw new Error(`toMermaid: step "${id}" has no node`);
    const into = racing.get(id)?.map((a) => nodeIds.get(a)!) ?? [to1];
    for (const need of stepOf(id).needs) {
      const from = nodeIds.get(need);
      if (from === undefined) throw new Error(`toMermaid: step "${id}" needs unknown step "${need}"`);
      for (const to of into) if (from !== to) edges.add(`  ${from} --> ${to}`);
    }
    for (const a of racing.get(id) ?? []) edges.add(`  ${nodeIds.get(a)!} --> ${to1}`);
  }
  lines.push(...edges);
  const locks = new Set<string>();
  for (const { a, b } of opts.lockPairs ?? []) {
    const x = nodeIds.get(a);
    const y = nodeIds.get(b);
    if (x === undefined || y === undefined)
      throw new Error(`toMermaid: lock pair names unknown step "${x === undefined ? a : b}"`);
    if (x !== y) locks.add(`  ${x} -. lock .- ${y}`);
  }
  lines.push(...locks);

  for (const status of STEP_STATUSES) lines.push(`  classDef ${status} ${CLASS_DEFS[status]}`);
  if (opts.statuses) lines.push(...classLines(graph, nodeIds, groupNode, members, opts.statuses));
  return { text: `${lines.join('\n')}\n`, nodeIds, clusterIds };
}

function classLines(
  graph: Graph,
  nodeIds: ReadonlyMap<string, string>,
  groupNode: ReadonlyMap<string, string>,
  members: ReadonlyMap<string, readonly string[]>,
  statuses: ReadonlyMap<string, StepStatus>,
): string[] {
  const byStatus = new Map<StepStatus, string[]>();
  const assign = (node: string, status: StepStatus | undefined): void => {
    // Pushed, not copied: a copy a node made this quadratic (a 5,000-step plan's message, #35).
    if (status !== undefined) (byStatus.get(status) ?? byStatus.set(status, []).get(status)!).push(node);
  };
  const done = new Set<string>();
  for (const id of graph.order) {
    const node = nodeIds.get(id);
    if (node === undefined || done.has(node)) continue;
    done.add(node);
    const group = graph.steps.get(id)?.matrix?.group;
    if (group !== undefined && groupNode.get(group) === node) {
      const seen = new Set((members.get(group) ?? []).map((m) => statuses.get(m)));
      // A collapsed group shows the status that most needs attention among its members.
      assign(
        node,
        ATTENTION.find((s) => seen.has(s)),
      );
    } else assign(node, statuses.get(id));
  }
  return STEP_STATUSES.filter((s) => byStatus.has(s)).map((s) => `  class ${(byStatus.get(s) ?? []).join(',')} ${s}`);
}
