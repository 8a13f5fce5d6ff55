// What the workbench says after a landing decision on an ended run (issue 31 §2): a step whose
// change Revert Change took back out reads `reverted` in the Runs tree (the record keeps
// `succeeded`), and a change that lands on an ended run whose dependent was skipped asks to run
// it; answering Run Them runs it. The question is answered by replacing showInformationMessage
// for the one call, as a user's click would.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { braidApi, runRecord, waitFor, workspaceRoot, writePlan } from './helpers';
import { plan } from '../../helpers/planText';

describe('landing truth', function () {
  this.timeout(90_000);

  it('a reverted step reads `reverted` in the Runs tree, not succeeded', async () => {
    const uri = await writePlan(
      'truth-revert',
      plan`
        version: 1
        name: Truth revert
        steps:
          a:
            isolation: worktree
            writes: [reverted.txt]
            run: printf "from a\\n" > reverted.txt
        `,
    );
    const api = await braidApi();
    const summary = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    assert.deepEqual(summary.steps, { a: 'succeeded' });
    const row = () => {
      const node = api.tree
        .getChildren({ kind: 'run', runId: summary.runId })
        .find((n) => n.kind === 'step' && n.stepId === 'a');
      return node ? String(api.tree.getTreeItem(node).description ?? '') : '';
    };
    assert.doesNotMatch(row(), /reverted/, 'a landed step is not called reverted');
    const results = await vscode.commands.executeCommand('braid.revertStep', summary.runId, 'a');
    assert.deepEqual(results, [{ step: 'a', ok: true, status: 'succeeded', message: 'reverted' }]);
    assert.equal(existsSync(join(workspaceRoot(), 'reverted.txt')), false, 'the change is out of the workspace');
    assert.ok(runRecord(summary.runId).steps.a!.revertedAt, 'the record says when');
    await waitFor('the tree row to say reverted', () => /^reverted\b/.test(row()));
    const node = api.tree
      .getChildren({ kind: 'run', runId: summary.runId })
      .find((n) => n.kind === 'step' && n.stepId === 'a')!;
    assert.match(
      (api.tree.getTreeItem(node).tooltip as vscode.MarkdownString).value,
      /^\*\*a\*\* — reverted\n/,
      'the tooltip agrees',
    );
  });

  it('landing a step of an ended run whose dependent was skipped asks to run it; Run Them runs it', async () => {
    const gate = mkdtempSync(join(tmpdir(), 'braid-truth-gate-'));
    const root = workspaceRoot();
    const asked: string[] = [];
    const original = vscode.window.showInformationMessage;
    try {
      const uri = await writePlan(
        'truth-dependents',
        plan`
          version: 1
          name: Truth dependents
          steps:
            s:
              isolation: worktree
              writes: [late.txt]
              run: printf "step\\n" > late.txt && touch ${join(gate, 'ran')} && while [ ! -e ${join(gate, 'go')} ]; do sleep 0.05; done
            t:
              needs: [s]
              writes: [late.txt.copy]
              run: cat late.txt > late.txt.copy
          `,
      );
      const api = await braidApi();
      const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
      await waitFor(
        'the step to run',
        () => existsSync(join(gate, 'ran')) && api.runs.runs().some((r) => r.planName === 'Truth dependents'),
      );
      writeFileSync(join(root, 'late.txt'), 'the user’s edit\n');
      writeFileSync(join(gate, 'go'), '');
      const summary = await done;
      assert.deepEqual(summary.steps, { s: 'conflict', t: 'skipped' });
      rmSync(join(root, 'late.txt'));

      // The user's click: Run Them on the question about the dependents, nothing on anything else.
      (vscode.window as { showInformationMessage: unknown }).showInformationMessage = (
        message: string,
        ...items: unknown[]
      ) => {
        asked.push(message);
        return Promise.resolve(
          /landed; .* not run/.test(message) && items.includes('Run Them') ? 'Run Them' : undefined,
        );
      };
      const results = await vscode.commands.executeCommand('braid.mergeAgain', summary.runId, 's');
      assert.deepEqual(results, [{ step: 's', ok: true, status: 'succeeded', dependents: ['t'] }]);
      await waitFor('the question', () => asked.some((m) => m === 'Braid: s landed; t has not run.'));
      await waitFor(
        'the record to say t succeeded',
        () => runRecord(summary.runId).steps.t?.status === 'succeeded',
        40_000,
      );
      assert.equal(readFileSync(join(root, 'late.txt.copy'), 'utf8'), 'step\n', 'it ran on the landed change');
    } finally {
      (vscode.window as { showInformationMessage: unknown }).showInformationMessage = original;
      rmSync(gate, { recursive: true, force: true });
      for (const f of ['late.txt', 'late.txt.copy']) rmSync(join(root, f), { force: true });
    }
  });
});
