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
    const uri = (await vscode.commands.executeCommand('braid.newPlan', { name: 'fresh' })) as vscode.Uri;
    assert.equal(uri.fsPath, join(workspaceRoot(), 'fresh.braid.yaml'));
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, uri.fsPath);
    assert.equal(await vscode.commands.executeCommand('braid.validatePlan', uri), 0);
    assert.equal(await vscode.commands.executeCommand('braid.newPlan', { name: 'fresh' }), undefined, 'never overwrites');
  });

  it('planning mode: an agent drafts the plan, is shown its problems once, and the valid plan opens with its graph', async () => {
    const api = await braidApi();
    const planner = join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'test', 'fixtures', 'agents', 'fake-planner.mjs');
    const state = join(workspaceRoot(), '.planner-state');
    process.env.FAKE_PLANNER_STATE = state; // the draft's agent inherits the host's environment
    process.env.FAKE_PLANNER_MODE = 'invalid-then-valid';
    const runsDir = join(workspaceRoot(), '.braid', 'runs');
    const runsBefore = existsSync(runsDir) ? readdirSync(runsDir).length : 0;
    try {
      const uri = (await vscode.commands.executeCommand('braid.newPlan', {
        name: 'drafted', goal: 'Lint, then build', agent: [process.execPath, planner, '${{ prompt }}'],
      })) as vscode.Uri;
      assert.ok(uri && existsSync(uri.fsPath));
      assert.equal(readFileSync(state, 'utf8'), '2', 'the agent ran twice: the draft, then the fix');
      assert.match(readFileSync(uri.fsPath, 'utf8'), /needs: \[lint\]/);
      await waitFor('the graph panel of the draft', () => api.graphs.panelOf(uri.fsPath));
      assert.equal(vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length, 0);
      assert.equal(existsSync(runsDir) ? readdirSync(runsDir).length : 0, runsBefore, 'nothing ran: the user reviews the plan first');
    } finally {
      delete process.env.FAKE_PLANNER_STATE;
      delete process.env.FAKE_PLANNER_MODE;
    }
  });
});
