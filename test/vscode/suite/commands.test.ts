// Commands as users reach them: bare from the palette (acting on the one candidate without asking),
// and the step-level ones with arguments: Run Step, Run From Here, Show Log.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/commandIds';
import { braidApi, runRecord, waitFor, writePlan } from './helpers';

const CHAIN = ['version: 1', 'name: Chain', 'steps:',
  '  a:', '    run: echo step a ran',
  '  b:', '    needs: [a]', '    run: echo step b ran',
  '  c:', '    needs: [b]', '    run: echo step c ran',
].join('\n');

describe('commands', function () {
  this.timeout(60_000);

  afterEach(async () => { await vscode.commands.executeCommand('workbench.action.closeAllEditors'); });

  it('bare Run Plan runs the plan in the active editor, without asking', async () => {
    const uri = await writePlan('bare', ['version: 1', 'name: Bare', 'steps:', '  only:', '    run: echo bare'].join('\n'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const summary = (await vscode.commands.executeCommand('braid.runPlan')) as RunSummary | undefined;
    assert.ok(summary, 'the command ran something (a quick pick would have left it undefined in a test)');
    assert.equal(runRecord(summary.runId).planName, 'Bare');
    assert.deepEqual(summary.steps, { only: 'succeeded' });
  });

  it('bare Cancel Run acts on the only active run', async () => {
    const api = await braidApi();
    const uri = await writePlan('cancel-bare', ['version: 1', 'name: Cancel bare', 'steps:', '  long:', '    run: sleep 30'].join('\n'));
    const done = vscode.commands.executeCommand('braid.runPlan', uri) as Thenable<RunSummary>;
    await waitFor('the long step to run', () => api.runs.runs().some((r) => r.planName === 'Cancel bare' && r.steps.get('long')?.status === 'running'));
    await vscode.commands.executeCommand('braid.cancelRun');
    const summary = await done;
    assert.equal(summary.status, 'canceled');
    assert.deepEqual(summary.steps, { long: 'canceled' });
  });

  it('Run Step runs one step and what it needs; nothing after it', async () => {
    const uri = await writePlan('chain-step', CHAIN);
    const summary = (await vscode.commands.executeCommand('braid.runStep', uri, 'b')) as RunSummary;
    assert.equal(summary.status, 'succeeded');
    assert.equal(summary.steps.a, 'succeeded');
    assert.equal(summary.steps.b, 'succeeded');
    assert.notEqual(summary.steps.c, 'succeeded', 'c comes after b: not run');
    assert.equal(runRecord(summary.runId).steps.c?.attempts.length, 0);
  });

  it('Run From Here runs a step and everything after it; nothing before it', async () => {
    const uri = await writePlan('chain-from', CHAIN);
    const summary = (await vscode.commands.executeCommand('braid.runFrom', uri, 'b')) as RunSummary;
    assert.equal(summary.steps.b, 'succeeded');
    assert.equal(summary.steps.c, 'succeeded');
    assert.equal(runRecord(summary.runId).steps.a?.attempts.length, 0, 'a comes before b: not run');
  });

  it('Show Log opens the step\'s log, with its output', async () => {
    const uri = await writePlan('chain-log', CHAIN);
    const summary = (await vscode.commands.executeCommand('braid.runPlan', uri)) as RunSummary;
    const editor = (await vscode.commands.executeCommand('braid.showLog', summary.runId, 'b')) as vscode.TextEditor | undefined;
    assert.ok(editor, 'an editor opened');
    assert.ok(editor.document.uri.fsPath.endsWith(`${summary.runId}/logs/b.log`), editor.document.uri.fsPath);
    assert.match(editor.document.getText(), /step b ran/);
    assert.doesNotMatch(editor.document.getText(), /step a ran/, 'only that step\'s output');
  });
});
