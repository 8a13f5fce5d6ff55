// The webview build's patches to mermaid and to the dagre it lays out with (an esbuild plugin),
// each found by its exact text: if an upgrade changes the code, the build fails here rather than
// silently losing a patch. Each can be left out by an environment variable, for bench/mermaidPatches.ts,
// which checks that the ones meant to draw the same SVG do.
import { readFile } from 'node:fs/promises';

// 1. getConfig() deep-copies mermaid's whole config on every call, and rendering calls it for
// every node, edge and label: ~0.8 s of a 300-node first render in headless Chromium. The copy
// is only a defence against callers mutating it; the result is memoised per config object (a
// new one replaces it on every config change), which draws the same SVG (checked by
// bench/mermaidMemo.ts). BRAID_MERMAID_MEMO=0 builds without it, for that comparison.
const GET_CONFIG =
  'var getConfig = /* @__PURE__ */ __name(() => {\n  return assignWithDepth_default({}, currentConfig);\n}, "getConfig");';
const MEMO_CONFIG = [
  'var braidConfigFor, braidConfigCopy;',
  'var getConfig = /* @__PURE__ */ __name(() => {',
  '  if (braidConfigFor !== currentConfig) { braidConfigCopy = assignWithDepth_default({}, currentConfig); braidConfigFor = currentConfig; }',
  '  return braidConfigCopy;',
  '}, "getConfig");',
].join('\n');
// 2. dagre ranks nodes by network simplex, whose cost grows about as nodes × edges: profiled in
// headless Chromium, 0.4 s of a 2.3 s first render at 300 nodes and 5.0 s of 11.8 s at 1,000.
// Past TIGHT_TREE_FROM nodes the flowchart layout asks dagre for its "tight-tree" ranker
// instead (longest path, then a tight spanning tree: the same columns, less compact rows),
// which halves a 1,000-step render; mermaid has no setting for it. Smaller graphs keep the
// tidier default. BRAID_DAGRE_RANKER=network-simplex builds without the switch.
const TIGHT_TREE_FROM = 200;
const DAGRE_GRAPH =
  '    marginx: 8,\n    marginy: 8\n  }).setDefaultEdgeLabel(function() {\n    return {};\n  });\n  data4Layout.nodes.forEach(';
const DAGRE_RANKER = DAGRE_GRAPH.replace(
  'marginy: 8\n',
  `marginy: 8,\n    ranker: data4Layout.nodes.length >= ${TIGHT_TREE_FROM} ? "tight-tree" : "network-simplex"\n`,
);
// 3. dagre's crossing reduction builds one graph a rank, each by a scan of every node for those
// of that rank: ranks × nodes (the graph's nodes plus a dummy a rank for each long edge), 0.25 s
// of a 300-step first render. The nodes are grouped by rank in one pass first, in the graph's
// order, so each rank's graph gets the same nodes in the same order and the SVG is the same
// (bench/mermaidPatches.ts checks it); upstream dagre (@dagrejs/dagre) indexes them the same
// way. BRAID_DAGRE_LAYERS=0 builds without it.
const LAYER_GRAPHS =
  'function buildLayerGraphs(g, ranks, relationship) {\n  return _.map(ranks, function (rank) {\n    return buildLayerGraph(g, rank, relationship);\n  });\n}';
const LAYER_GRAPHS_INDEXED = [
  'function buildLayerGraphs(g, ranks, relationship) {',
  '  var byRank = new Map();',
  '  var add = function (r, v) { var list = byRank.get(r); if (list) list.push(v); else byRank.set(r, [v]); };',
  '  _.forEach(g.nodes(), function (v) {',
  '    var node = g.node(v);',
  "    if (typeof node.rank === 'number') add(node.rank, v);",
  "    if (typeof node.minRank === 'number' && typeof node.maxRank === 'number') {",
  '      for (var r = Math.ceil(node.minRank); r <= node.maxRank; r++) if (r !== node.rank) add(r, v);',
  '    }',
  '  });',
  '  return _.map(ranks, function (rank) {',
  '    return buildLayerGraph(g, rank, relationship, byRank.get(rank) || []);',
  '  });',
  '}',
].join('\n');
const LAYER_GRAPH = 'function buildLayerGraph(g, rank, relationship) {';
const LAYER_GRAPH_NODES = 'function buildLayerGraph(g, rank, relationship, rankNodes) {';
const LAYER_GRAPH_SCAN =
  '  _.forEach(g.nodes(), function (v) {\n    var node = g.node(v),\n      parent = g.parent(v);';
const LAYER_GRAPH_LIST = LAYER_GRAPH_SCAN.replace('g.nodes()', 'rankNodes');
// 4. render() serialises the SVG it drew to a string, runs DOMPurify over the whole of it and removes
// the drawing; the page then parsed the string back into an SVG: ~0.15 s of a 300-step first render
// spent drawing the same nodes twice. With `braidLiveSvg: true` in its config, render() hands back
// the drawn <svg> element itself (`braidLiveSvg` in its result, the `svg` string left empty), which
// the page moves into the panel. Nothing else changes: labels still go through DOMPurify one by one
// (securityLevel strict), and the whole-SVG pass guarded only the string, which is never made; the
// element was already live in the page while mermaid drew it, as it is without the patch. The page
// still scrubs it (webview/svgNodes.ts) under its CSP. BRAID_MERMAID_LIVE=0 builds without it (the
// page then reads the string, as before).
const SERIALIZE = '  const svgCode = false ? await profiler.span("serialize", serializeSvg) : serializeSvg();';
const LIVE_SVG = [
  '  const braidLiveSvg = config.braidLiveSvg === true ? svgNode.node() : void 0;',
  '  const svgCode = braidLiveSvg ? "" : false ? await profiler.span("serialize", serializeSvg) : serializeSvg();',
].join('\n');
const RESULT = '    svg: svgCode,\n    bindFunctions: diag.db.bindFunctions\n  };';
const LIVE_RESULT = '    svg: svgCode,\n    bindFunctions: diag.db.bindFunctions,\n    braidLiveSvg\n  };';
// 5. Every edge asks the browser for its path's length (getTotalLength), which lays the page out
// again with the half-drawn diagram in it; only edges of the "neo" look use the length (our
// diagrams use the classic look). Asked only for those: 0.4 s of a 1,000-step first render.
const EDGE_LENGTH = '    const len = typeof pathNode.getTotalLength === "function" ? pathNode.getTotalLength() : 0;';
const EDGE_LENGTH_NEO =
  '    const len = edge.look === "neo" && typeof pathNode.getTotalLength === "function" ? pathNode.getTotalLength() : 0;';
// 6. Each label goes through sanitizeText three times (parsing, sizing, drawing), each two
// DOMPurify passes that parse the text into a new document: 0.6 s of a 1,000-step first render.
// The result is a function of the text and the config, so it is kept per config object (a new one
// on every config change, so at most one render's labels are kept).
const SANITIZE_TEXT =
  'var sanitizeText = /* @__PURE__ */ __name((text, config2) => {\n  if (!text) {\n    return text;\n  }\n  if (config2.dompurifyConfig) {';
const SANITIZE_TEXT_MEMO = [
  'var braidSanitized = new WeakMap();',
  'var sanitizeText = (text, config2) => {',
  "  if (!text || typeof config2 !== 'object' || config2 === null) return braidSanitizeOnce(text, config2);",
  '  let memo = braidSanitized.get(config2);',
  '  if (!memo) { memo = new Map(); braidSanitized.set(config2, memo); }',
  '  let out = memo.get(text);',
  '  if (out === void 0) { out = braidSanitizeOnce(text, config2); memo.set(text, out); if (typeof out === "string" && !memo.has(out)) memo.set(out, out); }',
  '  return out;',
  '};',
  SANITIZE_TEXT.replace('var sanitizeText =', 'var braidSanitizeOnce ='),
].join('\n');
// 7. Sizing the graph draws a label for every edge, an empty one where the edge has no text:
// five elements a edge (a foreignObject with an HTML box in it, measured by the browser) that
// lay out to 0 × 0 and draw nothing, 7,500 of them at 1,000 steps. An edge with no text gets no
// label and the 0 × 0 size it would have measured (as drawing the edges already does: mermaid's
// hasEdgeLabel), so dagre lays out the same graph; only the empty groups are gone from the SVG.
const EDGE_LABEL = '      await insertEdgeLabel(edgeLabels, edge);\n    });';
const EDGE_LABEL_IF_TEXT = [
  '      if (!(edge.label || edge.startLabelLeft || edge.startLabelRight || edge.endLabelLeft || edge.endLabelRight)) {',
  '        edge.width = 0;',
  '        edge.height = 0;',
  '        return;',
  '      }',
  EDGE_LABEL,
].join('\n');
/**
 * The patches in groups, each left out when its environment variable has its `off` value. `sameDrawing`:
 * the SVG drawn with and without it is the same (bench/mermaidPatches.ts compares them); `normalise`
 * says what else may differ, as a regular expression and its replacement applied to both.
 */
export const PATCH_GROUPS = [
  {
    env: 'BRAID_MERMAID_MEMO',
    off: '0',
    name: 'getConfig() memo',
    sameDrawing: true,
    patches: [{ name: 'getConfig() memo', find: GET_CONFIG, replace: MEMO_CONFIG }],
  },
  {
    env: 'BRAID_DAGRE_RANKER',
    off: 'network-simplex',
    name: 'tight-tree ranker past 200 nodes',
    sameDrawing: false,
    patches: [{ name: 'dagre ranker for big graphs', find: DAGRE_GRAPH, replace: DAGRE_RANKER }],
  },
  {
    env: 'BRAID_DAGRE_LAYERS',
    off: '0',
    name: 'dagre layer graphs by rank',
    sameDrawing: true,
    patches: [
      { name: 'dagre layer graphs by rank (index)', find: LAYER_GRAPHS, replace: LAYER_GRAPHS_INDEXED },
      { name: 'dagre layer graphs by rank (signature)', find: LAYER_GRAPH, replace: LAYER_GRAPH_NODES },
      { name: 'dagre layer graphs by rank (scan)', find: LAYER_GRAPH_SCAN, replace: LAYER_GRAPH_LIST },
    ],
  },
  // DOMPurify's pass also trimmed class attributes and escaped `>` in the style text.
  {
    env: 'BRAID_MERMAID_LIVE',
    off: '0',
    name: 'live SVG',
    sameDrawing: true,
    normalise: [
      [/class=" /g, 'class="'],
      [/ "/g, '"'],
      [/&gt;/g, '>'],
    ],
    patches: [
      { name: 'live SVG (no serialising)', find: SERIALIZE, replace: LIVE_SVG },
      { name: 'live SVG (result)', find: RESULT, replace: LIVE_RESULT },
    ],
  },
  {
    env: 'BRAID_MERMAID_EDGE_LENGTH',
    off: '0',
    name: 'edge length for neo edges only',
    sameDrawing: true,
    patches: [{ name: 'edge length for neo edges only', find: EDGE_LENGTH, replace: EDGE_LENGTH_NEO }],
  },
  {
    env: 'BRAID_MERMAID_SANITIZE_MEMO',
    off: '0',
    name: 'sanitizeText memo',
    sameDrawing: true,
    patches: [{ name: 'sanitizeText memo', find: SANITIZE_TEXT, replace: SANITIZE_TEXT_MEMO }],
  },
  {
    env: 'BRAID_MERMAID_EDGE_LABELS',
    off: '0',
    name: 'no empty edge labels',
    sameDrawing: true,
    normalise: [
      [
        /<g class="edgeLabel"><g class="label" data-id="[^"]*" transform="translate\(0, 0\)"><foreignObject width="0" height="0"><div [^>]*><span class="edgeLabel ?"><\/span><\/div><\/foreignObject><\/g><\/g>/g,
        '',
      ],
    ],
    patches: [{ name: 'no empty edge labels', find: EDGE_LABEL, replace: EDGE_LABEL_IF_TEXT }],
  },
];

/** The esbuild plugin applying the patches whose groups `env` does not switch off. */
export const mermaidPatches = (env = process.env) => ({
  name: 'mermaid-patches',
  setup(build) {
    const MERMAID_PATCHES = PATCH_GROUPS.filter((g) => env[g.env] !== g.off).flatMap((g) => g.patches);
    const applied = new Set();
    build.onLoad(
      {
        filter:
          /node_modules[\\/](mermaid[\\/]dist[\\/](chunks[\\/].*|mermaid\.core)\.mjs|dagre-d3-es[\\/]src[\\/]dagre[\\/]order[\\/][a-z-]+\.js)$/,
      },
      async (args) => {
        let text = await readFile(args.path, 'utf8');
        const mine = MERMAID_PATCHES.filter((p) => text.includes(p.find));
        if (mine.length === 0) return undefined;
        for (const p of mine) {
          text = text.replace(p.find, p.replace);
          applied.add(p.name);
        }
        return { contents: text, loader: 'js' };
      },
    );
    // Thrown, not pushed onto result.errors: esbuild neither logs nor fails on those.
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      const missing = MERMAID_PATCHES.filter((p) => !applied.has(p.name)).map((p) => p.name);
      if (missing.length > 0)
        throw new Error(
          `mermaid-patches: the code for ${missing.join(' and ')} was not found in mermaid's or dagre's code; update the pattern in scripts/mermaidPatches.mjs for this version`,
        );
    });
  },
});
