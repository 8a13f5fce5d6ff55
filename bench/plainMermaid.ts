// The baseline for the graph's first render: mermaid itself, as published (none of Braid's
// build patches), drawing the same text into a bare page with the same security level, in the
// same browser and session as Braid's page. The goals were set where this took 0.3 s
// at 50 steps and 1.2–1.6 s at 300; on a slower or busier machine both move together, so the
// ratio is the figure that carries across machines.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import type { Browser } from 'playwright-core';

const ROOT = resolve(__dirname, '..');

/** Builds the bare mermaid page into `dir`; returns its URL. */
export async function buildPlainMermaidPage(dir: string): Promise<string> {
  const entry = join(dir, 'plain-entry.mjs');
  writeFileSync(entry, "import mermaid from 'mermaid';\nwindow.mermaid = mermaid;\n");
  await esbuild.build({
    entryPoints: [entry],
    outfile: join(dir, 'plain-mermaid.js'),
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'warning',
    nodePaths: [join(ROOT, 'node_modules')],
  });
  writeFileSync(
    join(dir, 'plain.html'),
    [
      '<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"></head><body><div id="out"></div>',
      `<script src="${pathToFileURL(join(dir, 'plain-mermaid.js')).href}"></script>`,
      '</body></html>',
    ].join('\n'),
  );
  return pathToFileURL(join(dir, 'plain.html')).href;
}

// As a string: tsx's keepNames wrappers (`__name`) do not exist in the page. Render, insert the
// SVG, and lay it out: what a page must do before the diagram shows.
const RENDER = String.raw`async (text) => {
  window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', maxEdges: 50000, maxTextSize: 5000000, flowchart: { useMaxWidth: false, htmlLabels: true } });
  const t0 = performance.now();
  const { svg } = await window.mermaid.render('plain', text);
  const out = document.getElementById('out');
  out.innerHTML = svg;
  out.getBoundingClientRect();
  return { ms: performance.now() - t0, nodes: out.querySelectorAll('g.node').length };
}`;

/** One first render of `text` by plain mermaid in a fresh page. */
export async function plainMermaidRender(
  browser: Browser,
  url: string,
  text: string,
): Promise<{ ms: number; nodes: number }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(url);
    return await page.evaluate<{ ms: number; nodes: number }>(`(${RENDER})(${JSON.stringify(text)})`);
  } finally {
    await page.close();
  }
}
