// Big plans in the workbench (issue #35 §3), read from the DOM: 5,000 steps open readable (labels
// ≥ 11 px at first paint) with an overview of the whole graph whose press moves the view; 10,000
// steps (the plan cap) draw with progress while a search finds, selects and follows a step not yet
// drawn (so the page answers while it draws); a run with a failed step far from the start opens on
// that step. The page's longest task is printed; its bound (200 ms) is checked by the bench.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { findGraphFrame, poll } from './graphFrame';
import { runCommand } from './palette';
import { layeredPlan, openFromExplorer } from './plans';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';

// As strings (tsx's keepNames wrappers do not exist in the page).
const MEASURE = `(() => {
  const graph = document.getElementById('graph');
  const scale = graph ? new DOMMatrix(getComputedStyle(graph).transform).a : 1;
  const vp = document.querySelector('.graph-viewport').getBoundingClientRect();
  const font = [];
  for (const l of document.querySelectorAll('g.node .nodeLabel')) {
    const r = l.getBoundingClientRect();
    if (r.height === 0 || r.right < vp.left || r.left > vp.right || r.bottom < vp.top || r.top > vp.bottom) continue;
    font.push(parseFloat(getComputedStyle(l).fontSize) * scale);
  }
  font.sort((a, b) => a - b);
  return { onScreen: font.length, medianFontPx: font.length ? font[Math.floor(font.length / 2)] : 0 };
})()`;
const TRANSFORM = `getComputedStyle(document.getElementById('graph')).transform`;
const longestTask = (f: Frame): Promise<number> =>
  f.evaluate(() => Number(document.body.getAttribute('data-longest-task-ms') ?? 'NaN'));

/** Is the step's node inside the graph's viewport? */
const inView = (f: Frame, stepId: string): Promise<boolean> =>
  f.evaluate((id) => {
    const g = document.querySelector(`g.node[data-step-id="${id}"]`);
    if (!g) return false;
    const r = g.getBoundingClientRect();
    const vp = document.querySelector('.graph-viewport')!.getBoundingClientRect();
    return r.left >= vp.left && r.right <= vp.right && r.top >= vp.top && r.bottom <= vp.bottom;
  }, stepId);

async function openGraph(wb: Workbench, file: string): Promise<void> {
  await runCommand(wb, 'View: Close All Editors');
  await openFromExplorer(wb, file);
  // The plan's lenses show once the extension is active and has read the plan: its commands answer then.
  await wb.page
    .locator('.codelens-decoration', { hasText: 'Show graph' })
    .first()
    .waitFor({ state: 'visible', timeout: 120_000 });
  await runCommand(wb, 'Braid: Show Graph');
}

/** The graph page's frame as soon as it exists (findGraphFrame waits for the whole drawing). */
async function graphPage(wb: Workbench): Promise<Frame> {
  return poll(
    'the graph page',
    async () => {
      for (const f of wb.page.frames()) {
        if (f === wb.page.mainFrame()) continue;
        const ok = await f.evaluate(() => document.querySelector('#app .toolbar') !== null).catch(() => false);
        if (ok) return f;
      }
      return undefined;
    },
    90_000,
    20,
  );
}

describe('big graphs in the workbench', function () {
  this.bail(true);
  let wb: Workbench;
  useWorkbench(
    {
      name: 'big-graph',
      viewport: { width: 1600, height: 900 },
      prepare: (dir) => {
        writeFileSync(join(dir, 'five.braid.yaml'), layeredPlan('Five thousand', 500, 10));
        writeFileSync(join(dir, 'ten.braid.yaml'), layeredPlan('Ten thousand', 1000, 10));
        // One step deep in a 300-step plan fails: the rest after it is skipped.
        writeFileSync(
          join(dir, 'fails.braid.yaml'),
          layeredPlan('Fails late', 30, 10).replace(
            '  s24_5:\n    name: step 24.5 build\n    run: "true"',
            '  s24_5:\n    name: step 24.5 build\n    run: "exit 1"',
          ),
        );
      },
    },
    (b) => {
      wb = b;
    },
  );

  it('5,000 steps: readable first view, an overview whose press moves the view, no long task', async function () {
    this.timeout(300_000);
    await openGraph(wb, 'five.braid.yaml');
    const graph = await findGraphFrame(wb.page, 240_000);
    const f = graph.frame;
    assert.equal(await f.locator('g.node[data-step-id]').count(), 5000);
    const first = await f.evaluate<{ onScreen: number; medianFontPx: number }>(MEASURE);
    process.stdout.write(`      5,000 steps: ${first.onScreen} labels on screen, median ${first.medianFontPx} px\n`);
    assert.ok(first.onScreen >= 20, `${first.onScreen} labels on screen`);
    assert.ok(first.medianFontPx >= 11, `median label ${first.medianFontPx} px`);
    await wb.screenshot('graph-5000-first-view');

    const overview = f.locator('.graph-overview');
    assert.equal(await overview.isVisible(), true, 'the overview shows past a screenful');
    const before = await f.evaluate(TRANSFORM);
    const windowBefore = await f.locator('.graph-overview-window').boundingBox();
    const box = (await overview.boundingBox())!;
    // At its right end: the end of the plan.
    await overview.click({ position: { x: box.width - 4, y: box.height / 2 } });
    const after = await f.evaluate(TRANSFORM);
    assert.notEqual(after, before, 'the view moved');
    const windowAfter = await f.locator('.graph-overview-window').boundingBox();
    assert.ok(windowAfter!.x > windowBefore!.x + box.width / 2, 'the window moved to the right end');
    const layers = await f.evaluate(() => {
      const vp = document.querySelector('.graph-viewport')!.getBoundingClientRect();
      const out: number[] = [];
      for (const g of Array.from(document.querySelectorAll('g.node[data-step-id]'))) {
        const r = g.getBoundingClientRect();
        if (r.right > vp.left && r.left < vp.right && r.bottom > vp.top && r.top < vp.bottom)
          out.push(Number(/^s(\d+)_/.exec(g.getAttribute('data-step-id') ?? '')?.[1]));
      }
      return out;
    });
    assert.ok(
      layers.length > 0 && Math.min(...layers) >= 480,
      `the view shows the plan's end: layers ${Math.min(...layers)}–${Math.max(...layers)}`,
    );
    await wb.screenshot('graph-5000-after-overview-click');
    const longest = await longestTask(f);
    // Its bound (200 ms) is a timing claim: the bench checks it (bench/graphOpen.ts); here it is reported.
    process.stdout.write(`      5,000 steps: longest task ${longest} ms\n`);
    assert.ok(Number.isFinite(longest), 'the page records its long tasks');
  });

  it('10,000 steps: progress while drawing, a search selects and follows a step not yet drawn, no long task', async function () {
    this.timeout(300_000);
    await openGraph(wb, 'ten.braid.yaml');
    const f = await graphPage(wb);
    await poll('the first node', async () => (await f.locator('g.node[data-step-id]').count()) > 0, 240_000, 20);
    // At once, in the page, as a user types and presses Enter: the state of the drawing then.
    const during = await f.evaluate(() => {
      const input = document.querySelector<HTMLInputElement>('.toolbar input[type="search"], .toolbar input')!;
      input.value = 'step 990.7 build';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      const progress = document.querySelector('.graph-progress');
      return {
        state: document.body.getAttribute('data-graph-state'),
        drawn: document.querySelectorAll('g.node[data-step-id]').length,
        progress: progress instanceof HTMLElement && !progress.hidden ? (progress.textContent ?? '') : '',
      };
    });
    process.stdout.write(`      10,000 steps: searched with ${during.drawn} drawn, progress "${during.progress}"\n`);
    assert.equal(during.state, 'rendering', 'the search ran while the graph was still being drawn');
    assert.ok(during.drawn < 10_000);
    assert.match(during.progress, /Drawing [\d,]+ of 10,000 steps/);
    await f
      .locator('g.node[data-step-id="s990_7"][data-selected="true"]')
      .waitFor({ state: 'attached', timeout: 240_000 });
    await poll('the found step in view', () => inView(f, 's990_7'), 30_000);
    await f.locator('body[data-graph-state="rendered"]').waitFor({ state: 'attached', timeout: 240_000 });
    assert.equal(await f.locator('g.node[data-step-id]').count(), 10_000);
    assert.equal(await f.locator('.graph-progress').isVisible(), false, 'progress gone once drawn');
    const longest = await longestTask(f);
    process.stdout.write(`      10,000 steps: longest task ${longest} ms\n`);
    assert.ok(Number.isFinite(longest), 'the page records its long tasks');
  });

  it('a run with a failed step deep in the plan opens on that step', async function () {
    this.timeout(300_000);
    await openGraph(wb, 'fails.braid.yaml');
    let graph = await findGraphFrame(wb.page, 120_000);
    assert.equal(await inView(graph.frame, 's24_5'), false, 'the step is off screen before the run');
    await graph.button('run-plan').click();
    await poll('s24_5 to fail', async () => (await graph.statuses()).s24_5 === 'failed', 240_000, 200);
    await poll('the run to end', async () => !(await graph.button('cancel-run').isVisible()), 60_000, 200);
    await openGraph(wb, 'fails.braid.yaml');
    graph = await findGraphFrame(wb.page, 120_000);
    assert.equal(await inView(graph.frame, 's24_5'), true, 'the first view shows the failed step');
    await wb.screenshot('graph-300-opens-on-failure');
  });
});
