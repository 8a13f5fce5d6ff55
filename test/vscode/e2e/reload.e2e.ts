// A run survives a window reload: the engine process keeps it going, and the reloaded window
// reattaches to it (graph panel restored by its serializer with its selection, and live again, the step's terminal
// back with its output so far, the status bar and the Runs view showing the run), then sees it end.
// The reload is the page's own (a new extension host), not a simulation in the old one.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { findGraphFrame, poll, type GraphFrame } from './graphFrame';
import { openFile, runCommand } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

const PLAN_FILE = 'reload-e2e.braid.yaml';
const PLAN = plan`
  version: 1
  name: Reload e2e
  steps:
    ticker:
      run: for i in $(seq 1 160); do echo "tick $i"; sleep 0.25; done
    after:
      needs: [ticker]
      run: echo after the reload
  `;

/** The names on the terminal panel's tabs (the tab list is always shown: see the settings). */
const terminalNames = (page: Page): Promise<string[]> =>
  page.locator('.terminal-tabs-entry').evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));

/** The text the active terminal shows (DOM renderer: GPU acceleration is off). */
const terminalText = (page: Page): Promise<string> =>
  page
    .locator('.terminal-wrapper.active .xterm-rows')
    .first()
    .textContent({ timeout: 2_000 })
    .then((t) => t ?? '');

const statusBarTexts = (page: Page): Promise<string[]> =>
  page.locator('.part.statusbar .statusbar-item').evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));

describe('a window reload during a run', function () {
  this.bail(true);
  let wb: Workbench;
  let graph: GraphFrame;

  useWorkbench(
    {
      name: 'reload',
      settings: { 'terminal.integrated.tabs.hideCondition': 'never', 'terminal.integrated.gpuAcceleration': 'off' },
      prepare: (dir) => {
        writeFileSync(join(dir, PLAN_FILE), PLAN);
      },
    },
    (b) => {
      wb = b;
    },
  );

  it('a run started from the graph shows its step as a terminal task', async () => {
    await openFile(wb, PLAN_FILE);
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 60_000);
    await graph.button('run-plan').click();
    await poll('ticker running', async () => (await graph.statuses()).ticker === 'running', 30_000, 50);
    await graph.node('ticker').click();
    await graph.logPane('ticker').waitFor({ state: 'visible', timeout: 15_000 });
    await runCommand(wb, 'Terminal: Focus Terminal');
    await poll(
      'a terminal named ticker',
      async () => (await terminalNames(wb.page)).some((n) => n.includes('ticker')),
      20_000,
    );
    await poll('tick output in it', async () => /tick \d/.test(await terminalText(wb.page)), 20_000);
  });

  it('after the reload the graph, the terminal, the status bar and the Runs view reattach to the run', async () => {
    await wb.reload();
    // The graph panel comes back by itself (WebviewPanelSerializer), showing the live run.
    graph = await findGraphFrame(wb.page, 60_000);
    const s = await graph.statuses();
    assert.equal(s.ticker, 'running', `the restored graph shows the run still going: ${JSON.stringify(s)}`);
    assert.equal(s.after, 'pending');
    // The selection survived too (the panel's state): the ticker's log pane is open, and live.
    const pane = graph.logPane('ticker');
    await pane.waitFor({ state: 'visible', timeout: 15_000 });
    await poll('ticks in the restored log pane', async () => /tick \d/.test((await pane.textContent()) ?? ''), 15_000);
    await poll(
      'the status bar item of the active run',
      async () => (await statusBarTexts(wb.page)).some((t) => /Braid \d+\/2/.test(t)),
      20_000,
    );
    await wb.screenshot('reload-reattached');
    await runCommand(wb, 'Terminal: Focus Terminal');
    await poll(
      'the ticker terminal back',
      async () => (await terminalNames(wb.page)).some((n) => n.includes('ticker')),
      20_000,
    );
    // Its output before the reload, from the log, and new output after it, from the engine.
    // Its output from before the reload (replayed from the log: the old terminal died with the
    // old window), then new output from the engine.
    const lastTick = (t: string) => Math.max(...[...t.matchAll(/tick (\d+)/g)].map((m) => Number(m[1])));
    // Its tab, not whichever terminal is active after the reload (Focus Terminal may open a shell).
    // On its name, at the left: the entry's right end holds its split and kill buttons.
    await wb.page
      .locator('.terminal-tabs-entry', { hasText: 'ticker' })
      .first()
      .click({ position: { x: 12, y: 8 } });
    await poll('output in the new terminal', async () => /tick \d/.test(await terminalText(wb.page)), 20_000);
    await runCommand(wb, 'Terminal: Scroll to Top');
    await poll(
      'the replayed start of the output',
      async () => {
        const t = await terminalText(wb.page);
        return t.includes('reattached') && /tick 1(?!\d)/.test(t);
      },
      10_000,
    );
    await runCommand(wb, 'Terminal: Scroll to Bottom');
    const seen = lastTick(await terminalText(wb.page));
    await poll('new ticks after the reload', async () => lastTick(await terminalText(wb.page)) > seen, 20_000);
    await runCommand(wb, 'Braid: Focus on Runs View');
    await poll(
      'the run in the Runs view',
      async () => (await wb.page.locator('.monaco-list-row', { hasText: 'Reload e2e' }).count()) > 0,
      20_000,
    );
  });

  it('the reloaded window sees the run end', async () => {
    await poll(
      'both steps to succeed in the graph',
      async () => {
        const s = await graph.statuses();
        return s.ticker === 'succeeded' && s.after === 'succeeded';
      },
      60_000,
      100,
    );
    await poll(
      'the status bar item gone',
      async () => !(await statusBarTexts(wb.page)).some((t) => /Braid \d+\/2/.test(t)),
      20_000,
    );
    // The reloaded window followed the run it adopted to its end, and says so.
    // In the notification center: a toast can be held back by the workbench (notifications.ts).
    await runCommand(wb, 'Notifications: Show Notifications');
    await poll(
      'the end notification in the reloaded window',
      async () =>
        (await wb.page
          .locator('.notifications-center .notification-list-item', { hasText: 'Reload e2e succeeded' })
          .count()) > 0,
      15_000,
    );
    await wb.screenshot('reload-finished');
  });
});
