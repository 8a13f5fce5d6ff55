// Review in a real workbench, as a user does it: run a plan whose step has `review: true` from the
// graph panel; the step waits in `review` with a notification; Review Changes (from the graph, and
// from the notification) opens VS Code's multi-file diff editor on its change; Approve in the graph
// lands it and its dependent starts. Screenshots in test-artifacts/screenshots.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FixtureWorkspace } from '../fixtureWorkspace';
import { findGraphFrame, poll, type GraphFrame } from './graphFrame';
import { recordNotifications, seenNotifications } from './notifications';
import { openFile, runCommand } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

const PLAN_FILE = 'review-e2e.braid.yaml';
const PLAN = plan`
  version: 1
  name: Review e2e
  steps:
    write-notes:
      isolation: worktree
      review: true
      writes: [notes.md, src/greeting.txt]
      run: printf "# Notes\\n\\nwritten by a step\\n" > notes.md && mkdir -p src && printf "hello, reviewed world\\n" > src/greeting.txt
    publish:
      needs: [write-notes]
      writes: [published.md]
      run: cp notes.md published.md
  `;

describe('review in the workbench', function () {
  this.bail(true);
  let ws: FixtureWorkspace;
  let wb: Workbench;
  let graph: GraphFrame;
  const MULTI_DIFF = '.monaco-workbench .multiDiffEditor, .monaco-workbench .multi-diff-editor';

  useWorkbench(
    {
      name: 'review',
      prepare: (dir) => {
        writeFileSync(join(dir, PLAN_FILE), PLAN);
      },
    },
    (b, w) => {
      wb = b;
      ws = w;
    },
  );

  it('a review step waits in `review` after its run, with a notification; its dependent waits', async () => {
    await openFile(wb, PLAN_FILE);
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 60_000);
    await runCommand(wb, 'Notifications: Show Notifications');
    await wb.page.locator('.notifications-center.visible').waitFor({ state: 'visible', timeout: 10_000 });
    await recordNotifications(wb.page);
    await graph.button('run-plan').click();
    await poll('write-notes in review', async () => (await graph.statuses())['write-notes'] === 'review', 60_000, 50);
    assert.equal((await graph.statuses()).publish, 'pending', 'the dependent waits for the decision');
    assert.equal(existsSync(join(ws.path, 'notes.md')), false, 'nothing landed');
    const asked = await poll(
      'the review notification',
      async () => (await seenNotifications(wb.page)).find((t) => t.text.includes('waits for your review')),
      15_000,
    );
    assert.deepEqual(
      asked.buttons.filter((b) => ['Review Changes', 'Approve', 'Reject'].includes(b)),
      ['Review Changes', 'Approve', 'Reject'],
    );
    await wb.screenshot('review-waiting');
  });

  it('Review changes in the graph opens the multi-file diff editor on the step’s change', async () => {
    await graph.node('write-notes').click();
    await graph.button('review-changes', 'write-notes').click();
    const editor = wb.page.locator(MULTI_DIFF).first();
    await editor.waitFor({ state: 'visible', timeout: 30_000 });
    await poll(
      'both files in the multi-diff editor',
      async () => {
        const text = (await editor.textContent()) ?? '';
        return text.includes('notes.md') && text.includes('greeting.txt');
      },
      20_000,
    );
    // Monaco renders spaces as no-break spaces.
    await poll(
      'the change’s text on the right side',
      async () => ((await editor.textContent()) ?? '').replace(/\u00a0/g, ' ').includes('hello, reviewed world'),
      20_000,
    );
    await wb.screenshot('review-multi-diff');
    await runCommand(wb, 'View: Close Editor');
  });

  it('Review Changes in the notification opens it too', async () => {
    await runCommand(wb, 'Notifications: Show Notifications');
    const item = wb.page.locator('.notification-list-item', { hasText: 'waits for your review' }).first();
    await item.waitFor({ state: 'visible', timeout: 10_000 });
    await item.locator('.monaco-button', { hasText: 'Review Changes' }).click();
    await wb.page.locator(MULTI_DIFF).first().waitFor({ state: 'visible', timeout: 30_000 });
    await wb.screenshot('review-from-notification');
    await runCommand(wb, 'View: Close Editor');
  });

  it('Approve in the graph lands the change, and its dependent starts and succeeds', async () => {
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 60_000);
    await graph.node('write-notes').click();
    await graph.button('approve', 'write-notes').click();
    await poll(
      'both steps to succeed',
      async () => {
        const s = await graph.statuses();
        return s['write-notes'] === 'succeeded' && s.publish === 'succeeded';
      },
      60_000,
      50,
    );
    const h = await graph.history();
    assert.deepEqual(h['write-notes']?.slice(-2), ['review', 'succeeded']);
    assert.deepEqual(h.publish?.slice(-2), ['running', 'succeeded'], `publish: ${h.publish?.join(' → ')}`);
    assert.equal(readFileSync(join(ws.path, 'published.md'), 'utf8'), '# Notes\n\nwritten by a step\n');
    await wb.screenshot('review-approved');
  });
});
