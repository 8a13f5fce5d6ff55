// The run as a user reads it: a matrix group is one node with its counts until clicked; the bar
// over the graph says which run it shows, with its counts, a failed-only filter and a legend;
// laying out a big graph shows progress. Everything is asserted from the page's DOM.
import { strict as assert } from 'node:assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findGraphFrame, poll, type GraphFrame } from './graphFrame';
import { recordNotifications, seenNotifications } from './notifications';
import { openFile, runCommand } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

const TOOLS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];

function matrixPlan(): string {
  return plan`
    version: 1
    name: Research
    concurrency: 4
    steps:
      plan:
        run: sleep 1.5; echo planned
      research:
        needs: [plan]
        matrix:
          tool: [${TOOLS.join(', ')}]
        run: 'if [ "\${{ matrix.tool }}" = c ]; then echo "c broke" >&2; exit 2; fi; echo "\${{ matrix.tool }} done"'
      report:
        needs: [research]
        run: echo report
    `;
}

function bigMatrixPlan(): string {
  const items = Array.from({ length: 300 }, (_, i) => `i${i}`);
  return plan`
    version: 1
    name: Wide
    steps:
      fan:
        matrix:
          item: [${items.join(', ')}]
        run: "true"
      join:
        needs: [fan]
        run: "true"
    `;
}

describe('the run as a user reads it', function () {
  this.bail(true);
  let wb: Workbench;
  let graph: GraphFrame;

  useWorkbench(
    {
      name: 'views',
      viewport: { width: 1600, height: 900 },
      prepare: (dir) => {
        writeFileSync(join(dir, 'research.braid.yaml'), matrixPlan());
        writeFileSync(join(dir, 'wide.braid.yaml'), bigMatrixPlan());
        writeFileSync(
          join(dir, 'streams.braid.yaml'),
          plan`
            version: 1
            name: Streams
            steps:
              talk:
                run: 'sleep 2; echo "start $(printf "x%.0s" $(seq 1 400)) END"; echo "bad thing" >&2; echo fine; sleep 1'
            `,
        );
        // claude is not installed on the machines this runs on (the test checks that first).
        writeFileSync(
          join(dir, 'agentless.braid.yaml'),
          plan`
            version: 1
            name: Agentless
            steps:
              prep:
                run: echo prep
              draft:
                needs: [prep]
                prompt: write the draft
                agent: claude
            `,
        );
      },
    },
    (b) => {
      wb = b;
    },
  );

  const counts = (): Promise<string> =>
    graph.frame.evaluate(
      () => document.querySelector('g.node[data-group="research"] .braid-counts')?.textContent ?? 'missing',
    );

  it('a matrix group is one node with its counts; they change in place as the run goes; the bar names the run', async function () {
    this.timeout(150_000);
    await openFile(wb, 'research.braid.yaml');
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 90_000);
    assert.equal(
      await graph.frame.locator('g.node[data-group="research"]').count(),
      1,
      'one node for the ten instances',
    );
    assert.equal(await graph.frame.locator('g.node[data-step-id]').count(), 3, 'plan, research, report');
    assert.equal(await counts(), '0/10 ✓');
    assert.match((await graph.frame.locator('.run-summary').textContent()) ?? '', /No run yet/);
    await graph.markDiagram();
    await runCommand(wb, 'Notifications: Show Notifications');
    await recordNotifications(wb.page);
    await runCommand(wb, 'Notifications: Hide Notifications');
    await graph.button('run-plan').click();
    // Progress where it hides nothing: the status bar and the run bar, no toast over the panel.
    const bar = await poll(
      'progress in the status bar',
      async () => {
        const t = await wb.page.locator('.statusbar-item', { hasText: 'Braid' }).allTextContents();
        return t.find((x) => /Braid \d+\/12/.test(x));
      },
      15_000,
      50,
    );
    const running = (await graph.frame.locator('.run-summary').textContent()) ?? '';
    assert.match(running, / · running · /, running);
    await wb.screenshot('views-running');
    await poll('the run to end', async () => (await graph.statuses()).report === 'skipped', 60_000);
    const toasts = await seenNotifications(wb.page);
    assert.ok(
      !toasts.some((t) => t.buttons.includes('Cancel')),
      `no progress toast by default: ${JSON.stringify(toasts)}`,
    );
    process.stdout.write(`      status bar during the run: ${bar}\n`);
    assert.equal(await counts(), '9/10 ✓ · 1 ✗');
    assert.ok(await graph.sameDiagram(), 'counts changed without laying the graph out again');
    // The run's end arrives after its last step's: the bar says so once it has.
    const summary = await poll(
      'the run bar to say the run ended',
      async () => {
        const t = (await graph.frame.locator('.run-summary').textContent()) ?? '';
        return / · running · /.test(t) ? undefined : t;
      },
      15_000,
    );
    assert.match(summary, /^Run \S+ · started .+ · failed · \d/, summary);
    assert.equal(await graph.frame.locator('.run-older').isVisible(), false, 'the latest run is not marked older');
    assert.equal(await graph.frame.locator('.run-counts').textContent(), '10/12 ✓ · 1 ✗ · 1 ⊘');
    await wb.screenshot('views-matrix-collapsed');
  });

  it('failed only dims every node that did not fail; the legend explains each icon', async function () {
    this.timeout(60_000);
    const opacity = (sel: string): Promise<number> =>
      graph.frame.evaluate((s) => Number(getComputedStyle(document.querySelector(s)!).opacity), sel);
    await graph.frame.locator('button[data-view="failed-only"]').click();
    assert.equal(await graph.frame.locator('button[data-view="failed-only"]').getAttribute('aria-pressed'), 'true');
    assert.ok((await opacity('g.node[data-step-id="report"]')) < 0.5, 'a skipped step fades');
    assert.ok((await opacity('g.node[data-step-id="plan"]')) < 0.5, 'a succeeded step fades');
    assert.equal(await opacity('g.node[data-group="research"]'), 1, 'the group holding the failure stays');
    await graph.frame.locator('.legend > summary').click();
    const items = await graph.frame.locator('.legend li').count();
    const icons = await graph.frame.locator('.legend li svg').count();
    assert.equal(items, 9);
    assert.equal(icons, 9, 'each status with its icon');
    await wb.screenshot('views-failed-only-legend');
    await graph.frame.locator('.legend > summary').click();
    await graph.frame.locator('button[data-view="failed-only"]').click();
    assert.equal(await opacity('g.node[data-step-id="report"]'), 1);
  });

  it('a click expands the group into its instances; a click on its frame collapses it again', async function () {
    this.timeout(60_000);
    await graph.frame.locator('g.node[data-group="research"]').click();
    await poll(
      'ten instance nodes',
      async () => (await graph.frame.locator('g.node[data-step-id^="research-"]').count()) === 10,
      30_000,
    );
    const s = await graph.statuses();
    assert.equal(s['research-c'], 'failed');
    assert.equal(s['research-a'], 'succeeded');
    assert.equal(
      await graph.frame.locator('g.cluster[data-group="research"]').count(),
      1,
      'the group is a frame to collapse it by',
    );
    await wb.screenshot('views-matrix-expanded');
    await graph.frame.locator('g.cluster[data-group="research"] .cluster-label').click();
    await poll(
      'one node again',
      async () => (await graph.frame.locator('g.node[data-group="research"]').count()) === 1,
      30_000,
    );
    assert.equal(await counts(), '9/10 ✓ · 1 ✗');
  });

  it('the lens of a matrix step sums up its instances; its Log asks which instance', async function () {
    this.timeout(60_000);
    const summary = await poll(
      'the matrix lens',
      async () => {
        const texts = await wb.page.locator('.monaco-editor .codelens-decoration').allTextContents();
        return texts.find((t) => t.includes('9 ✓ · 1 ✗ · slowest'));
      },
      20_000,
    );
    assert.match(summary, /9 ✓ · 1 ✗ · slowest \d/, summary);
    const line = wb.page.locator('.monaco-editor .codelens-decoration', { hasText: '9 ✓ · 1 ✗' });
    await line.locator('a', { hasText: /^Log$/ }).click();
    const rows = wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await wb.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Show Log of which instance?' })
      .waitFor({ state: 'visible', timeout: 10_000 });
    await poll('ten instances to pick from', async () => (await rows.count()) === 10, 10_000);
    const first = (await rows.first().textContent()) ?? '';
    assert.match(first, /c.*failed/i, `the failed instance first: ${first}`);
    await wb.screenshot('views-matrix-lens-log-picker');
    await wb.page.keyboard.press('Escape');
  });

  it('the Runs tree groups the instances under their matrix step, with counts, and filters to failed only', async function () {
    this.timeout(60_000);
    await runCommand(wb, 'Braid: Focus on Runs View');
    const rows = wb.page.locator('.pane-body .monaco-list-row');
    const runRow = rows.filter({ hasText: 'Research' }).filter({ hasText: '10/12 ✓' });
    await runRow.first().waitFor({ state: 'visible', timeout: 20_000 });
    if ((await runRow.first().getAttribute('aria-expanded')) !== 'true') await runRow.first().click();
    const group = rows.filter({ hasText: /^research9\/10 ✓ · 1 ✗/ });
    await poll('the research group row', async () => (await group.count()) === 1, 20_000);
    await poll(
      'its ten instances under it',
      async () => (await rows.allTextContents()).filter((t) => t.startsWith('research-')).length === 10,
      20_000,
    );
    const before = await rows.allTextContents();
    assert.ok(
      before.some((t) => t.startsWith('plan')),
      before.join(' | '),
    );
    await wb.screenshot('views-tree-grouped');
    await runCommand(wb, 'Braid: Show Failed Steps Only');
    await poll(
      'only the failure left',
      async () => !(await rows.allTextContents()).some((t) => t.startsWith('plan')),
      10_000,
    );
    const after = await rows.allTextContents();
    process.stdout.write(`      failed only: ${after.join(' | ')}\n`);
    assert.ok(
      after.some((t) => /^research9\/10/.test(t)),
      'the group holding the failure stays',
    );
    assert.ok(!after.some((t) => t.startsWith('report')), 'the skipped step goes');
    await wb.screenshot('views-tree-failed-only');
    await runCommand(wb, 'Braid: Show All Steps');
    await poll('every step back', async () => (await rows.allTextContents()).some((t) => t.startsWith('plan')), 10_000);
  });

  it('laying out 300 instances shows progress while mermaid works', async function () {
    this.timeout(180_000);
    await runCommand(wb, 'View: Close All Editors');
    await openFile(wb, 'wide.braid.yaml');
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 90_000);
    assert.equal(await graph.frame.locator('g.node[data-group="fan"] .braid-counts').textContent(), '0/300 ✓');
    // Watch the progress element from before the click: shown while laying out, hidden after.
    await graph.frame.evaluate(() => {
      const w = window as unknown as { __progress: string[] };
      w.__progress = [];
      const p = document.querySelector('.graph-progress')!;
      new MutationObserver(() =>
        w.__progress.push(p.hasAttribute('hidden') ? 'hidden' : `shown:${p.textContent}`),
      ).observe(p, { attributes: true, attributeFilter: ['hidden'] });
    });
    await graph.frame.locator('g.node[data-group="fan"]').click();
    await poll(
      '300 instance nodes',
      async () => (await graph.frame.locator('g.node[data-step-id^="fan-"]').count()) === 300,
      120_000,
    );
    const seen = await graph.frame.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
    const ms = await graph.frame.evaluate(() => document.body.getAttribute('data-layout-ms'));
    process.stdout.write(`      laying out 302 nodes took ${ms} ms; progress: ${seen.join(' → ')}\n`);
    assert.deepEqual(seen, ['shown:Laying out 301 steps…', 'hidden']);
    await wb.screenshot('views-wide-expanded');
  });

  it('a plan needing a CLI that is not installed: a warning on its agent line before any run (a teammate may have it); Run says so whole, with Copy', async function () {
    this.timeout(90_000);
    const onPath = (process.env.PATH ?? '').split(':').some((d) => existsSync(join(d, 'claude')));
    if (onPath) this.skip();
    await runCommand(wb, 'View: Close All Editors');
    await openFile(wb, 'agentless.braid.yaml');
    await runCommand(wb, 'View: Focus Problems (Errors, Warnings, Infos)');
    const problem = await poll(
      'the missing CLI in Problems',
      async () => {
        const rows = await wb.page.locator('.markers-panel .monaco-list-row').allTextContents();
        return rows.find((r) => r.includes('claude is not installed'));
      },
      30_000,
    );
    assert.match(
      problem,
      /claude is not installed on this machine; needed by step draft; install it with npm install -g @anthropic-ai\/claude-code/,
    );
    assert.match(problem, /\[Ln 9, Col 5\]/, `on the agent line: ${problem}`);
    await runCommand(wb, 'Notifications: Show Notifications');
    await recordNotifications(wb.page);
    await runCommand(wb, 'Notifications: Hide Notifications');
    await runCommand(wb, 'Braid: Run Plan');
    const toast = await poll(
      'the missing CLI notification',
      async () => (await seenNotifications(wb.page)).find((t) => t.text.includes('needs claude')),
      20_000,
    );
    assert.match(
      toast.text,
      /Agentless needs claude, which is not installed\. Install it with: npm install -g @anthropic-ai\/claude-code/,
    );
    assert.ok(toast.buttons.includes('Copy Install Command'), JSON.stringify(toast.buttons));
    await wb.screenshot('views-missing-cli');
    await wb.page
      .locator('.notification-list-item .monaco-button', { hasText: 'Copy Install Command' })
      .first()
      .click();
    await poll(
      'the copy confirmed',
      async () =>
        (await seenNotifications(wb.page)).some((t) =>
          t.text.includes('copied "npm install -g @anthropic-ai/claude-code"'),
        ),
      10_000,
    );
    assert.ok(!(await wb.page.locator('.statusbar-item', { hasText: /Braid \d+\/2/ }).count()), 'no run started');
  });

  it('New Plan with no agent CLI says so before asking the goal, and offers the template or an install command', async function () {
    this.timeout(60_000);
    const onPath = (process.env.PATH ?? '')
      .split(':')
      .some((d) => ['claude', 'codex', 'gemini'].some((c) => existsSync(join(d, c))));
    if (onPath) this.skip();
    await runCommand(wb, 'Braid: New Plan');
    const draftRow = wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', {
      hasText: 'Draft with an agent',
    });
    await draftRow.waitFor({ state: 'visible', timeout: 10_000 });
    assert.match((await draftRow.textContent()) ?? '', /none is installed/);
    await draftRow.click();
    const offer = await poll(
      'the offer',
      async () => (await seenNotifications(wb.page)).find((t) => t.text.includes('drafting a plan needs an agent CLI')),
      10_000,
    );
    assert.deepEqual(
      offer.buttons.filter((b) => b !== ''),
      ['Start from Template', 'Copy Install Command'],
    );
    assert.match(offer.text, /Install claude with: npm install -g @anthropic-ai\/claude-code/);
    await wb.screenshot('views-new-plan-no-agent');
    assert.equal(
      await wb.page.locator('.quick-input-widget .quick-input-box input').isVisible(),
      false,
      'no goal asked',
    );
    await wb.page.locator('.notification-list-item .monaco-button', { hasText: 'Start from Template' }).first().click();
    const name = wb.page.locator('.quick-input-widget .quick-input-box input');
    await name.waitFor({ state: 'visible', timeout: 10_000 });
    await name.fill('fresh');
    await wb.page.keyboard.press('Enter');
    await poll(
      'the template opened',
      async () => (await wb.page.locator('.tab', { hasText: 'fresh.braid.yaml' }).count()) > 0,
      15_000,
    );
  });

  it('the log pane marks what the step wrote to stderr and scrolls to the end of a long line', async function () {
    this.timeout(90_000);
    await runCommand(wb, 'View: Close All Editors');
    await openFile(wb, 'streams.braid.yaml');
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 60_000);
    await graph.button('run-plan').click();
    await poll('talk running', async () => (await graph.statuses()).talk === 'running', 30_000, 50);
    await graph.node('talk').click();
    const err = graph.frame.locator('.log-line[data-stream="stderr"]', { hasText: 'bad thing' });
    await err.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(
      await graph.frame.locator('.log-line[data-stream="stderr"]').count(),
      1,
      'only the stderr line is marked',
    );
    const gutter = await err.evaluate((e) => getComputedStyle(e, '::before').content);
    assert.equal(gutter, '"err"', 'marked by a word, not only a colour');
    const long = await graph.frame.evaluate(() => {
      const scroller = document.querySelector('.log-scroll')!;
      const line = Array.from(document.querySelectorAll('.log-line')).find((l) => l.textContent?.includes(' END'))!;
      scroller.scrollLeft = scroller.scrollWidth;
      const s = scroller.getBoundingClientRect();
      const range = document.createRange();
      range.selectNodeContents(line);
      const r = range.getBoundingClientRect();
      return {
        scrollWidth: scroller.scrollWidth,
        clientWidth: scroller.clientWidth,
        endVisible: r.right <= s.right + 1 && r.right > s.left,
      };
    });
    assert.ok(long.scrollWidth > long.clientWidth, `a long line scrolls sideways: ${JSON.stringify(long)}`);
    assert.ok(long.endVisible, `its end can be scrolled into view: ${JSON.stringify(long)}`);
    await graph.frame.evaluate(() => {
      document.querySelector('.log-scroll')!.scrollLeft = 0;
    });
    await wb.screenshot('views-log-stderr');
  });

  it('a graph of an older run says so in its bar; the bar and a collapsed group read in both high-contrast themes', async function () {
    this.timeout(180_000);
    await runCommand(wb, 'View: Close All Editors');
    await openFile(wb, 'research.braid.yaml');
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 60_000);
    const shownRun = (): Promise<string> =>
      graph.frame.evaluate(
        () => /Run (\S+)/.exec(document.querySelector('.run-summary')?.textContent ?? '')?.[1] ?? '',
      );
    const first = await shownRun();
    await graph.button('run-plan').click();
    const second = await poll(
      'a newer run',
      async () => {
        const id = await shownRun();
        return id !== first && id !== '' ? id : undefined;
      },
      30_000,
    );
    await poll(
      'it to end',
      async () => / · failed · /.test((await graph.frame.locator('.run-summary').textContent()) ?? ''),
      60_000,
    );
    assert.equal(await graph.frame.locator('.run-older').isVisible(), false);
    await runCommand(wb, 'Braid: Focus on Runs View');
    const runRows = wb.page.locator('.pane-body .monaco-list-row').filter({ hasText: /^Research\d+\/12 ✓/ });
    await poll('two Research runs in the tree', async () => (await runRows.count()) >= 2, 20_000);
    // The run's context menu: Show Graph (again if a click landed while the menu was still opening).
    await poll(
      'the older run in the graph',
      async () => {
        if ((await shownRun()) === first) return true;
        if (!(await wb.page.locator('.monaco-menu .action-label', { hasText: 'Show Graph' }).isVisible()))
          await runRows.nth(1).click({ button: 'right' });
        const item = wb.page.locator('.monaco-menu .action-label', { hasText: 'Show Graph' }).first();
        await item.waitFor({ state: 'visible', timeout: 5_000 });
        await item.hover();
        await item.click();
        await new Promise((r) => setTimeout(r, 500));
        return (await shownRun()) === first;
      },
      30_000,
      200,
    );
    assert.equal(await graph.frame.locator('.run-older').isVisible(), true, 'marked as an older run');
    assert.notEqual(first, second);
    await wb.screenshot('views-older-run');
    const kinds: Record<string, string> = {
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
      await wb.page.locator('.quick-input-widget .quick-input-box input').fill(theme);
      await wb.page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row .label-name')
        .getByText(theme, { exact: true })
        .first()
        .click({ timeout: 10_000 });
      await wb.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
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
            .locator('body[data-graph-state="rendered"] g.node[data-group="research"] .braid-counts')
            .count()) === 1,
        30_000,
      );
      await graph.frame.locator('.legend > summary').click();
      await wb.screenshot(`views-run-bar-${theme.replace(/ /g, '-').toLowerCase()}`);
      await graph.frame.locator('.legend > summary').click();
    }
  });
});
