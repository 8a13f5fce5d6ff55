// Resolve with Agent in a real workbench, as a user meets it: a run ends with a step in
// `conflict` (its agent's change lost the race to another step's); the run's end notification
// offers Resolve with Agent; a click has the step's agent (a custom one, resolver.mjs) resolve it
// in its kept worktree; the graph follows the resolution and both changes are in the file.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FixtureWorkspace } from '../fixtureWorkspace';
import { PROJECT_ROOT } from '../paths';
import { findGraphFrame, poll, type GraphFrame } from './graphFrame';
import { recordNotifications, seenNotifications } from './notifications';
import { openFile, runCommand } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

const PLAN_FILE = 'resolve-e2e.braid.yaml';
const FILE = 'shared.txt';
const q = JSON.stringify;

describe('Resolve with Agent in the workbench', function () {
  this.bail(true);
  let ws: FixtureWorkspace;
  let wb: Workbench;
  let graph: GraphFrame;

  useWorkbench(
    {
      name: 'resolve',
      prepare: (dir) => {
        writeFileSync(join(dir, FILE), 'line 1\nline 2\nline 3\n');
        writeFileSync(
          join(dir, PLAN_FILE),
          plan`
            version: 1
            name: Resolve e2e
            env:
              RESOLVER_WS: ${q(dir)}
              RESOLVER_FILE: ${FILE}
            agents:
              resolver:
                input: text
                command: [${q(process.execPath)}, ${q(join(PROJECT_ROOT, 'test', 'fixtures', 'agents', 'resolver.mjs'))}, both, "\${{ prompt }}"]
            steps:
              mark:
                agent: resolver
                prompt: put your mark on line 2
                writes: [${FILE}]
                on-conflict: stop
                env: { RESOLVER_WAIT: by other }
              other:
                run: sed -i "s/^line 2$/line 2 by other/" ${FILE}
                isolation: worktree
                writes: [${FILE}]
            `,
        );
        const git = (...args: string[]) =>
          execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], {
            cwd: dir,
          });
        git('add', FILE, PLAN_FILE);
        git('commit', '-q', '-m', 'resolve e2e');
      },
    },
    (b, w) => {
      wb = b;
      ws = w;
    },
  );

  it('a run ends with mark in conflict, and its notification offers Resolve with Agent', async () => {
    await openFile(wb, PLAN_FILE);
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 60_000);
    await runCommand(wb, 'Notifications: Show Notifications');
    await wb.page.locator('.notifications-center.visible').waitFor({ state: 'visible', timeout: 10_000 });
    await recordNotifications(wb.page);
    await graph.button('run-plan').click();
    await poll('mark in conflict', async () => (await graph.statuses()).mark === 'conflict', 60_000, 50);
    const end = await poll(
      "the run's end notification",
      async () => (await seenNotifications(wb.page)).find((n) => n.buttons.includes('Resolve with Agent')),
      20_000,
    );
    assert.ok(end.buttons.includes('Merge Again'));
    assert.equal(
      readFileSync(join(ws.path, FILE), 'utf8'),
      'line 1\nline 2 by other\nline 3\n',
      'nothing of mark landed',
    );
    await wb.screenshot('resolve-offered');
  });

  it("Resolve with Agent resolves it with the step's agent and lands both changes", async () => {
    const item = wb.page.locator('.notification-list-item', { hasText: 'Resolve with Agent' }).first();
    await item.waitFor({ state: 'visible', timeout: 10_000 });
    await item.locator('.monaco-button', { hasText: 'Resolve with Agent' }).click();
    await poll('mark to succeed', async () => (await graph.statuses()).mark === 'succeeded', 60_000, 50);
    assert.deepEqual((await graph.history()).mark?.slice(-2), ['running', 'succeeded']);
    assert.equal(readFileSync(join(ws.path, FILE), 'utf8'), 'line 1\nline 2 by other\nline 2 by a\nline 3\n');
    await wb.screenshot('resolve-landed');
  });
});
