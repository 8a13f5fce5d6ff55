// One build for every bundle: the CLI/engine process (node), the extension (cjs, vscode external),
// the extension-host test suite, and the webview (browser).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
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

// zod's 60 translations of its messages are half of zod (360 KB); Braid words its own messages and
// uses English where it does not, so the CLI and the graph's page bundle English alone.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (a) =>
      /[\\/]zod[\\/]/.test(a.importer) ? { path: 'zod-locales', namespace: 'zod-en' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-en' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: import.meta.dirname,
    }));
  },
};

// The CLI's files are written whole (rename), so that a CLI started while another process builds
// (the tests build in their `before`) reads the old file or the new one, never half of one.
// The CLI's bundle ends with its hash, the key of its V8 code cache (src/cli/bin.ts), so that a
// start need not load node:crypto to hash 2 MB.
const writtenWhole = {
  name: 'written-whole',
  setup(b) {
    b.initialOptions.write = false;
    b.onEnd((r) => {
      for (const f of r.outputFiles ?? []) {
        const keyed = /[\\/]cli[\\/](main|validate)\.js$/.test(f.path);
        const hash = createHash('sha1').update(f.contents).digest('hex').slice(0, 20);
        mkdirSync(dirname(f.path), { recursive: true });
        writeFileSync(`${f.path}.tmp`, keyed ? `${f.text}\n// braid-bundle ${hash}\n` : f.contents, {
          mode: f.path.endsWith('cli.js') ? 0o755 : 0o644,
        });
        renameSync(`${f.path}.tmp`, f.path);
      }
    });
  },
};

const webview = { ...common, platform: 'browser', format: 'iife', target: 'es2022', minify: !watch };

const builds = [
  // The CLI: CommonJS scripts that out/cli.js (src/cli/bin.ts) compiles with V8's code cache. Each
  // command's modules run only when main.ts imports them (`await import` becomes a lazy init).
  // `braid validate FILE...` has its own, without the engine (src/cli/bundleFor.ts).
  ...['main', 'validate'].map((name) => ({
    ...node,
    entryPoints: [name === 'main' ? 'src/cli/main.ts' : 'src/cli/validateMain.ts'],
    outfile: `out/cli/${name}.js`,
    plugins: [otelApartAt('../otelTracer.js'), zodEnglishOnly, writtenWhole],
    // The tracer is loaded with require: a script compiled by vm.Script has no import().
    supported: { 'dynamic-import': false },
  })),
  {
    ...node,
    entryPoints: ['src/cli/bin.ts'],
    outfile: 'out/cli.js',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [writtenWhole],
  },
  { ...node, entryPoints: ['src/core/telemetry/otelTracer.ts'], outfile: 'out/otelTracer.js' },
  { ...extensionHost, entryPoints: ['src/extension/extension.ts'], outfile: 'out/extension.js' },
  // The graph panel's page, loaded by nonce under a strict CSP; and mermaid apart (mermaid.js, ~90 % of
  // the bytes), which the page injects by the same nonce only when a graph needs it (webview/mermaidLoader.ts).
  {
    ...webview,
    entryPoints: ['webview/main.ts'],
    outfile: 'out/webview/main.js',
    loader: { '.svg': 'text' },
    plugins: [zodEnglishOnly],
  },
  {
    ...webview,
    entryPoints: ['webview/mermaidEntry.ts'],
    outfile: 'out/webview/mermaid.js',
    plugins: [mermaidPatches()],
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

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  // The chunks of the ES module build before this one (out/cli/*.mjs) must not linger, nor ship.
  for (const f of existsSync('out/cli') ? readdirSync('out/cli') : [])
    if (!/^(main|validate)\.js/.test(f)) rmSync(`out/cli/${f}`, { force: true });
}
