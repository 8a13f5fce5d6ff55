// A best-of step on the graph, as a user sees it: one node with its alternatives' counts that
// change in place while they race and then name the winner; a click expands it into its
// alternatives (the winner starred) racing into the step, whose frame collapses it again; an
// alternative's node offers its change, which opens in the multi-file diff editor, and streams its
// own output alone while they race. Asserted from the page's DOM; screenshots of the collapsed,
// expanded and diff views.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FixtureWorkspace } from '../fixtureWorkspace';
import { findGraphFrame, poll, type GraphFrame } from './graphFrame';
import { openFile, runCommand } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

const PLAN_FILE = 'best-of-e2e.braid.yaml';
const LIVE_FILE = 'best-of-live.braid.yaml';

/** Two alternatives that print while they wait at a gate, again once through it, then wait for `GATE.done`. */
function livePlanText(gate: string): string {
  return plan`
    version: 1
    name: Best of live
    steps:
      choose:
        best-of: 2
        pick: check
        env: { GATE: ${JSON.stringify(gate)} }
        run: |
          echo "$BRAID_ALTERNATIVE waits at the gate"
          while [ ! -f "$GATE" ]; do sleep 0.05; done
          echo "$BRAID_ALTERNATIVE through the gate"
          while [ ! -f "$GATE.done" ]; do sleep 0.05; done
        check: 'echo "score: $BRAID_ALTERNATIVE"'
    `;
}

/** pick: check over three shell alternatives: 3 fails at once, 1 passes, 2 passes once the gate opens and scores highest. */
function planText(gate: string): string {
  return plan`
    version: 1
    name: Best of e2e
    steps:
      choose:
        best-of: 3
        pick: check
        env: { GATE: ${JSON.stringify(gate)} }
        run: |
          if [ "$BRAID_ALTERNATIVE" = 3 ]; then echo "three gives up"; exit 1; fi
          if [ "$BRAID_ALTERNATIVE" = 2 ]; then while [ ! -f "$GATE" ]; do sleep 0.05; done; fi
          printf "answer from alternative %s\\n" "$BRAID_ALTERNATIVE" > best-of-answer.txt
        check: 'echo "score: $((BRAID_ALTERNATIVE * 10))"'
      report:
        needs: [choose]
        run: cat best-of-answer.txt
    `;
}

describe('a best-of step on the graph', function () {
  this.bail(true);
  let wb: Workbench;
  let graph: GraphFrame;
  let gate: string;
  let liveGate: string;

  useWorkbench(
    {
      name: 'bestof',
      viewport: { width: 1600, height: 900 },
      prepare: (dir) => {
        gate = join(dir, '..', 'best-of-gate');
        liveGate = join(dir, '..', 'best-of-live-gate');
        writeFileSync(join(dir, PLAN_FILE), planText(gate));
        writeFileSync(join(dir, LIVE_FILE), livePlanText(liveGate));
      },
    },
    (b) => {
      wb = b;
    },
  );

  const counts = (): Promise<string> =>
    graph.frame.evaluate(
      () => document.querySelector('g.node[data-group="choose"] .braid-counts')?.textContent ?? 'missing',
    );

  it("is one node whose alternatives' counts change in place during the race, then name the winner", async function () {
    this.timeout(150_000);
    await openFile(wb, PLAN_FILE);
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 90_000);
    assert.equal(
      await graph.frame.locator('g.node[data-group="choose"]').count(),
      1,
      'one node for the step and its three alternatives',
    );
    assert.equal(await graph.frame.locator('g.node[data-step-id]').count(), 2, 'choose, report');
    assert.equal(await counts(), '0/3 ✓');
    await graph.markDiagram();
    await graph.button('run-plan').click();
    await poll('the race half run', async () => (await counts()) === '1/3 ✓ · 1 ▶ · 1 ✗', 60_000, 50);
    assert.equal(await graph.node('choose').getAttribute('data-status'), 'running', "the node's status is the step's");
    assert.equal(
      await graph.frame.locator('.run-counts').textContent(),
      '0/2 ✓ · 1 ▶',
      "the run's counts are its steps', not the alternatives'",
    );
    await wb.screenshot('bestof-graph-racing');
    writeFileSync(gate, '');
    await poll('the run to end', async () => (await graph.statuses()).report === 'succeeded', 60_000);
    assert.equal(await counts(), '★ 2 won · 2/3 ✓ · 1 ✗');
    assert.equal(await graph.node('choose').getAttribute('data-status'), 'succeeded');
    assert.ok(await graph.sameDiagram(), 'the counts changed without laying the graph out again');
    await wb.screenshot('bestof-graph-collapsed');
  });

  it('a click expands it into its alternatives racing into the step; the winner is starred; its frame collapses it', async function () {
    this.timeout(60_000);
    await graph.frame.locator('g.node[data-group="choose"]').click();
    await poll(
      'three alternative nodes',
      async () => (await graph.frame.locator('g.node[data-step-id^="choose.alt"]').count()) === 3,
      30_000,
    );
    const s = await graph.statuses();
    assert.deepEqual(
      [s['choose.alt1'], s['choose.alt2'], s['choose.alt3'], s.choose],
      ['succeeded', 'succeeded', 'failed', 'succeeded'],
    );
    assert.equal(await graph.frame.locator('g.node[data-step-id="choose.alt2"] .braid-time').textContent(), '★ won');
    assert.equal(await graph.frame.locator('g.node[data-step-id="choose.alt1"] .braid-time').textContent(), '');
    assert.equal(
      await graph.frame.locator('g.cluster[data-group="choose"]').count(),
      1,
      'the alternatives are a frame to collapse them by',
    );
    assert.equal(
      await graph.frame.locator('g.node[data-step-id="choose"]').count(),
      1,
      'the step keeps its own node (its log, its change)',
    );
    await wb.screenshot('bestof-graph-expanded');
  });

  it("an alternative's node offers its change, which opens in the multi-file diff editor", async function () {
    this.timeout(60_000);
    await graph.node('choose.alt1').click();
    await graph.button('review-changes', 'choose.alt1').waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(await graph.button('retry', 'choose.alt1').count(), 0, 'no step actions on an alternative');
    await graph.button('review-changes', 'choose.alt1').click();
    const tab = wb.page.locator('.tab', { hasText: 'Braid: choose · alternative 1 of 3' });
    await tab.first().waitFor({ state: 'visible', timeout: 20_000 });
    await poll(
      "the alternative's file in the diff",
      async () =>
        (await wb.page.locator('.monaco-editor .view-lines').allTextContents()).some((t) =>
          t.replace(/\s/g, ' ').includes('answer from alternative 1'),
        ),
      20_000,
    );
    await wb.screenshot('bestof-alternative-diff');
  });

  it('a click on the frame collapses the alternatives into one node again', async function () {
    this.timeout(60_000);
    await runCommand(wb, 'View: Close Editor');
    graph = await findGraphFrame(wb.page, 30_000);
    await graph.frame.locator('g.cluster[data-group="choose"] .cluster-label').click();
    await poll(
      'one node again',
      async () => (await graph.frame.locator('g.node[data-group="choose"]').count()) === 1,
      30_000,
    );
    assert.equal(await graph.frame.locator('g.node[data-step-id^="choose.alt"]').count(), 0);
    assert.equal(await counts(), '★ 2 won · 2/3 ✓ · 1 ✗');
  });

  it("an alternative's node streams its own output alone while they race", async function () {
    this.timeout(120_000);
    await runCommand(wb, 'View: Close All Editors');
    await openFile(wb, LIVE_FILE);
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 90_000);
    await graph.button('run-plan').click();
    await poll(
      'both racing',
      async () =>
        (await graph.statuses()).choose === 'running' &&
        (await graph.frame.locator('g.node[data-group="choose"] .braid-counts').textContent()) === '0/2 ✓ · 2 ▶',
      60_000,
      50,
    );
    await graph.frame.locator('g.node[data-group="choose"]').click();
    await poll(
      'two alternative nodes',
      async () => (await graph.frame.locator('g.node[data-step-id^="choose.alt"]').count()) === 2,
      30_000,
    );
    await graph.node('choose.alt2').click();
    const pane = graph.logPane('choose.alt2');
    await poll(
      "alternative 2's log so far",
      async () => ((await pane.textContent()) ?? '').includes('2 waits at the gate'),
      30_000,
    );
    writeFileSync(liveGate, '');
    // Both print through the gate while the race goes on: alternative 2's line arrives live, 1's does not.
    await poll(
      "alternative 2's line after the gate, live",
      async () => ((await pane.textContent()) ?? '').includes('2 through the gate'),
      30_000,
    );
    assert.equal(
      (await graph.statuses()).choose,
      'running',
      'still racing: the line came live, not from the log read at the end',
    );
    await wb.screenshot('bestof-alternative-live-log');
    writeFileSync(`${liveGate}.done`, '');
    await poll('the run to end', async () => (await graph.statuses()).choose === 'succeeded', 60_000);
    const text = (await pane.textContent()) ?? '';
    assert.ok(!text.includes('1 waits') && !text.includes('1 through'), `only alternative 2's output: ${text}`);
  });
});

describe('picking an alternative from their diffs', function () {
  this.bail(true);
  let ws: FixtureWorkspace;
  let wb: Workbench;
  const ROW = '.quick-input-widget .quick-input-list .monaco-list-row';

  useWorkbench(
    {
      name: 'bestof-pick',
      viewport: { width: 1600, height: 900 },
      prepare: (dir) => {
        writeFileSync(
          join(dir, 'best-of-pick.braid.yaml'),
          plan`
            version: 1
            name: Best of pick
            steps:
              choose:
                best-of: 2
                pick: review
                run: printf "picked %s\\n" "$BRAID_ALTERNATIVE" > best-of-picked.txt
            `,
        );
      },
    },
    (b, w) => {
      wb = b;
      ws = w;
    },
  );

  it("the notification's Pick Alternative lists both; a diff button shows that one's change with Pick / Next in the corner; the pick lands it", async function () {
    this.timeout(120_000);
    await openFile(wb, 'best-of-pick.braid.yaml');
    await runCommand(wb, 'Braid: Run Plan');
    const toast = (text: string, button: string) =>
      wb.page.locator('.notification-toast', { hasText: text }).locator('.monaco-button', { hasText: button }).first();
    await toast('waiting for your pick', 'Pick Alternative').waitFor({ state: 'visible', timeout: 60_000 });
    await toast('waiting for your pick', 'Pick Alternative').click();
    await wb.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Pick Alternative: which one of choose lands?' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    const rows = wb.page.locator(ROW);
    await poll('two alternatives listed', async () => (await rows.count()) === 2, 15_000);
    const second = rows.filter({ hasText: 'alternative 2' });
    assert.match((await second.textContent()) ?? '', /1 file · \+1 −0 · best-of-picked\.txt/);
    await second.hover();
    await second.locator('.action-label[aria-label="Open diff"], .action-label[title="Open diff"]').first().click();
    const diffShows = (n: number) =>
      poll(
        `alternative ${n}'s file in its diff`,
        async () => {
          const tab = await wb.page
            .locator('.tab.active', { hasText: `Braid: choose · alternative ${n} of 2` })
            .count();
          return (
            tab > 0 &&
            (await wb.page.locator('.monaco-editor .view-lines').allTextContents()).some((t) =>
              t.replace(/\s/g, ' ').includes(`picked ${n}`),
            )
          );
        },
        20_000,
      );
    await diffShows(2);
    await toast('choose · alternative 2', 'Next: Alternative 1').waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(
      await wb.page.locator('.quick-input-widget').isVisible(),
      false,
      'the list steps aside: the diff is shown whole',
    );
    await wb.screenshot('bestof-pick-from-diff');
    await toast('choose · alternative 2', 'Next: Alternative 1').click();
    await diffShows(1);
    await toast('choose · alternative 1', 'Back to List').click();
    await wb.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Pick Alternative: which one of choose lands?' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    await second.hover();
    await second.locator('.action-label[aria-label="Open diff"], .action-label[title="Open diff"]').first().click();
    await diffShows(2);
    await toast('choose · alternative 2', 'Pick Alternative 2').click();
    await poll(
      'alternative 2 landed',
      async () =>
        existsSync(join(ws.path, 'best-of-picked.txt')) &&
        readFileSync(join(ws.path, 'best-of-picked.txt'), 'utf8') === 'picked 2\n',
      30_000,
    );
  });
});
