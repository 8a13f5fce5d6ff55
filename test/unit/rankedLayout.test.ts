import { strict as assert } from 'node:assert';
import { contentPoint, needsOverview, overviewScale, visibleRect } from '../../webview/overviewMath';
import {
  DEFAULT_LAYOUT,
  edgePath,
  mermaidEdges,
  nearestFirst,
  orderRanks,
  rankedLayout,
  ranks,
} from '../../webview/rankedLayout';

/** Layers of `width`, each node needing its own column and the next one of the layer before. */
function layered(layers: number, width: number): { nodes: string[]; edges: [string, string][] } {
  const nodes: string[] = [];
  const edges: [string, string][] = [];
  for (let l = 0; l < layers; l++)
    for (let i = 0; i < width; i++) {
      nodes.push(`n${l * width + i}`);
      if (l > 0) {
        edges.push([`n${(l - 1) * width + i}`, `n${l * width + i}`]);
        edges.push([`n${(l - 1) * width + ((i + 1) % width)}`, `n${l * width + i}`]);
      }
    }
  return { nodes, edges };
}

/** Edge pairs that cross between two adjacent columns. */
function crossings(columns: readonly string[][], edges: readonly (readonly [string, string])[]): number {
  const pos = new Map<string, [number, number]>();
  columns.forEach((c, r) => c.forEach((n, i) => pos.set(n, [r, i])));
  let count = 0;
  for (let a = 0; a < edges.length; a++)
    for (let b = a + 1; b < edges.length; b++) {
      const [p1, q1] = [pos.get(edges[a]![0])!, pos.get(edges[a]![1])!];
      const [p2, q2] = [pos.get(edges[b]![0])!, pos.get(edges[b]![1])!];
      if (p1[0] !== p2[0] || q1[0] !== q2[0]) continue;
      if ((p1[1] - p2[1]) * (q1[1] - q2[1]) < 0) count++;
    }
  return count;
}

describe('ranked layout (big graphs)', () => {
  it('ranks each node one past its deepest need, not its shallowest', () => {
    const r = ranks(
      ['a', 'b', 'c', 'd'],
      [
        ['a', 'b'],
        ['b', 'c'],
        ['a', 'c'],
        ['c', 'd'],
      ],
    );
    assert.deepEqual(
      [...r],
      [
        ['a', 0],
        ['b', 1],
        ['c', 2],
        ['d', 3],
      ],
    );
  });

  it('throws on a cycle and on an edge to an unknown node (a bug, never a plan)', () => {
    assert.throws(
      () =>
        ranks(
          ['a', 'b'],
          [
            ['a', 'b'],
            ['b', 'a'],
          ],
        ),
      /cycle/,
    );
    assert.throws(() => ranks(['a'], [['a', 'z']]), /unknown node/);
  });

  it('orders a column by its needs: crossings drop against the first-seen order', () => {
    // Column 1 listed against its needs' order: every edge pair crosses until sorted.
    const nodes = ['a', 'b', 'c', 'z', 'y', 'x'];
    const edges: [string, string][] = [
      ['a', 'x'],
      ['b', 'y'],
      ['c', 'z'],
    ];
    const r = ranks(nodes, edges);
    assert.equal(crossings(orderRanks(nodes, edges, r, 0), edges), 3);
    const sorted = orderRanks(nodes, edges, r, 4);
    assert.equal(crossings(sorted, edges), 0);
    assert.deepEqual(sorted[1], ['x', 'y', 'z']);
  });

  it('places ranks left to right, no two nodes overlapping, inside the reported size', () => {
    const { nodes, edges } = layered(30, 10);
    const l = rankedLayout(nodes, edges);
    const { nodeWidth: w, nodeHeight: h } = DEFAULT_LAYOUT;
    for (const [a, b] of edges) assert.ok(l.byId.get(a)!.x + w < l.byId.get(b)!.x, `${a} left of ${b}`);
    const seen = new Set<string>();
    for (const p of l.nodes) {
      assert.ok(p.x >= 0 && p.y >= 0 && p.x + w <= l.width && p.y + h <= l.height, `${p.id} inside`);
      const key = `${p.x},${p.y}`;
      assert.ok(!seen.has(key), `${p.id} overlaps`);
      seen.add(key);
    }
    assert.equal(l.nodes.length, 300);
  });

  it('wraps a wide rank into columns of at most maxColumn, so 1,000 independent steps are not one mile-high column', () => {
    const nodes = Array.from({ length: 1000 }, (_, i) => `n${i}`);
    const l = rankedLayout(nodes, []);
    assert.equal(new Set(l.nodes.map((p) => p.x)).size, 25);
    assert.ok(l.height < 40 * (DEFAULT_LAYOUT.nodeHeight + DEFAULT_LAYOUT.gapY) + 2 * DEFAULT_LAYOUT.padding);
  });

  it('reads the dependencies of toMermaid text and not its lock links or labels', () => {
    const text = 'flowchart LR\n  n0["a --> b"]\n  n1["b"]\n  n0 --> n1\n  n2 --> n1\n  n0 -. lock .- n2\n';
    assert.deepEqual(mermaidEdges(text), [
      ['n0', 'n1'],
      ['n2', 'n1'],
    ]);
  });

  it('draws one curve and arrowhead per edge, ending at the target box', () => {
    const l = rankedLayout(['n0', 'n1'], [['n0', 'n1']]);
    const d = edgePath(l, l.edges);
    assert.equal((d.match(/C/g) ?? []).length, 1);
    assert.ok(d.includes(`${l.byId.get('n1')!.x - 2} ${l.byId.get('n1')!.y + DEFAULT_LAYOUT.nodeHeight / 2}`));
  });

  it('draws the nodes nearest the view first', () => {
    const { nodes, edges } = layered(50, 10);
    const l = rankedLayout(nodes, edges);
    const far = l.byId.get('n495')!;
    const order = nearestFirst(l, far.x + 10, far.y + 10);
    assert.equal(order[0]!.id, 'n495');
    assert.equal(order.length, 500);
  });
});

describe('graph overview', () => {
  it('fits the whole graph in the box and stretches a long flat one to stay visible', () => {
    const s = overviewScale(2000, 1000, 220, 140);
    assert.equal(s.width, 220);
    assert.equal(s.height, 110);
    const flat = overviewScale(128_000, 600, 220, 140);
    assert.equal(flat.width, 220);
    assert.equal(flat.height, 36);
    assert.ok(flat.sy > flat.sx);
  });

  it('maps the view to its window and a press back to the content point under it', () => {
    const t = { x: -1000, y: -50, scale: 0.5 };
    assert.deepEqual(visibleRect(t, 800, 400, 10_000, 2000), { x: 2000, y: 100, width: 1600, height: 800 });
    const s = overviewScale(10_000, 2000, 200, 140);
    const p = contentPoint(s, 100, 20);
    assert.ok(Math.abs(p.x - 5000) < 1e-9 && Math.abs(p.y - 20 / s.sy) < 1e-9);
  });

  it('is needed only when the graph does not fit the view at its scale', () => {
    assert.equal(needsOverview(800, 300, 1000, 600, 1), false);
    assert.equal(needsOverview(8000, 300, 1000, 600, 1), true);
    assert.equal(needsOverview(8000, 300, 1000, 600, 0.1), false);
  });
});
