// One build for every bundle: the CLI/engine process (node), the extension (cjs, vscode external),
// the extension-host test suite, and the webview (browser).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import * as esbuild from 'esbuild';
import { mermaidPatches } from './scripts/mermaidPatches.mjs';

const watch = process.argv.includes('--watch');

const common = { bundle: true, sourcemap: true, logLevel: 'warning', legalComments: 'none' };

// OpenTelemetry is loaded only by a run that traces (src/core/telemetry/tracing.ts): its own file
// beside cli.js, so a run without an endpoint does not even parse it.
// `path` is as the importing bundle sees it: the CLI's chunks live one folder down, in out/cli/.
const otelApartAt = (path) => ({
  name: 'otel-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/otelTracer$/ }, () => ({ path, external: true }));
  },
});
const otelApart = otelApartAt('./otelTracer.js');

// yaml's node build reads process.env (a debug switch) for every token it parses, a third of the
// parser's time on a large plan; its browser build is the same code without that (#32).
const yamlBrowser = { yaml: './node_modules/yaml/browser/index.js' };
const node = { ...common, platform: 'node', format: 'cjs', target: 'node20', plugins: [otelApart], alias: yamlBrowser };
// The extension host provides `vscode`; mocha is bundled into the suite so it needs nothing at run time.
const extensionHost = { ...node, external: ['vscode'] };

const builds = [
  // The CLI: ES modules split by command (main.ts imports each command's modules when it runs), so a
  // command parses only what it uses; out/cli.js (written below) is the small entry that starts them.
  {
    ...node,
    format: 'esm',
    splitting: true,
    entryPoints: { main: 'src/cli/main.ts' },
    outdir: 'out/cli',
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    metafile: true,
    plugins: [otelApartAt('../otelTracer.js')],
    banner: {
      js: "import { createRequire as __braidRequire } from 'node:module'; const require = __braidRequire(import.meta.url);",
    },
  },
  { ...node, entryPoints: ['src/core/telemetry/otelTracer.ts'], outfile: 'out/otelTracer.js' },
  { ...extensionHost, entryPoints: ['src/extension/extension.ts'], outfile: 'out/extension.js' },
  // The graph panel's page: mermaid and our code in one file, loaded by nonce under a strict CSP.
  {
    ...common,
    entryPoints: ['webview/main.ts'],
    outfile: 'out/webview/main.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: !watch,
    plugins: [mermaidPatches()],
    loader: { '.svg': 'text' },
  },
  // Test runner (loaded by --extensionTestsPath) and one bundle per test file, which it finds by name.
  // (mocha's parallel mode, never used here, require.resolve()s its worker files: that warning is noise.)
  {
    ...extensionHost,
    entryPoints: ['test/vscode/suite/index.ts'],
    outfile: 'out/test/vscode/index.js',
    logOverride: { 'require-resolve-not-external': 'silent' },
  },
  { ...extensionHost, entryPoints: ['test/vscode/suite/*.test.ts'], outdir: 'out/test/vscode/suite' },
  // The same runner runs these folders too, named by $BRAID_TEST_SUITE_DIR: the untrusted-workspace
  // suite, and the suite run against the extension installed from its .vsix.
  { ...extensionHost, entryPoints: ['test/vscode/trust/*.test.ts'], outdir: 'out/test/vscode/trust' },
  { ...extensionHost, entryPoints: ['test/vscode/vsix/suite/*.test.ts'], outdir: 'out/test/vscode/vsix' },
];

// A deleted test file must not leave its old bundle behind for the runner to pick up.
rmSync('out/test/vscode', { recursive: true, force: true });
// The CLI's entry is plain CommonJS at the path users, the extension and tests run; written whole
// (rename), as the chunks are, so that a CLI started while another process builds finds every file.
mkdirSync('out', { recursive: true });
writeFileSync(
  'out/cli.js.tmp',
  `#!/usr/bin/env node
'use strict';
// The \`braid\` command: starts out/cli/main.mjs, which loads each command's modules as it runs.
import('./cli/main.mjs').then((m) => m.start(__filename), (e) => { process.stderr.write(\`braid: cannot start: \${e.stack}\\n\`); process.exitCode = 70; });
`,
  { mode: 0o755 },
);
renameSync('out/cli.js.tmp', 'out/cli.js');

/** A changed CLI must not leave chunks it no longer loads behind (nor in the .vsix): they go after the build. */
function pruneCliChunks(result) {
  const kept = new Set(Object.keys(result.metafile.outputs).map((f) => basename(f)));
  for (const f of existsSync('out/cli') ? readdirSync('out/cli') : [])
    if (!kept.has(f)) rmSync(`out/cli/${f}`, { force: true });
}

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  pruneCliChunks(results[0]);
}
