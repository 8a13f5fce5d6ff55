// Checks the esbuild plugin that memoises mermaid's getConfig() (esbuild.mjs): the webview bundle
// built with it and without it (BRAID_MERMAID_MEMO=0) must draw byte-identical SVG for the bench's
// graphs, and the table shows what the memo saves. Builds both bundles into a temp folder.
// Alone: node --import tsx bench/mermaidMemo.ts
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from '../test/vscode/browser';
import { median, ms } from './stats';
import { graphMessage } from './webview';

const ROOT = resolve(__dirname, '..');

function bundle(dir: string, memo: boolean): string {
  execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, env: { ...process.env, BRAID_MERMAID_MEMO: memo ? '1' : '0' }, stdio: 'inherit' });
  const file = join(dir, memo ? 'memo.js' : 'plain.js');
  cpSync(join(ROOT, 'out', 'webview', 'main.js'), file);
  return file;
}

const RENDER = String.raw`(msg) => new Promise((done) => {
  const t0 = performance.now();
  const obs = new MutationObserver(() => {
    const st = document.body.getAttribute('data-graph-state');
    if (st !== 'rendered' && st !== 'error') return;
    obs.disconnect();
    done({ ms: performance.now() - t0, svg: document.querySelector('#graph svg')?.outerHTML ?? st });
  });
  obs.observe(document.body, { attributes: true, attributeFilter: ['data-graph-state'] });
  window.postMessage(msg, '*');
})`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'braid-mermaid-memo-'));
  const browser = await launchChromium();
  try {
    const scripts = { plain: bundle(dir, false), memo: bundle(dir, true) };
    bundle(dir, true); // leave out/ as a normal build has it
    const rows: string[] = [];
    for (const steps of [50, 300]) {
      const msg = graphMessage(steps, 42);
      const times: Record<string, number[]> = { plain: [], memo: [] };
      const svgs: Record<string, string> = {};
      for (let run = 0; run < 4; run++) {
        // Alternating which goes first: a browser's first pages are slower.
        const order = Object.entries(scripts);
        if (run % 2 === 1) order.reverse();
        for (const [name, script] of order) {
          const html = join(dir, `${name}.html`);
          writeFileSync(html, `<!DOCTYPE html><html><head><link rel="stylesheet" href="${pathToFileURL(join(ROOT, 'media', 'graph.css')).href}"></head><body class="vscode-light"><div id="app"></div><script src="${pathToFileURL(script).href}"></script></body></html>`);
          const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
          await page.goto(pathToFileURL(html).href);
          await page.locator('#app .toolbar').waitFor({ state: 'attached', timeout: 30_000 });
          const r = (await page.evaluate(`(${RENDER})(${JSON.stringify(msg)})`)) as { ms: number; svg: string };
          times[name]!.push(r.ms);
          if (svgs[name] !== undefined && svgs[name] !== r.svg) throw new Error(`${name}: two renders of the same graph differ`);
          svgs[name] = r.svg;
          await page.close();
        }
      }
      const same = svgs.plain === svgs.memo;
      rows.push(`| ${steps} steps | ${ms(median(times.plain!))} | ${ms(median(times.memo!))} | ${same ? '✓ identical' : '✗ DIFFERENT'} (${svgs.memo!.length} chars) |`);
      if (!same) process.exitCode = 1;
    }
    console.log('\n### mermaid getConfig() memo: first render without and with it (median of 4, alternating which goes first), and the SVG drawn\n');
    console.log('| graph | without | with | SVG |\n|---|---|---|---|');
    for (const r of rows) console.log(r);
  } finally {
    await browser.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
