// Draws a ranked layout (rankedLayout.ts) as SVG, a slice at a time: the page never holds its
// thread for more than SLICE_MS, so it answers search, clicks and scrolling while a big plan is
// still being drawn, and the nodes nearest the first view come first. Each node is built as the
// graph's other code expects of mermaid's: a `g.node` with a box, a `.nodeLabel` and the status
// and time places; user text only ever goes in as text (textContent), never as markup.
import { edgePath, nearestFirst, type Layout, type Placed } from './rankedLayout';

const SVG = 'http://www.w3.org/2000/svg';
/** Longest a slice of drawing holds the page's thread (a long task is 50 ms; a frame 16). */
const SLICE_MS = 12;
/** Characters of a name that fit a node at its label size; longer names end in an ellipsis. */
const NAME_CHARS = 24;
const SUB_CHARS = 30;

export interface NodeLabel {
  readonly title: string;
  /** The second line before the time (an agent), if any. */
  readonly sub?: string;
  /** A collapsed group: its counts fill the second line instead of the time. */
  readonly counts?: boolean;
}

const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function svgEl<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** One node, at its place, with the same classes and slots as a mermaid node of ours. */
export function nodeElement(p: Placed, label: NodeLabel, w: number, h: number): SVGGElement {
  const g = svgEl('g', { class: 'node braid-node', 'data-id': p.id, transform: `translate(${p.x},${p.y})` });
  g.append(
    svgEl('rect', { x: 0, y: 0, width: w, height: h, rx: 5 }),
    svgEl('svg', { class: 'braid-status', x: 9, y: 7, width: 14, height: 14, overflow: 'visible' }),
  );
  const name = svgEl('text', { class: 'nodeLabel', x: 29, y: 19 });
  name.textContent = clip(label.title, NAME_CHARS);
  const tip = svgEl('title', {});
  tip.textContent = label.sub !== undefined ? `${label.title}\n${label.sub}` : label.title;
  const second = svgEl('text', { class: 'braid-sub', x: 29, y: 37 });
  if (label.sub !== undefined) {
    const sub = svgEl('tspan', {});
    sub.textContent = `${clip(label.sub, SUB_CHARS)}  `;
    second.append(sub);
  }
  second.append(svgEl('tspan', { class: label.counts === true ? 'braid-counts' : 'braid-time' }));
  g.append(name, second, tip);
  return g;
}

/** An expanded group's frame around its nodes, which a click folds again (as mermaid's subgraph). */
export interface GroupFrame {
  readonly clusterId: string;
  readonly label: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The frames, in one <svg> under the tiles: few elements, drawn at once. */
function framesSvg(layout: Layout, frames: readonly GroupFrame[]): SVGSVGElement {
  const svg = svgEl('svg', { class: 'braid-ranked braid-frames', width: layout.width, height: layout.height });
  for (const f of frames) {
    const g = svgEl('g', { class: 'cluster', 'data-id': f.clusterId });
    const label = svgEl('text', { class: 'cluster-label', x: f.x + 8, y: f.y + 14 });
    label.textContent = clip(f.label, 60);
    g.append(svgEl('rect', { x: f.x, y: f.y, width: f.width, height: f.height, rx: 6 }), label);
    svg.append(g);
  }
  return svg;
}

export interface DrawingHooks {
  readonly label: (nodeId: string) => NodeLabel;
  /** Each node once it is in the page (to register, style and select it). */
  readonly drawn: (nodeId: string, g: SVGGElement) => void;
  readonly progress: (done: number, total: number) => void;
  /** A newer drawing replaced this one: stop. */
  readonly stale: () => boolean;
}

const yieldToPage = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Width of one tile of the drawing, in content px (about eight ranks). */
const TILE_PX = 2048;

/**
 * Draws the layout into a new element, returned at once (put it in the page, then await `done`);
 * the nodes nearest (cx, cy) first. The drawing is a row of <svg> tiles, each a slice of the ranks:
 * a node added to one tile makes the browser lay out that tile again, not all that was drawn
 * before (one big <svg> made each slice cost as much as everything drawn so far). An edge is
 * drawn in its target's tile and may overflow to the left. `done` resolves false if it went stale.
 */
export function drawRanked(
  layout: Layout,
  cx: number,
  cy: number,
  hooks: DrawingHooks,
  frames: readonly GroupFrame[] = [],
): { root: HTMLElement; done: Promise<boolean>; focus: (cx: number, cy: number) => void } {
  const { nodeWidth: w, nodeHeight: h } = layout.options;
  const root = document.createElement('div');
  root.className = 'braid-ranked-tiles';
  root.style.width = `${layout.width}px`;
  root.style.height = `${layout.height}px`;
  if (frames.length > 0) root.append(framesSvg(layout, frames));
  const tiles: { edges: SVGGElement; nodes: SVGGElement }[] = [];
  const tileOf = (p: Placed): { edges: SVGGElement; nodes: SVGGElement } => {
    const i = Math.floor(p.x / TILE_PX);
    let t = tiles[i];
    if (!t) {
      const x = i * TILE_PX;
      const width = Math.min(TILE_PX, layout.width - x);
      const svg = svgEl('svg', {
        class: 'braid-ranked',
        width,
        height: layout.height,
        viewBox: `${x} 0 ${width} ${layout.height}`,
        overflow: 'visible',
      });
      svg.style.left = `${x}px`;
      t = { edges: svgEl('g', { class: 'edgePaths' }), nodes: svgEl('g', { class: 'nodes' }) };
      svg.append(t.edges, t.nodes);
      tiles[i] = t;
      root.append(svg);
    }
    return t;
  };
  const incoming = new Map<string, (readonly [string, string])[]>();
  for (const e of layout.edges) (incoming.get(e[1]) ?? incoming.set(e[1], []).get(e[1])!).push(e);
  let order: Placed[] = nearestFirst(layout, cx, cy);
  let i = 0;
  // The view moved (a search followed a step, the overview was pressed): what is left is drawn
  // nearest the new view first, from the next slice on.
  let refocus: { cx: number; cy: number } | undefined;
  const done = (async (): Promise<boolean> => {
    while (i < order.length) {
      if (hooks.stale()) return false;
      if (refocus) {
        const rest = nearestFirst({ ...layout, nodes: order.slice(i) }, refocus.cx, refocus.cy);
        order = rest;
        i = 0;
        refocus = undefined;
      }
      const start = performance.now();
      const batches = new Map<{ edges: SVGGElement; nodes: SVGGElement }, (readonly [string, string])[]>();
      const made: [string, SVGGElement][] = [];
      // At least one node a slice, however slow the machine.
      do {
        const p = order[i++]!;
        const g = nodeElement(p, hooks.label(p.id), w, h);
        const t = tileOf(p);
        t.nodes.append(g);
        made.push([p.id, g]);
        const into = batches.get(t) ?? batches.set(t, []).get(t)!;
        for (const e of incoming.get(p.id) ?? []) into.push(e);
      } while (i < order.length && performance.now() - start < SLICE_MS);
      for (const [t, batch] of batches)
        if (batch.length > 0) t.edges.append(svgEl('path', { class: 'flowchart-link', d: edgePath(layout, batch) }));
      for (const [id, g] of made) hooks.drawn(id, g);
      hooks.progress(layout.nodes.length - (order.length - i), layout.nodes.length);
      if (i < order.length) await yieldToPage();
    }
    return true;
  })();
  return { root, done, focus: (x, y) => void (refocus = { cx: x, cy: y }) };
}
