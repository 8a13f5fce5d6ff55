// The layout of a big plan without mermaid: Braid already knows the graph is a DAG, so each node's
// rank (its longest chain of needs) is its column, left to right as mermaid's `flowchart LR` draws
// it; within a column, a few barycentre sweeps put each node near the nodes it joins, so edges
// mostly run straight. Linear in nodes and edges per sweep (a sort per column): 10,000 steps lay
// out in tens of milliseconds, where mermaid's dagre takes tens of seconds. Pure, no DOM.

export interface LayoutOptions {
  readonly nodeWidth: number;
  readonly nodeHeight: number;
  /** Between columns (where the edges run) and between nodes of a column. */
  readonly gapX: number;
  readonly gapY: number;
  /** A rank with more nodes than this wraps into several columns, so no column is a mile tall. */
  readonly maxColumn: number;
  readonly padding: number;
  /** Barycentre sweeps (down and up in turn). */
  readonly sweeps: number;
}

export const DEFAULT_LAYOUT: LayoutOptions = {
  nodeWidth: 200,
  nodeHeight: 46,
  gapX: 56,
  gapY: 14,
  maxColumn: 40,
  padding: 16,
  sweeps: 4,
};

export interface Placed {
  readonly id: string;
  readonly rank: number;
  /** Top left corner, in content px. */
  readonly x: number;
  readonly y: number;
}

export interface Layout {
  /** In the input's node order. */
  readonly nodes: readonly Placed[];
  readonly byId: ReadonlyMap<string, Placed>;
  readonly edges: readonly (readonly [string, string])[];
  readonly width: number;
  readonly height: number;
  readonly options: LayoutOptions;
}

/** Longest-path ranks: a node's rank is one more than its highest need's. Throws on a cycle (plans are DAGs). */
export function ranks(nodes: readonly string[], edges: readonly (readonly [string, string])[]): Map<string, number> {
  const index = new Map(nodes.map((n, i) => [n, i]));
  const out: number[][] = nodes.map(() => []);
  const indegree = new Array<number>(nodes.length).fill(0);
  for (const [a, b] of edges) {
    const i = index.get(a);
    const j = index.get(b);
    if (i === undefined || j === undefined) throw new Error(`rankedLayout: edge ${a} → ${b} names an unknown node`);
    out[i]!.push(j);
    indegree[j]!++;
  }
  const rank = new Array<number>(nodes.length).fill(0);
  const queue: number[] = [];
  indegree.forEach((d, i) => d === 0 && queue.push(i));
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head]!;
    for (const j of out[i]!) {
      rank[j] = Math.max(rank[j]!, rank[i]! + 1);
      if (--indegree[j]! === 0) queue.push(j);
    }
  }
  if (queue.length !== nodes.length) throw new Error('rankedLayout: the graph has a cycle');
  return new Map(nodes.map((n, i) => [n, rank[i]!]));
}

/** Each rank's nodes in drawing order: first-seen order, then barycentre sweeps against the neighbours' places. */
export function orderRanks(
  nodes: readonly string[],
  edges: readonly (readonly [string, string])[],
  rankOf: ReadonlyMap<string, number>,
  sweeps: number,
): string[][] {
  const columns: string[][] = [];
  for (const n of nodes) (columns[rankOf.get(n)!] ??= []).push(n);
  const preds = new Map<string, string[]>();
  const succs = new Map<string, string[]>();
  for (const [a, b] of edges) {
    (succs.get(a) ?? succs.set(a, []).get(a)!).push(b);
    (preds.get(b) ?? preds.set(b, []).get(b)!).push(a);
  }
  const place = new Map<string, number>();
  const note = (col: readonly string[]): void => col.forEach((n, i) => place.set(n, i / Math.max(1, col.length - 1)));
  for (const col of columns) note(col ?? []);
  const sortBy = (col: string[], neighbours: ReadonlyMap<string, string[]>): void => {
    const key = new Map<string, number>();
    for (const n of col) {
      const ns = neighbours.get(n);
      // A node with no neighbour on that side keeps its place.
      key.set(n, ns && ns.length > 0 ? ns.reduce((s, m) => s + place.get(m)!, 0) / ns.length : place.get(n)!);
    }
    col.sort((a, b) => key.get(a)! - key.get(b)! || place.get(a)! - place.get(b)!);
    note(col);
  };
  for (let s = 0; s < sweeps; s++) {
    if (s % 2 === 0) for (let r = 1; r < columns.length; r++) sortBy(columns[r] ?? [], preds);
    else for (let r = columns.length - 2; r >= 0; r--) sortBy(columns[r] ?? [], succs);
  }
  return columns.map((c) => c ?? []);
}

/** Places every node: ranks left to right, each rank's column centred on the tallest. */
export function rankedLayout(
  nodes: readonly string[],
  edges: readonly (readonly [string, string])[],
  options: LayoutOptions = DEFAULT_LAYOUT,
): Layout {
  const o = options;
  const rankOf = ranks(nodes, edges);
  const columns = orderRanks(nodes, edges, rankOf, o.sweeps);
  const rowH = o.nodeHeight + o.gapY;
  const colW = o.nodeWidth + o.gapX;
  const tallest = Math.min(o.maxColumn, Math.max(1, ...columns.map((c) => c.length)));
  const byId = new Map<string, Placed>();
  let x = o.padding;
  columns.forEach((col, rank) => {
    // A wide rank wraps into columns of at most maxColumn, side by side.
    for (let start = 0; start < col.length; start += o.maxColumn) {
      const part = col.slice(start, start + o.maxColumn);
      const top = o.padding + ((tallest - part.length) * rowH) / 2;
      part.forEach((id, i) => byId.set(id, { id, rank, x, y: top + i * rowH }));
      x += colW;
    }
    if (col.length === 0) x += colW;
  });
  return {
    nodes: nodes.map((n) => byId.get(n)!),
    byId,
    edges,
    width: x - o.gapX + o.padding,
    height: 2 * o.padding + tallest * rowH - o.gapY,
    options: o,
  };
}

/** The edges' drawing as one SVG path (a curve and an arrowhead each), for a batch of edges. */
export function edgePath(layout: Layout, edges: readonly (readonly [string, string])[]): string {
  const { nodeWidth: w, nodeHeight: h } = layout.options;
  let d = '';
  for (const [a, b] of edges) {
    const p = layout.byId.get(a);
    const q = layout.byId.get(b);
    if (!p || !q) continue;
    const x1 = p.x + w;
    const y1 = p.y + h / 2;
    const x2 = q.x - 2;
    const y2 = q.y + h / 2;
    const mx = (x1 + x2) / 2;
    d += `M${x1} ${y1}C${mx} ${y1} ${mx} ${y2} ${x2} ${y2}M${x2 - 6} ${y2 - 4}L${x2} ${y2}L${x2 - 6} ${y2 + 4}`;
  }
  return d;
}

/** Mermaid text as toMermaid writes it: its `nA --> nB` edges (lock links, dotted, are not dependencies). */
export function mermaidEdges(text: string): [string, string][] {
  const edges: [string, string][] = [];
  for (const m of text.matchAll(/^\s*(n\d+) --> (n\d+)\s*$/gm)) edges.push([m[1]!, m[2]!]);
  return edges;
}

/** Nodes nearest a point first (Manhattan distance), so the window the user looks at is drawn before the rest. */
export function nearestFirst(layout: Layout, cx: number, cy: number): Placed[] {
  const { nodeWidth: w, nodeHeight: h } = layout.options;
  const dist = (p: Placed): number => Math.abs(p.x + w / 2 - cx) + Math.abs(p.y + h / 2 - cy);
  return [...layout.nodes].sort((a, b) => dist(a) - dist(b));
}
