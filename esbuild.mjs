// One build for every bundle: the CLI/engine process (node), the extension (cjs, vscode external),
// the extension-host test suite, and the webview (browser).
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');

// mermaid's getConfig() deep-copies its whole config on every call, and rendering calls it for
// every node, edge and label: ~0.8 s of a 300-node first render in headless Chromium. The copy
// is only a defence against callers mutating it; the result is memoised per config object (a
// new one replaces it on every config change), which draws the same SVG (checked by
// bench/mermaidMemo.ts). If a mermaid upgrade changes the code, the build fails here rather than
// silently losing the memo. BRAID_MERMAID_MEMO=0 builds without it, for that comparison.
const GET_CONFIG = 'var getConfig = /* @__PURE__ */ __name(() => {\n  return assignWithDepth_default({}, currentConfig);\n}, "getConfig");';
const MEMO_CONFIG = [
  'var braidConfigFor, braidConfigCopy;',
  'var getConfig = /* @__PURE__ */ __name(() => {',
  '  if (braidConfigFor !== currentConfig) { braidConfigCopy = assignWithDepth_default({}, currentConfig); braidConfigFor = currentConfig; }',
  '  return braidConfigCopy;',
  '}, "getConfig");',
].join('\n');
const mermaidConfigMemo = {
  name: 'mermaid-config-memo',
  setup(build) {
    let patched = 0;
    build.onLoad({ filter: /node_modules[\\/]mermaid[\\/]dist[\\/]chunks[\\/].*\.mjs$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(GET_CONFIG)) return undefined;
      patched++;
      return { contents: text.replace(GET_CONFIG, MEMO_CONFIG), loader: 'js' };
    });
    build.onEnd((result) => {
      if (result.errors.length === 0 && patched === 0) {
        result.errors.push({ text: 'mermaid-config-memo: getConfig() was not found in mermaid\'s chunks; update the pattern in esbuild.mjs for this mermaid version' });
      }
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
    plugins: process.env.BRAID_MERMAID_MEMO === '0' ? [] : [mermaidConfigMemo] },
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
