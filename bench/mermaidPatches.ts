// Checks the webview build's patches to mermaid and dagre (scripts/mermaidPatches.mjs): the bundle
// is built with all of them and with each group left out, in a temp folder; a group marked
// `sameDrawing` must draw the same SVG as the full build for the bench's graphs (after its own
// `normalise`, e.g. the empty edge-label groups one patch leaves out), and the table shows what
// each saves at BIG steps (first render, median, the builds alternating).
// Alone: node --import tsx bench/mermaidPatches.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { launchChromium } from '../test/vscode/browser';
import { median, ms } from './stats';
import { graphMessage } from './webview';

const ROOT = resolve(__dirname, '..');

interface PatchGroup {
  readonly env: string;
  readonly off: string;
  readonly name: string;
  readonly sameDrawing: boolean;
  readonly normalise?: readonly (readonly [RegExp, string])[];
}

/** The webview bundle as esbuild.mjs builds it, with the patch groups `env` leaves on. */
async function bundle(dir: string, name: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { mermaidPatches } = (await import(pathToFileURL(join(ROOT, 'scripts', 'mermaidPatches.mjs')).href)) as {
    mermaidPatches: (env: NodeJS.ProcessEnv) => esbuild.Plugin;
  };
  // The page and mermaid's bundle, which the page loads from beside its own (webview/mermaidLoader.ts).
  const outfile = join(dir, name, 'main.js');
  await esbuild.build({
    entryPoints: { main: join(ROOT, 'webview', 'main.ts'), mermaid: join(ROOT, 'webview', 'mermaidEntry.ts') },
    outdir: join(dir, name),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [mermaidPatches(env)],
    loader: { '.svg': 'text' },
  });
  const html = join(dir, `${name}.html`);
  writeFileSync(
    html,
    `<!DOCTYPE html><html><head><link rel="stylesheet" href="${pathToFileURL(join(ROOT, 'media', 'graph.css')).href}"></head><body class="vscode-light"><div id="app"></div><script src="${pathToFileURL(outfile).href}"></script></body></html>`,
  );
  return pathToFileURL(html).href;
}

const RENDER = String.raw`(msg) => new Promise((done) => {
  const t0 = performance.now();
  const obs = new MutationObserver(() => {
    const st = document.body.getAttribute('data-graph-state');
    if (st !== 'rendered' && st !== 'error') return;
    obs.disconnect();
    done({ ms: performance.now() - t0, svg: (document.querySelector('#graph svg')?.outerHTML ?? st).replace(/braid-graph-\d+/g, 'G') });
  });
  obs.observe(document.body, { attributes: true, attributeFilter: ['data-graph-state'] });
  window.postMessage(msg, '*');
})`;

/**
 * The biggest graph mermaid still draws in the page: from 150 nodes on it is the ranked layout's
 * (webview/graph.ts RANKED_FROM_NODES), whose drawing these patches do not touch.
 */
const BIG = 140;

async function main(): Promise<void> {
  const { PATCH_GROUPS } = (await import(pathToFileURL(join(ROOT, 'scripts', 'mermaidPatches.mjs')).href)) as {
    PATCH_GROUPS: readonly PatchGroup[];
  };
  const dir = mkdtempSync(join(tmpdir(), 'braid-mermaid-patches-'));
  const browser = await launchChromium();
  try {
    const builds: { label: string; group?: PatchGroup; url: string }[] = [
      { label: 'all patches', url: await bundle(dir, 'all', {}) },
    ];
    for (const [i, g] of PATCH_GROUPS.entries())
      builds.push({ label: `without ${g.name}`, group: g, url: await bundle(dir, `without-${i}`, { [g.env]: g.off }) });
    const rows: string[] = [];
    const svgs = new Map<string, Map<number, string>>();
    const times = new Map<string, number[]>();
    for (const steps of [50, BIG]) {
      const msg = graphMessage(steps, 42);
      for (let run = 0; run < (steps === BIG ? 4 : 1); run++) {
        // Alternating the order: a browser's first pages are slower.
        for (const b of run % 2 === 0 ? builds : [...builds].reverse()) {
          const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
          await page.goto(b.url);
          await page.locator('#app .toolbar').waitFor({ state: 'attached', timeout: 30_000 });
          const r = await page.evaluate<{ ms: number; svg: string }>(`(${RENDER})(${JSON.stringify(msg)})`);
          await page.close();
          const bySteps = svgs.get(b.label) ?? new Map<number, string>();
          if (bySteps.has(steps) && bySteps.get(steps) !== r.svg)
            throw new Error(`${b.label}: two renders of the same ${steps}-step graph differ`);
          bySteps.set(steps, r.svg);
          svgs.set(b.label, bySteps);
          if (steps === BIG) times.set(b.label, [...(times.get(b.label) ?? []), r.ms]);
        }
      }
    }
    const full = svgs.get('all patches')!;
    const allMs = median(times.get('all patches')!);
    for (const b of builds) {
      const t = median(times.get(b.label)!);
      let drawing = '';
      if (b.group) {
        const norm = (s: string): string =>
          (b.group!.normalise ?? []).reduce((acc, [re, to]) => acc.replace(re, to), s);
        const same = [50, BIG].every((n) => norm(svgs.get(b.label)!.get(n)!) === norm(full.get(n)!));
        if (b.group.sameDrawing && !same) process.exitCode = 1;
        drawing = b.group.sameDrawing
          ? same
            ? '✓ same SVG'
            : '✗ DIFFERENT SVG'
          : same
            ? 'same (expected to differ)'
            : 'differs, by design';
      }
      rows.push(`| ${b.label} | ${ms(t)} | ${b.group ? `+${ms(t - allMs)}` : ''} | ${drawing} |`);
    }
    console.log(
      `\n### Webview build patches to mermaid and dagre: ${BIG}-step first render without each (median of 4, alternating), and the SVG drawn at 50 and ${BIG} steps\n`,
    );
    console.log('| build | first render | cost of leaving it out | drawing |\n|---|---|---|---|');
    for (const r of rows) console.log(r);
  } finally {
    await browser.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
