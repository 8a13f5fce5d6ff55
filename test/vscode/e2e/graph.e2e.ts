// The graph panel in a real workbench, driven as a user would: open a plan, "Braid: Show Graph"
// from the palette, press the page's Run plan button, watch the nodes change, click the failed
// node for its log, press Retry. Screenshots of the running, finished and retried states land in
// test-artifacts/screenshots (git-ignored) for CI to keep.
import { strict as assert } from 'node:assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FixtureWorkspace } from '../fixtureWorkspace';
import { findGraphFrame, poll, type GraphFrame } from './graphFrame';
import { openFile, runCommand } from './palette';
import { recordNotifications, seenNotifications } from './notifications';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

const PLAN_FILE = 'graph-e2e.braid.yaml';
const HOSTILE = '<img src=x onerror=alert(1)>';
const STEPS = ['prepare', 'flaky', 'after', 'other'];

/** `flaky` fails on its first attempt (it leaves a flag file) and succeeds on the next. */
function planText(flag: string): string {
  return plan`
    version: 1
    name: Graph e2e
    concurrency: 2
    steps:
      prepare:
        run: echo preparing; sleep 2
      flaky:
        needs: [prepare]
        run: |
          if test -f "${flag}"; then echo second try works; else touch "${flag}"; echo "flaky output: first try fails"; exit 3; fi
      after:
        needs: [flaky]
        run: echo after flaky
      other:
        name: "${HOSTILE}"
        run: echo independent; sleep 1
    `;
}

describe('graph panel in the workbench', function () {
  // Each step builds on the one before: after a failure the rest would only fail confusingly.
  this.bail(true);
  let ws: FixtureWorkspace;
  let wb: Workbench;
  let graph: GraphFrame;
  const dialogs: string[] = [];
  const waitStatuses = (
    what: string,
    want: Record<string, string>,
    timeoutMs = 60_000,
  ): Promise<Record<string, string>> =>
    poll(
      what,
      async () => {
        const s = await graph.statuses();
        return Object.entries(want).every(([id, st]) => s[id] === st) ? s : undefined;
      },
      timeoutMs,
      50,
    );

  useWorkbench(
    {
      name: 'graph',
      settings: { 'braid.progressNotification': true },
      prepare: (dir) => {
        writeFileSync(join(dir, PLAN_FILE), planText(join(dir, '..', 'flaky.flag')));
      },
    },
    (b, w) => {
      wb = b;
      ws = w;
      wb.page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss().catch(() => {});
      });
    },
  );

  it('"Braid: Show Graph" shows one pending node per step', async () => {
    await openFile(wb, PLAN_FILE);
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 60_000);
    const s = await waitStatuses('a pending node per step', Object.fromEntries(STEPS.map((id) => [id, 'pending'])));
    assert.deepEqual(Object.keys(s).sort(), [...STEPS].sort(), "exactly the plan's steps have nodes");
    for (const id of STEPS) assert.equal(await graph.node(id).count(), 1, `one node for ${id}`);
    await wb.screenshot('graph-before-run');
  });

  it('a hostile step name renders as text, not markup', async () => {
    assert.equal(await graph.frame.locator('img').count(), 0, 'no img element in the webview');
    const label = await graph.node('other').textContent();
    assert.ok(label?.includes(HOSTILE), `the node shows the name literally, got ${JSON.stringify(label)}`);
    assert.deepEqual(dialogs, [], 'no script ran');
  });

  it('Run plan: nodes go running, then to their final statuses, restyled in place', async () => {
    await graph.markDiagram();
    await runCommand(wb, 'Notifications: Show Notifications');
    await wb.page.locator('.notifications-center.visible').waitFor({ state: 'visible', timeout: 10_000 });
    await recordNotifications(wb.page);
    await graph.button('run-plan').click();
    await poll('a running node', async () => Object.values(await graph.statuses()).includes('running'), 30_000, 50);
    // The run's progress notification, with its Cancel button, while it runs (recorded: the run
    // may be over before a poll would see it).
    await poll(
      'the progress notification',
      async () =>
        (await seenNotifications(wb.page)).some(
          (t) => t.text.includes('Braid: Graph e2e') && t.buttons.includes('Cancel'),
        ),
      15_000,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}; seen: ${JSON.stringify(await seenNotifications(wb.page))}`);
    });
    await wb.screenshot('graph-running');
    await waitStatuses('the run to end', {
      prepare: 'succeeded',
      flaky: 'failed',
      after: 'skipped',
      other: 'succeeded',
    });
    // The end notification names the failed step and offers Show Log and Retry.
    const ended = await poll(
      'the end notification',
      async () => (await seenNotifications(wb.page)).find((t) => t.text.includes('Graph e2e failed')),
      15_000,
    );
    assert.match(ended.text, /Graph e2e failed.*1 step failed: flaky/);
    assert.deepEqual(
      ended.buttons.filter((t) => t === 'Show Log' || t === 'Retry'),
      ['Show Log', 'Retry'],
    );
    await wb.screenshot('graph-finished');
    await runCommand(wb, 'Notifications: Hide Notifications');
    const h = await graph.history();
    assert.deepEqual(h.prepare, ['pending', 'running', 'succeeded']);
    assert.deepEqual(h.flaky, ['pending', 'running', 'failed']);
    assert.deepEqual(h.after, ['pending', 'skipped']);
    assert.deepEqual(h.other, ['pending', 'running', 'succeeded']);
    assert.ok(await graph.sameDiagram(), 'status changes restyled the drawn diagram; it was not laid out again');
  });

  it('clicking the failed node shows its log', async () => {
    await graph.node('flaky').click();
    const pane = graph.logPane('flaky');
    await pane.waitFor({ state: 'visible', timeout: 15_000 });
    await poll(
      "the failed step's output in the log pane",
      async () => (await pane.textContent())?.includes('flaky output: first try fails'),
      15_000,
    );
    await poll(
      'a Retry button for the failed step',
      async () => (await graph.button('retry', 'flaky').count()) === 1,
      10_000,
    );
  });

  it('Retry re-runs the failed step and what it blocked', async () => {
    await graph.button('retry', 'flaky').click();
    await waitStatuses('flaky and after to succeed', {
      prepare: 'succeeded',
      flaky: 'succeeded',
      after: 'succeeded',
      other: 'succeeded',
    });
    const h = await graph.history();
    assert.deepEqual(h.flaky?.slice(-2), ['running', 'succeeded'], `flaky: ${h.flaky?.join(' → ')}`);
    assert.deepEqual(h.after?.slice(-2), ['running', 'succeeded'], `after: ${h.after?.join(' → ')}`);
    assert.deepEqual(h.prepare, ['pending', 'running', 'succeeded'], 'a retry leaves what succeeded alone');
    assert.ok(existsSync(join(ws.path, '..', 'flaky.flag')));
    const pane = graph.logPane('flaky');
    // The log keeps both attempts, each opened by its own header line.
    await poll(
      'both attempts in the log pane',
      async () => {
        const t = (await pane.textContent()) ?? '';
        return (
          t.includes('first try fails') && t.includes('second try works') && t.split('──── attempt ').length - 1 === 2
        );
      },
      15_000,
    );
    assert.equal(await graph.button('retry', 'flaky').count(), 0, 'no Retry on a succeeded step');
    // The plan's code lenses in the editor follow the retry too.
    await poll(
      "every step's code lens to say succeeded",
      async () => {
        const lenses = await wb.page.locator('.monaco-editor .codelens-decoration').allTextContents();
        return (
          lenses.filter((t) => t.includes('succeeded')).length === STEPS.length &&
          !lenses.some((t) => /skipped|failed/.test(t))
        );
      },
      15_000,
    );
    await wb.screenshot('graph-retried');
    assert.deepEqual(dialogs, [], 'no dialog opened during the run');
  });

  it('renaming a step in the plan re-lays the graph out with the new name; statuses stay', async () => {
    await graph.markDiagram();
    writeFileSync(
      join(ws.path, PLAN_FILE),
      planText(join(ws.path, '..', 'flaky.flag')).replace(`name: "${HOSTILE}"`, 'name: "Renamed step"'),
    );
    await poll(
      'the new name on the node',
      async () => (await graph.node('other').textContent())?.includes('Renamed step'),
      20_000,
    );
    assert.equal(await graph.sameDiagram(), false, 'a new drawing, not the old one restyled');
    assert.equal((await graph.statuses()).other, 'succeeded', "the run's statuses are kept across the re-layout");
  });
});
