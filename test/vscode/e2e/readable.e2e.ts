// Is the graph readable as a user first sees it? In a 1600×900 workbench with the panel beside the
// plan (half the window), plans of 12, 60 and 300 steps: the median label on screen at first paint
// is at least 11 px (read from the DOM: the label's computed font size times the view's scale);
// the step pane opens only with a selection and closes when the canvas is clicked; a resize refits.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { findGraphFrame, poll } from './graphFrame';
import { openFile, runCommand } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

/** Steps in layers of `width`; each needs one or two steps of the layer before. */
function layeredPlan(name: string, layers: number, width: number): string {
  const lines = ['version: 1', `name: ${name}`, 'steps:'];
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < width; i++) {
      lines.push(`  s${l}_${i}:`, `    name: step ${l}.${i} build`, '    run: "true"');
      if (l > 0) lines.push(`    needs: [s${l - 1}_${i}${width > 1 ? `, s${l - 1}_${(i + 1) % width}` : ''}]`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** 20 independent chains of 3: the shape the issue saw drawn at 5 px. */
function chainsPlan(): string {
  const lines = ['version: 1', 'name: Twenty chains', 'steps:'];
  for (let c = 0; c < 20; c++) {
    for (let k = 0; k < 3; k++) {
      lines.push(`  c${c}_${k}:`, `    name: chain ${c} part ${k}`, '    run: "true"');
      if (k > 0) lines.push(`    needs: [c${c}_${k - 1}]`);
    }
  }
  return `${lines.join('\n')}\n`;
}

interface LabelFigures {
  readonly count: number;
  readonly medianFontPx: number;
  readonly medianBoxPx: number;
  readonly scale: number;
}

// A string (tsx's keepNames wrappers do not exist in the page): the labels' rendered sizes.
const MEASURE = `(() => {
  const graph = document.getElementById('graph');
  const scale = graph ? new DOMMatrix(getComputedStyle(graph).transform).a : 1;
  const font = [], box = [];
  for (const l of document.querySelectorAll('g.node .nodeLabel')) {
    const r = l.getBoundingClientRect();
    if (r.height === 0) continue;
    font.push(parseFloat(getComputedStyle(l).fontSize) * scale);
    box.push(r.height);
  }
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : 0; };
  return { count: font.length, medianFontPx: median(font), medianBoxPx: median(box), scale };
})()`;

const measure = (frame: Frame): Promise<LabelFigures> => frame.evaluate<LabelFigures>(MEASURE);

describe('graph readability in the workbench', function () {
  this.bail(true);
  let wb: Workbench;
  const plans: readonly { file: string; name: string; text: string; steps: number }[] = [
    { file: 'twelve.braid.yaml', name: 'Twelve', text: layeredPlan('Twelve', 4, 3), steps: 12 },
    { file: 'chains.braid.yaml', name: 'Twenty chains', text: chainsPlan(), steps: 60 },
    { file: 'big.braid.yaml', name: 'Three hundred', text: layeredPlan('Three hundred', 30, 10), steps: 300 },
  ];

  useWorkbench(
    {
      name: 'readable',
      viewport: { width: 1600, height: 900 },
      prepare: (dir) => {
        for (const p of plans) writeFileSync(join(dir, p.file), p.text);
        writeFileSync(
          join(dir, 'looks.braid.yaml'),
          plan`
            version: 1
            name: Looks
            concurrency: 4
            steps:
              ok:
                name: fine step
                run: echo fine
              bad:
                name: broken step
                run: echo broken; exit 3
              dep:
                name: needs broken
                needs: [bad]
                run: echo never
              long:
                name: long step
                run: sleep 60
            `,
        );
        // Quick Open finds only files that were there when the workbench opened.
        writeFileSync(
          join(dir, 'broken.braid.yaml'),
          plan`
            version: 1
            name: Broken
            steps:
              a:
                run: echo a
              b:
                nedds: [a]
                run: echo b
            `,
        );
      },
    },
    (b) => {
      wb = b;
    },
  );

  for (const plan of plans) {
    it(`${plan.steps} steps: labels at least 11 px at first paint, the step pane only with a selection`, async function () {
      this.timeout(150_000);
      await runCommand(wb, 'View: Close All Editors');
      await openFile(wb, plan.file);
      await runCommand(wb, 'Braid: Show Graph');
      const graph = await findGraphFrame(wb.page, 90_000);
      await poll(
        `${plan.steps} nodes`,
        async () => (await graph.frame.locator('g.node[data-step-id]').count()) === plan.steps,
        30_000,
      );
      const first = await measure(graph.frame);
      process.stdout.write(
        `      ${plan.steps} steps: ${first.count} labels drawn, median font ${first.medianFontPx.toFixed(1)} px, median box ${first.medianBoxPx.toFixed(1)} px, scale ${first.scale.toFixed(2)}\n`,
      );
      assert.ok(first.count > 0, 'labels are drawn');
      assert.ok(
        first.medianFontPx >= 11,
        `median label font ${first.medianFontPx.toFixed(1)} px at scale ${first.scale.toFixed(2)}`,
      );
      await wb.screenshot(`graph-readable-${plan.steps}`);

      const side = graph.frame.locator('aside.side');
      assert.equal(await side.isVisible(), false, 'no empty log pane before a step is selected');
      const someStep = plan.steps === 60 ? 'c0_0' : 's0_0';
      await graph.node(someStep).click();
      await side.waitFor({ state: 'visible', timeout: 10_000 });
      // A click on the canvas away from any node clears the selection and closes the pane.
      const empty = await graph.frame.evaluate(() => {
        const vp = document.querySelector('.graph-viewport')!.getBoundingClientRect();
        for (let y = vp.top + 4; y < vp.bottom; y += 7) {
          for (let x = vp.left + 4; x < vp.right; x += 7) {
            const hit = document.elementFromPoint(x, y);
            if (hit && !hit.closest('g.node') && hit.closest('.graph-viewport'))
              return { x: x - vp.left, y: y - vp.top };
          }
        }
        return undefined;
      });
      assert.ok(empty, 'some empty canvas to click');
      await graph.frame.locator('.graph-viewport').click({ position: empty });
      await side.waitFor({ state: 'hidden', timeout: 10_000 });
    });
  }

  it('Show Graph on a plan that does not validate lists its problems, located; a click shows the line', async function () {
    this.timeout(120_000);
    await runCommand(wb, 'View: Close All Editors');
    await openFile(wb, 'broken.braid.yaml');
    await runCommand(wb, 'Braid: Show Graph');
    const frame = await poll(
      'the graph page with its problems',
      async () => {
        for (const f of wb.page.frames()) {
          if (f === wb.page.mainFrame()) continue;
          const n = await f
            .locator('section.problems button.problem')
            .count()
            .catch(() => 0);
          if (n > 0) return f;
        }
        return undefined;
      },
      60_000,
    );
    const title = await frame.locator('section.problems h2').textContent();
    assert.match(title ?? '', /broken\.braid\.yaml cannot be drawn: 1 problem/);
    const first = frame.locator('section.problems button.problem').first();
    assert.match((await first.textContent()) ?? '', /^7:5 .*nedds/);
    await wb.screenshot('graph-invalid-plan');
    await first.click();
    // The editor's cursor goes to the problem: the status bar says where.
    await poll(
      'the cursor on line 7',
      async () => (await wb.page.locator('.statusbar-item', { hasText: /Ln 7, Col 5/ }).count()) > 0,
      15_000,
    );
  });

  it('status reads without colour: each status its own icon and outline, a time on each node that ran; selection is an outline of its own', async function () {
    this.timeout(150_000);
    await runCommand(wb, 'View: Close All Editors');
    await openFile(wb, 'looks.braid.yaml');
    await runCommand(wb, 'Braid: Show Graph');
    const graph = await findGraphFrame(wb.page, 60_000);
    await graph.button('run-plan').click();
    await poll(
      'ok, bad, dep ended and long running',
      async () => {
        const s = await graph.statuses();
        return s.ok === 'succeeded' && s.bad === 'failed' && s.dep === 'skipped' && s.long === 'running';
      },
      60_000,
      100,
    );
    await graph.button('cancel-run').click();
    await poll('long canceled', async () => (await graph.statuses()).long === 'canceled', 30_000, 100);
    const look = (id: string): Promise<{ icon: string; dash: string; time: string; stroke: string; halo: string }> =>
      graph.frame.evaluate((stepId) => {
        const g = document.querySelector(`g.node[data-step-id="${stepId}"]`)!;
        const box = g.querySelector(':scope > rect:not(.braid-halo)')!;
        const halo = g.querySelector(':scope > rect.braid-halo');
        return {
          icon: g.querySelector('.braid-status svg')?.innerHTML ?? '',
          dash: getComputedStyle(box).strokeDasharray,
          time: g.querySelector('.braid-time')?.textContent ?? '',
          stroke: getComputedStyle(box).stroke,
          halo: halo ? getComputedStyle(halo).stroke : 'missing',
        };
      }, id);
    const [ok, bad, dep, long] = await Promise.all(['ok', 'bad', 'dep', 'long'].map(look));
    const icons = [ok!.icon, bad!.icon, dep!.icon, long!.icon];
    assert.ok(
      icons.every((i) => i.length > 0),
      'every node has a status icon',
    );
    assert.equal(new Set(icons).size, 4, 'succeeded, failed, skipped and canceled each have their own icon');
    const iconStroke = await graph.frame.evaluate(
      () => getComputedStyle(document.querySelector('g.node[data-step-id="ok"] .braid-status path')!).stroke,
    );
    assert.equal(iconStroke, 'none', 'the icon is drawn in its status colour alone (no theme stroke over it)');
    assert.notEqual(
      dep!.dash,
      long!.dash,
      `skipped (${dep!.dash}) and canceled (${long!.dash}) are outlined differently`,
    );
    assert.match(ok!.time, /\d/, 'a step that ran shows its time');
    assert.match(bad!.time, /\d/);
    assert.equal(dep!.time, '', 'a skipped step never ran: no time');
    // Selecting keeps the node's status outline; the selection is its own outline around it.
    const before = bad!.stroke;
    await graph.node('bad').click();
    const selected = await look('bad');
    assert.equal(selected.stroke, before, 'the failed outline stays when selected');
    assert.notEqual(selected.halo, 'none', 'the selection outline shows');
    const kinds: Record<string, string> = {
      'Dark Modern': 'vscode-dark',
      'Light Modern': 'vscode-light',
      'Dark High Contrast': 'vscode-high-contrast',
      'Light High Contrast': 'vscode-high-contrast-light',
    };
    for (const [theme, kind] of Object.entries(kinds)) {
      const input = await wb.openCommandPalette();
      await input.fill('>Preferences: Color Theme');
      await wb.page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Preferences: Color Theme' })
        .first()
        .click();
      const box = wb.page.locator('.quick-input-widget .quick-input-box input');
      await box.fill(theme);
      // Click the theme's own row: Enter could take whichever row led before the list filtered.
      await wb.page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row .label-name')
        .getByText(theme, { exact: true })
        .first()
        .click({ timeout: 10_000 });
      await wb.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
      // The theme reaches the webview as its body's class; then the graph is drawn again in its colours.
      await poll(
        `the page in ${theme}`,
        async () =>
          graph.frame.evaluate(
            (k) =>
              document.body.classList.contains(k) &&
              (k !== 'vscode-high-contrast' || !document.body.classList.contains('vscode-high-contrast-light')),
            kind,
          ),
        30_000,
      );
      await poll(
        `the graph redrawn for ${theme}`,
        async () =>
          (await graph.frame
            .locator('body[data-graph-state="rendered"] g.node[data-step-id="bad"] .braid-status svg')
            .count()) === 1,
        30_000,
      );
      await wb.screenshot(`graph-statuses-${theme.replace(/ /g, '-').toLowerCase()}`);
    }
  });

  it('refits when the panel is resized, and stays readable', async function () {
    this.timeout(120_000);
    // The chains fit the panel's width at a scale above the floor, so a narrower panel must refit.
    await runCommand(wb, 'View: Close All Editors');
    await openFile(wb, 'chains.braid.yaml');
    await runCommand(wb, 'Braid: Show Graph');
    const graph = await findGraphFrame(wb.page, 60_000);
    const before = await measure(graph.frame);
    const transform = (): Promise<string> =>
      graph.frame.evaluate(() => document.getElementById('graph')?.style.transform ?? '');
    const was = await transform();
    await wb.page.setViewportSize({ width: 1100, height: 900 });
    await poll('the view to refit', async () => (await transform()) !== was, 10_000);
    const after = await measure(graph.frame);
    assert.ok(
      after.medianFontPx >= 11,
      `after resize: ${after.medianFontPx.toFixed(1)} px (before ${before.medianFontPx.toFixed(1)})`,
    );
    await wb.screenshot('graph-readable-resized');
    await wb.page.setViewportSize({ width: 1600, height: 900 });
  });
});
