// One build for every bundle: the CLI/engine process (node), the extension (cjs, vscode external),
// the extension-host test suite, and the webview (browser).
import { rmSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { mermaidPatches } from './scripts/mermaidPatches.mjs';

const watch = process.argv.includes('--watch');

const common = { bundle: true, sourcemap: true, logLevel: 'warning', legalComments: 'none' };

// OpenTelemetry is loaded only by a run that traces (src/core/telemetry/tracing.ts): its own file
// beside cli.js, so a run without an endpoint does not even parse it.
const otelApart = {
  name: 'otel-apart',
  setup(b) { b.onResolve({ filter: /^\.\/otelTracer$/ }, () => ({ path: './otelTracer.js', external: true })); },
};

const node = { ...common, platform: 'node', format: 'cjs', target: 'node20', plugins: [otelApart] };
// The extension host provides `vscode`; mocha is bundled into the suite so it needs nothing at run time.
const extensionHost = { ...node, external: ['vscode'] };

const builds = [
  { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'out/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { ...node, entryPoints: ['src/core/telemetry/otelTracer.ts'], outfile: 'out/otelTracer.js' },
  { ...extensionHost, entryPoints: ['src/extension/extension.ts'], outfile: 'out/extension.js' },
  // The graph panel's page: mermaid and our code in one file, loaded by nonce under a strict CSP.
  { ...common, entryPoints: ['webview/main.ts'], outfile: 'out/webview/main.js', platform: 'browser', format: 'iife', target: 'es2022', minify: !watch,
    plugins: [mermaidPatches()], loader: { '.svg': 'text' } },
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
