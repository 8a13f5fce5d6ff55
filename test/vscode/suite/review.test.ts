// Review in the workbench: a `review: true` step waits in `review`, Review Changes opens the
// multi-file diff editor on its recorded change (sides read through the braid-change documents),
// Approve lands it and its dependent runs, Reject fails it, Merge Again lands a conflict step's
// change once the workspace lets it, Review Run shows every step's change.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { braidApi, runRecord, waitFor, workspaceRoot, writePlan } from './helpers';
import { plan } from '../../helpers/planText';

const reviewed = (name: string, file: string) =>
  plan`
    version: 1
    name: ${name}
    steps:
      a:
        isolation: worktree
        review: true
        writes: [${file}]
        run: printf "from a\\n" > ${file}
      b:
        needs: [a]
        run: cat ${file} > ${file}.copy
        writes: [${file}.copy]
    `;

describe('review', function () {
  this.timeout(90_000);

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  async function startUntilReview(name: string, file: string): Promise<{ done: Thenable<RunSummary>; runId: string }> {
    const api = await braidApi();
    const done = vscode.commands.executeCommand<RunSummary>(
      'braid.runPlan',
      await writePlan(name.toLowerCase().replace(/\W+/g, '-'), reviewed(name, file)),
    );
    const run = await waitFor(`${name}: a in review`, () =>
      api.runs.runs().find((r) => r.planName === name && r.steps.get('a')?.status === 'review'),
    );
    // run.json is written a moment after the event: the commands read the change from it.
    await waitFor('the record to hold the change', () => runRecord(run.id).steps.a?.changes);
    return { done, runId: run.id };
  }

  it('Review Changes opens the multi-file diff editor on a step in review; Approve lands it and its dependent runs', async () => {
    const { done, runId } = await startUntilReview('Review approve', 'approved.txt');
    assert.equal(existsSync(join(workspaceRoot(), 'approved.txt')), false, 'nothing landed yet');
    const shown = await vscode.commands.executeCommand('braid.reviewChanges', runId, 'a');
    assert.equal(shown, 1);
    const tab = await waitFor('the multi-diff tab', () => vscode.window.tabGroups.activeTabGroup.activeTab);
    assert.match(tab.label, /^Braid: a \(review\)/);
    // The right side, as the diff editor reads it: the change commit's content.
    const change = runRecord(runId).steps.a!.changes!;
    const right = vscode.Uri.from({
      scheme: 'braid-change',
      path: '/approved.txt',
      query: new URLSearchParams({ root: workspaceRoot(), rev: change.commit }).toString(),
    });
    assert.equal((await vscode.workspace.openTextDocument(right)).getText(), 'from a\n');

    const results = await vscode.commands.executeCommand('braid.approveStep', runId, 'a');
    assert.deepEqual(results, [{ step: 'a', ok: true, status: 'succeeded' }]);
    const summary = await done;
    assert.equal(summary.status, 'succeeded');
    assert.deepEqual(summary.steps, { a: 'succeeded', b: 'succeeded' });
    assert.equal(readFileSync(join(workspaceRoot(), 'approved.txt.copy'), 'utf8'), 'from a\n');
    assert.equal(
      await vscode.commands.executeCommand('braid.reviewRun', runId),
      1,
      'Review Run shows the landed change',
    );
  });

  it('Reject fails the step (rejected) and skips its dependent; nothing lands', async () => {
    const { done, runId } = await startUntilReview('Review reject', 'rejected.txt');
    const results = await vscode.commands.executeCommand('braid.rejectStep', runId, 'a', 'not this');
    assert.deepEqual(results, [{ step: 'a', ok: true, status: 'failed' }]);
    const summary = await done;
    assert.deepEqual(summary.steps, { a: 'failed', b: 'skipped' });
    const a = runRecord(runId).steps.a!;
    assert.equal(a.reason, 'rejected');
    assert.equal(a.message, 'rejected: not this');
    assert.equal(existsSync(join(workspaceRoot(), 'rejected.txt')), false);
  });

  it('Merge Again lands a conflict step’s recorded change once the workspace lets it, without running it again', async () => {
    const gate = mkdtempSync(join(tmpdir(), 'braid-review-gate-'));
    const root = workspaceRoot();
    try {
      const uri = await writePlan(
        'review-clash',
        plan`
          version: 1
          name: Review clash
          steps:
            s:
              isolation: worktree
              writes: [clash.txt]
              run: printf "step\\n" > clash.txt && echo ran >> ${join(gate, 'count')} && while [ ! -e ${join(gate, 'go')} ]; do sleep 0.05; done
          `,
      );
      const api = await braidApi();
      const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
      await waitFor(
        'the step to run',
        () => existsSync(join(gate, 'count')) && api.runs.runs().some((r) => r.planName === 'Review clash'),
      );
      writeFileSync(join(root, 'clash.txt'), 'the user’s edit\n');
      writeFileSync(join(gate, 'go'), '');
      const summary = await done;
      assert.deepEqual(summary.steps, { s: 'conflict' });
      rmSync(join(root, 'clash.txt')); // the user takes their file away
      const results = await vscode.commands.executeCommand('braid.mergeAgain', summary.runId, 's');
      assert.deepEqual(results, [{ step: 's', ok: true, status: 'succeeded' }]);
      assert.equal(readFileSync(join(root, 'clash.txt'), 'utf8'), 'step\n');
      assert.equal(readFileSync(join(gate, 'count'), 'utf8'), 'ran\n', 'the step ran once');
      assert.equal(runRecord(summary.runId).steps.s!.status, 'succeeded');
      await waitFor(
        'the tree to show it landed',
        () => api.runs.get(summary.runId)?.steps.get('s')?.status === 'succeeded',
      );
    } finally {
      rmSync(gate, { recursive: true, force: true });
      rmSync(join(root, 'clash.txt'), { force: true });
    }
  });
});
