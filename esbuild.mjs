// One build for every bundle: the CLI/engine process (node), later the extension (cjs, vscode external) and the webview (browser).
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const common = { bundle: true, sourcemap: true, logLevel: 'warning', legalComments: 'none' };

const builds = [
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'out/cli.js', platform: 'node', format: 'cjs', target: 'node20', banner: { js: '#!/usr/bin/env node' } },
];

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
