// Completion in a real editor, typed as a user types it: in a plan's prompt, `${{ steps.` opens
// the suggest widget (the `.` is a trigger character) with the steps this one needs, directly or
// not, and no others. No YAML extension is installed: the plan language service answers alone.
// The screenshot (test-artifacts/screenshots/completion-steps.png) is the one the README shows.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { poll } from './graphFrame';
import { openFile } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

const PLAN_FILE = 'completion-e2e.braid.yaml';
const PLAN = plan`
  version: 1
  name: Release notes
  steps:
    build:
      matrix:
        os: [linux, mac]
      run: make build OS=\${{ matrix.os }}
    test:
      needs: build
      run: make test
    changelog:
      run: git log --oneline -20
    unrelated:
      run: echo not needed
    notes:
      needs: [test, changelog]
      agent: claude
      prompt: |
        Write release notes from
        
  `;
const TYPED_LINE = 19; // 0-based: the empty prompt line

describe('completion in the editor', function () {
  let wb: Workbench;

  useWorkbench(
    {
      name: 'completion',
      viewport: { width: 1100, height: 640 },
      prepare: (dir) => {
        writeFileSync(join(dir, PLAN_FILE), PLAN);
      },
    },
    (b) => {
      wb = b;
    },
  );

  it('inside ${{ steps. it offers the steps the step needs, directly or not', async () => {
    await openFile(wb, PLAN_FILE);
    const page = wb.page;
    await page.locator('.monaco-editor .view-lines').first().click();
    // Go to the empty prompt line, at its indentation (Ctrl+G takes line:column, 1-based).
    await page.keyboard.press('Control+G');
    await page.keyboard.type(`${TYPED_LINE + 1}:7`);
    await page.keyboard.press('Enter');
    await page.keyboard.type('${{ steps.', { delay: 60 });
    const rows = page.locator('.editor-widget.suggest-widget.visible .monaco-list-row');
    const shown = async () => (await rows.count()) >= 4;
    // The `.` asks by itself; on a loaded machine the widget can miss its moment (a slow
    // extension host answers after the workbench gave up), so the user's Ctrl+Space asks again.
    if (!(await poll('the suggest widget', shown, 8_000).catch(() => false))) {
      process.stdout.write('    (the trigger character showed nothing in 8 s: asking with Ctrl+Space)\n');
      await page.keyboard.press('Control+Space');
      await poll('the suggest widget with step ids', shown, 20_000);
    }
    const labels = await rows.evaluateAll((els) =>
      els.map((e) => e.querySelector('.label-name')?.textContent?.trim() ?? ''),
    );
    assert.deepEqual(
      [...labels].sort(),
      ['build-linux', 'build-mac', 'changelog', 'test'],
      `offered: ${labels.join(', ')}`,
    );
    await wb.screenshot('completion-steps');
  });
});
