// *Run step* reuses what the step's needs already did (same content, succeeded): they do not run
// again, the run records them reused, and the tree row and the graph node say so; *Run Step Fresh*
// runs them again. Each step counts its runs in a file, so a run is seen on disk.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { nodeUpdate } from '../../../src/extension/graph/graphNodes';
import { braidApi, runRecord, workspaceRoot, writePlan } from './helpers';
import { plan } from '../../helpers/planText';

const PLAN = plan`
  version: 1
  name: Reuse chain
  steps:
    a:
      run: echo x >> reuse-a.count; echo "from a"
    b:
      needs: [a]
      run: echo x >> reuse-b.count; echo "b saw \${{ steps.a.output }}"
    c:
      needs: [b]
      run: echo x >> reuse-c.count; echo "c saw \${{ steps.b.output }}"
  `;

/** How many times a step ran: plans run in the workspace root, where the counters are. */
const count = (id: string) => {
  const f = join(workspaceRoot(), `reuse-${id}.count`);
  return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0;
};
const counts = () => ({ a: count('a'), b: count('b'), c: count('c') });

describe('run step reuses', function () {
  this.timeout(60_000);

  it('Run Step reuses the needs that succeeded; the tree and the graph say reused; Run Step Fresh runs them again', async () => {
    const api = await braidApi();
    const uri = await writePlan('reuse-chain', PLAN);
    const first = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    assert.equal(first.status, 'succeeded');
    assert.deepEqual(counts(), { a: 1, b: 1, c: 1 });

    const step = await vscode.commands.executeCommand<RunSummary>('braid.runStep', uri, 'c');
    assert.equal(step.status, 'succeeded');
    assert.deepEqual(step.steps, { a: 'succeeded', b: 'succeeded', c: 'succeeded' });
    assert.deepEqual(counts(), { a: 1, b: 1, c: 2 }, 'only c ran');
    const rec = runRecord(step.runId);
    assert.deepEqual(
      [rec.steps.a?.reused?.run, rec.steps.b?.reused?.run, rec.steps.c?.reused],
      [first.runId, first.runId, undefined],
    );
    assert.equal(
      readFileSync(join(workspaceRoot(), '.braid', 'runs', step.runId, 'outputs', 'c'), 'utf8'),
      'c saw b saw from a',
    );

    // The run's step views: the runs model, the Runs tree's rows, the graph's nodes.
    const run = api.runs.get(step.runId)!;
    const runNode = api.tree.getChildren().find((n) => n.runId === step.runId)!;
    const rows = new Map(
      api.tree.getChildren(runNode).map((n) => {
        const item = api.tree.getTreeItem(n);
        return [String(item.label), String(item.description ?? '')] as const;
      }),
    );
    assert.match(rows.get('a')!, /· reused$/, rows.get('a'));
    assert.match(rows.get('b')!, /· reused$/);
    assert.doesNotMatch(rows.get('c')!, /reused/);
    assert.equal(nodeUpdate(run.steps.get('b')!).detail, `reused from run ${first.runId}`);
    assert.equal(nodeUpdate(run.steps.get('c')!).detail, undefined);

    const fresh = await vscode.commands.executeCommand<RunSummary>('braid.runStepFresh', uri, 'c');
    assert.equal(fresh.status, 'succeeded');
    assert.deepEqual(counts(), { a: 2, b: 2, c: 3 }, 'fresh: every need ran again');
    assert.ok(Object.values(runRecord(fresh.runId).steps).every((s) => s.reused === undefined));
  });
});
