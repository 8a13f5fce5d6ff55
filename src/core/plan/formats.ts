// The other `braid graph --format` renderings: Graphviz DOT and a stable JSON shape.
import type { Graph, GraphStep, Isolation, StepKind } from './types';

// In a DOT quoted string only `\"` is an escape for the lexer, but labels also read `\n`, `\l`,
// `\N`…, so a backslash is doubled to stay literal; line breaks become DOT's `\n`.
const dotString = (s: string): string =>
  `"${s
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\r\n|\r|\n/g, '\\n')}"`;

const stepsInOrder = (graph: Graph): GraphStep[] =>
  graph.order.map((id) => {
    const s = graph.steps.get(id);
    if (!s) throw new Error(`graph.order names unknown step "${id}"`);
    return s;
  });

const dotNode = (s: GraphStep, indent: string): string => {
  const label = s.kind === 'prompt' && s.agent !== undefined ? `${s.name}\n${s.agent}` : s.name;
  return `${indent}${dotString(s.id)} [label=${dotString(label)}];`;
};

/** The graph as a Graphviz digraph (rankdir=LR); matrix groups become clusters. */
export function toDot(graph: Graph): string {
  const steps = stepsInOrder(graph);
  const lines = [`digraph ${dotString(graph.plan.name)} {`, '  rankdir=LR;', '  node [shape=box];'];
  const clusters = new Map<string, GraphStep[]>();
  for (const s of steps) {
    const g = s.matrix?.group;
    if (g !== undefined) clusters.set(g, [...(clusters.get(g) ?? []), s]);
  }
  const drawn = new Set<string>();
  let clusterCount = 0;
  for (const s of steps) {
    const g = s.matrix?.group;
    if (g === undefined) {
      lines.push(dotNode(s, '  '));
      continue;
    }
    if (drawn.has(g)) continue;
    drawn.add(g);
    lines.push(`  subgraph "cluster_g${clusterCount++}" {`, `    label=${dotString(g)};`);
    for (const m of clusters.get(g) ?? []) lines.push(dotNode(m, '    '));
    lines.push('  }');
  }
  for (const s of steps) for (const need of s.needs) lines.push(`  ${dotString(need)} -> ${dotString(s.id)};`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

export interface GraphJson {
  readonly plan: { readonly name: string; readonly file: string; readonly concurrency: number | null };
  readonly steps: readonly {
    readonly id: string;
    readonly name: string;
    readonly kind: StepKind;
    readonly agent: string | null;
    readonly needs: readonly string[];
    readonly writes: readonly string[];
    readonly isolation: Isolation;
    readonly depth: number;
    readonly matrix: { readonly group: string; readonly values: Readonly<Record<string, string>> } | null;
  }[];
}

/** The graph for `braid graph --format json`: every key always present (null when unset), steps in graph.order. */
export function toJson(graph: Graph): GraphJson {
  return {
    plan: { name: graph.plan.name, file: graph.plan.file, concurrency: graph.plan.concurrency ?? null },
    steps: stepsInOrder(graph).map((s) => ({
      id: s.id,
      name: s.name,
      kind: s.kind,
      agent: s.agent ?? null,
      needs: [...s.needs],
      writes: [...s.writes],
      isolation: s.isolation,
      depth: s.depth,
      matrix: s.matrix ? { group: s.matrix.group, values: { ...s.matrix.values } } : null,
    })),
  };
}
