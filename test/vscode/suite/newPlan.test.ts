// "New Plan": from the template, and drafted by an agent (a fake planner that first writes an
// invalid plan, then a valid one once it is shown the problems).
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { braidApi, EXTENSION_ID, waitFor, workspaceRoot } from './helpers';

describe('new plans', function () {
  this.timeout(60_000);

  it('braid.newPlan with a name writes the template, which is a valid plan, and opens it', async () => {
    await braidApi();
    const uri = await vscode.commands.executeCommand<vscode.Uri>('braid.newPlan', { name: 'fresh' });
    assert.equal(uri.fsPath, join(workspaceRoot(), 'fresh.braid.yaml'));
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, uri.fsPath);
    assert.equal(await vscode.commands.executeCommand('braid.validatePlan', uri), 0);
    assert.equal(
      await vscode.commands.executeCommand('braid.newPlan', { name: 'fresh' }),
      undefined,
      'never overwrites',
    );
  });

  it('planning mode: an agent drafts the plan, is shown its problems once, and the valid plan opens with its graph', async () => {
    const api = await braidApi();
    const planner = join(
      vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath,
      'test',
      'fixtures',
      'agents',
      'fake-planner.mjs',
    );
    const state = join(workspaceRoot(), '.planner-state');
    process.env.FAKE_PLANNER_STATE = state; // the draft's agent inherits the host's environment
    process.env.FAKE_PLANNER_MODE = 'invalid-then-valid';
    const runsDir = join(workspaceRoot(), '.braid', 'runs');
    const runsBefore = existsSync(runsDir) ? readdirSync(runsDir).length : 0;
    try {
      const uri = await vscode.commands.executeCommand<vscode.Uri>('braid.newPlan', {
        name: 'drafted',
        goal: 'Lint, then build',
        agent: [process.execPath, planner, '${{ prompt }}'],
      });
      assert.ok(uri && existsSync(uri.fsPath));
      assert.equal(readFileSync(state, 'utf8'), '2', 'the agent ran twice: the draft, then the fix');
      assert.match(readFileSync(uri.fsPath, 'utf8'), /needs: \[lint\]/);
      await waitFor('the graph panel of the draft', () => api.graphs.panelOf(uri.fsPath));
      assert.equal(
        vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length,
        0,
      );
      assert.equal(
        existsSync(runsDir) ? readdirSync(runsDir).length : 0,
        runsBefore,
        'nothing ran: the user reviews the plan first',
      );
    } finally {
      delete process.env.FAKE_PLANNER_STATE;
      delete process.env.FAKE_PLANNER_MODE;
    }
  });

  it('best of 3: the valid drafts open side by side, the quick pick keeps one, it becomes the plan with its graph and the other drafts are deleted', async () => {
    const api = await braidApi();
    const planner = join(
      vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath,
      'test',
      'fixtures',
      'agents',
      'fake-planner.mjs',
    );
    const root = workspaceRoot();
    process.env.FAKE_PLANNER_STATE = join(root, '.raced-state');
    process.env.FAKE_PLANNER_MODE = 'invalid,wide,valid'; // draft 1 stays invalid after its repair
    const draftsOnDisk = () => readdirSync(root).filter((n) => n.startsWith('raced.draft-'));
    try {
      const done = vscode.commands.executeCommand<vscode.Uri | undefined>('braid.newPlan', {
        name: 'raced',
        goal: 'Lint and test, then build',
        agent: [process.execPath, planner, '${{ prompt }}'],
        drafts: 3,
      });
      let result: unknown = null;
      void done.then((u) => {
        result = u;
      });
      // Side by side: the two valid drafts in two editor columns before anything is kept.
      const columns = await waitFor(
        'the valid drafts open side by side',
        () => {
          const shown = vscode.window.visibleTextEditors.filter((e) =>
            /raced\.draft-[23]\.braid\.yaml$/.test(e.document.uri.fsPath),
          );
          return shown.length === 2 ? shown.map((e) => e.viewColumn) : undefined;
        },
        40_000,
      );
      assert.equal(new Set(columns).size, 2, `two columns: ${JSON.stringify(columns)}`);
      assert.deepEqual(draftsOnDisk().sort(), [
        'raced.draft-1.braid.yaml',
        'raced.draft-2.braid.yaml',
        'raced.draft-3.braid.yaml',
      ]);
      // The quick pick lists the valid drafts in order: accepting its first item keeps draft 2.
      await waitFor('a draft kept', async () => {
        if (result !== null) return true;
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return false;
      });
      const uri = result as vscode.Uri | undefined;
      assert.ok(uri, 'a plan was kept');
      assert.equal(uri.fsPath, join(root, 'raced.braid.yaml'));
      assert.match(readFileSync(uri.fsPath, 'utf8'), /name: Planned draft 2\n[\s\S]*needs: \[lint, test\]/);
      assert.deepEqual(draftsOnDisk(), [], 'the other drafts (valid and invalid) are deleted');
      await waitFor('the graph panel of the kept plan', () => api.graphs.panelOf(uri.fsPath));
      assert.equal(
        vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath.includes('raced.draft-')),
        false,
        "the drafts' editors are closed",
      );
    } finally {
      delete process.env.FAKE_PLANNER_STATE;
      delete process.env.FAKE_PLANNER_MODE;
    }
  });
});
