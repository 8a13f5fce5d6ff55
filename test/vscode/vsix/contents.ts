// What the .vsix must hold: exactly the allowlist of .vscodeignore (manifest, README, licence,
// media, the bundles and the CLI's chunks, the plan schema), read from the project so a new media file or webview
// chunk needs no edit here; and never sources, tests, dependencies or source maps.
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

/**
 * Source maps are left out: the extension host does not apply them (no --enable-source-maps), so
 * they would not improve a user's stack trace, and the webview's alone is 14 MB against 3.8 MB of code.
 */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/^extension\/(src|test|bench|scripts|webview|node_modules)\//, 'sources, tests or dependencies'],
  [/\.map$/, 'a source map'],
  [/\.tsx?$/, 'TypeScript source'],
  [/^extension\/\.braid\//, 'run records'],
];

function filesUnder(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(root, rel));
    else out.push(rel.split(sep).join('/'));
  }
  return out;
}

/** The zip entries a correct package has (vsce names the README `readme.md` and the licence `LICENSE.txt`). */
export function expectedEntries(projectRoot: string): string[] {
  const files = [
    'package.json',
    'readme.md',
    'LICENSE.txt',
    ...filesUnder(projectRoot, 'media'),
    'out/extension.js',
    'out/cli.js',
    'out/otelTracer.js',
    'out/plan.schema.json',
    ...filesUnder(projectRoot, join('out', 'webview')).filter((f) => !f.endsWith('.map')),
    // The CLI's command chunks that out/cli.js loads (an engine without them cannot start).
    ...filesUnder(projectRoot, join('out', 'cli')).filter((f) => !f.endsWith('.map')),
  ];
  return ['[Content_Types].xml', 'extension.vsixmanifest', ...files.map((f) => `extension/${f}`)].sort();
}

/** Every way `entries` differs from what it should be; empty when the package is right. */
export function contentProblems(entries: readonly string[], projectRoot: string): string[] {
  const expected = new Set(expectedEntries(projectRoot));
  const actual = new Set(entries.filter((e) => !e.endsWith('/'))); // zip directory entries, if any
  const problems: string[] = [];
  for (const e of actual) {
    const why = FORBIDDEN.find(([re]) => re.test(e));
    if (why) problems.push(`${e}: ${why[1]} must not be packaged`);
    else if (!expected.has(e)) problems.push(`${e}: not in the allowlist`);
  }
  for (const e of expected) if (!actual.has(e)) problems.push(`${e}: missing`);
  return problems.sort();
}
