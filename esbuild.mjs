// One build for every bundle: the CLI/engine process (node), the extension (cjs, vscode external),
// the extension-host test suite, and the webview (browser).
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');

// Two patches to mermaid's own chunks, each found by its exact text: if a mermaid upgrade
// changes the code, the build fails here rather than silently losing a patch.
//
// 1. getConfig() deep-copies mermaid's whole config on every call, and rendering calls it for
// every node, edge and label: ~0.8 s of a 300-node first render in headless Chromium. The copy
// is only a defence against callers mutating it; the result is memoised per config object (a
// new one replaces it on every config change), which draws the same SVG (checked by
// bench/mermaidMemo.ts). BRAID_MERMAID_MEMO=0 builds without it, for that comparison.
const GET_CONFIG = 'var getConfig = /* @__PURE__ */ __name(() => {\n  return assignWithDepth_default({}, currentConfig);\n}, "getConfig");';
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
const DAGRE_GRAPH = '    marginx: 8,\n    marginy: 8\n  }).setDefaultEdgeLabel(function() {\n    return {};\n  });\n  data4Layout.nodes.forEach(';
const DAGRE_RANKER = DAGRE_GRAPH.replace('marginy: 8\n', `marginy: 8,\n    ranker: data4Layout.nodes.length >= ${TIGHT_TREE_FROM} ? "tight-tree" : "network-simplex"\n`);
const MERMAID_PATCHES = [
  ...(process.env.BRAID_MERMAID_MEMO === '0' ? [] : [{ name: 'getConfig() memo', find: GET_CONFIG, replace: MEMO_CONFIG }]),
  ...(process.env.BRAID_DAGRE_RANKER === 'network-simplex' ? [] : [{ name: 'dagre ranker for big graphs', find: DAGRE_GRAPH, replace: DAGRE_RANKER }]),
];
const mermaidPatches = {
  name: 'mermaid-patches',
  setup(build) {
    const applied = new Set();
    build.onLoad({ filter: /node_modules[\\/]mermaid[\\/]dist[\\/]chunks[\\/].*\.mjs$/ }, async (args) => {
      let text = await readFile(args.path, 'utf8');
      const mine = MERMAID_PATCHES.filter((p) => text.includes(p.find));
      if (mine.length === 0) return undefined;
      for (const p of mine) {
        text = text.replace(p.find, p.replace);
        applied.add(p.name);
      }
      return { contents: text, loader: 'js' };
    });
    // Thrown, not pushed onto result.errors: esbuild neither logs nor fails on those.
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      const missing = MERMAID_PATCHES.filter((p) => !applied.has(p.name)).map((p) => p.name);
      if (missing.length > 0) throw new Error(`mermaid-patches: the code for ${missing.join(' and ')} was not found in mermaid's chunks; update the pattern in esbuild.mjs for this mermaid version`);
    });
  },
};
const common = { bundle: true, sourcemap: true, logLevel: 'warning', legalComments: 'none' };

const node = { ...common, platform: 'node', format: 'cjs', target: 'node20' };
// The extension host provides `vscode`; mocha is bundled into the suite so it needs nothing at run time.
const extensionHost = { ...node, external: ['vscode'] };

const builds = [
  { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'out/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { ...extensionHost, entryPoints: ['src/extension/extension.ts'], outfile: 'out/extension.js' },
  // The graph panel's page: mermaid and our code in one file, loaded by nonce under a strict CSP.
  { ...common, entryPoints: ['webview/main.ts'], outfile: 'out/webview/main.js', platform: 'browser', format: 'iife', target: 'es2022', minify: !watch,
    plugins: [mermaidPatches], loader: { '.svg': 'text' } },
  // Test runner (loaded by --extensionTestsPath) and one bundle per test file, which it finds by name.
  // (mocha's parallel mode, never used here, require.resolve()s its worker files: that warning is noise.)
  { ...extensionHost, entryPoints: ['test/vscode/suite/index.ts'], outfile: 'out/test/vscode/index.js', logOverride: { 'require-resolve-not-external': 'silent' } },
  { ...extensionHost, entryPoints: ['test/vscode/suite/*.test.ts'], outdir: 'out/test/vscode/suite' },
  // The same runner runs these folders too, named by $BRAID_TEST_SUITE_DIR: the untrusted-workspace
  // suite, and the suite run against the extension installed from its .vsix.
  { ...extensionHost, entryPoints: ['test/vscode/trust/*.test.ts'], outdir: 'out/test/vscode/trust' },
  { ...extensionHost, entryPoints: ['test/vscode/vsix/suite/*.test.ts'], outdir: 'out/test/vscode/vsix' },
];

// A deleted test file must not leave its old bundle behind for the runner to pick up.
rmSync('out/test/vscode', { recursive: true, force: true });

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
