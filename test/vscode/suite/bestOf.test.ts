// A best-of step in the workbench, with shell alternatives (as examples/best-of.braid.yaml):
// the Runs tree's alternative rows follow the race live, the lens counts it and then names the
// winner, Open Alternative's Changes shows each alternative's own change in the multi-file diff
// editor, the graph panel is told each alternative's state, and picking one lands that one.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { BraidNode } from '../../../src/extension/runs/stepsTree';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import type { StatusUpdate } from '../../../src/protocol/webview';
import { braidApi, runRecord, waitFor, workspaceRoot, writePlan } from './helpers';
import { requestScreenshot } from './screenshot';
import { plan } from '../../helpers/planText';

const FILE = 'bestof-choice.txt';

/** Alternative 3 fails at once, 1 passes at once, 2 passes once the test opens its gate. */
const gatedPlan = (gate: string) =>
  plan`
    version: 1
    name: Best of review
    steps:
      choose:
        best-of: 3
        pick: review
        env: { GATE: ${JSON.stringify(gate)} }
        run: |
          if [ "$BRAID_ALTERNATIVE" = 3 ]; then echo "three gives up"; exit 1; fi
          if [ "$BRAID_ALTERNATIVE" = 2 ]; then while [ ! -f "$GATE" ]; do sleep 0.05; done; fi
          printf 'alt %s\\n' "$BRAID_ALTERNATIVE" > ${FILE}
      after:
        needs: [choose]
        run: cat ${FILE}
    `;

async function lensTitles(uri: vscode.Uri): Promise<string[]> {
  const ls =
    (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
  return ls.map((l) => l.command?.title ?? '');
}

describe('best-of in the workbench', function () {
  this.timeout(90_000);
  let gateDir: string;
  before(() => {
    gateDir = mkdtempSync(join(tmpdir(), 'braid-bestof-gate-'));
  });
  after(async () => {
    rmSync(gateDir, { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("the tree and lens follow the race; each alternative's diff opens; picking one lands it", async () => {
    const api = await braidApi();
    const gate = join(gateDir, 'open');
    const uri = await writePlan('best-of-review', gatedPlan(gate));
    await vscode.window.showTextDocument(uri);
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const run = await waitFor('the run', () => api.runs.runs().find((r) => r.planName === 'Best of review'));
    const graph = await vscode.commands.executeCommand<
      { posted: { type: string; updates?: StatusUpdate[] }[] } | undefined
    >('braid.showGraph', { runId: run.id });

    // During the race: 1 passed (waiting for the pick), 2 still running, 3 failed; the step runs.
    const step: BraidNode = { kind: 'step', runId: run.id, stepId: 'choose' };
    const rows = () => api.tree.getChildren(step).map((n) => api.tree.getTreeItem(n));
    const racing = await waitFor('the tree rows mid-race', () => {
      const r = rows();
      // A passed one of a `pick: review` step may be picked already (the engine takes the pick when the race ends).
      return r.map((x) => x.contextValue).join() === 'alternative.succeeded.pick,alternative.running,alternative.failed'
        ? r
        : undefined;
    }).catch((e: Error) => {
      throw new Error(`${e.message}; rows: ${JSON.stringify(rows().map((r) => [r.contextValue, r.description]))}`);
    });
    assert.equal(api.runs.get(run.id)!.steps.get('choose')!.status, 'running', 'the step is still racing');
    assert.match(String(racing[2]!.description), /^failed/);
    assert.equal(
      api.tree.getTreeItem(step).collapsibleState,
      vscode.TreeItemCollapsibleState.Expanded,
      'a racing step shows its alternatives',
    );
    await waitFor('the lens counting the race', async () =>
      (await lensTitles(uri)).some((t) => t.startsWith('▶ running · alternatives 1/3 ✓ · 1 ▶ · 1 ✗')),
    );
    // The graph panel was told each alternative's state as it changed.
    const told = (id: string) =>
      graph?.posted
        .flatMap((m) => (m.type === 'status' ? (m.updates ?? []) : []))
        .filter((u) => u.stepId === id)
        .map((u) => u.status) ?? [];
    await waitFor(
      'the graph panel told of the race',
      () => told('choose.alt2').includes('running') && told('choose.alt3').includes('failed'),
    );

    writeFileSync(gate, '');
    await waitFor(
      'both passed ones offered for the pick',
      () =>
        rows()
          .map((r) => r.contextValue)
          .join() === 'alternative.succeeded.pick,alternative.succeeded.pick,alternative.failed',
    );
    assert.ok(
      String(api.tree.getTreeItem(step).contextValue).endsWith('.pick'),
      'the step row offers Pick Alternative',
    );
    const lenses = await waitFor('the waiting lens', async () => {
      const t = await lensTitles(uri);
      return t.some((x) => x.startsWith('⏳ 2 of 3 passed, waiting for your pick')) ? t : undefined;
    });
    assert.ok(lenses.includes('Pick alternative'), lenses.join(' | '));
    // The record holds the passed alternatives' commits by now (the pick reads it).
    await waitFor(
      'the record at the pick',
      () => runRecord(run.id).steps.choose?.alternatives?.filter((a) => a.status === 'succeeded').length === 2,
    );

    // Each alternative's own change in the multi-file diff editor.
    for (const n of [1, 2]) {
      assert.equal(
        await vscode.commands.executeCommand('braid.openAlternativeChanges', {
          kind: 'alternative',
          runId: run.id,
          stepId: 'choose',
          index: n,
        }),
        1,
      );
      await waitFor(`the diff of alternative ${n}`, () =>
        vscode.window.tabGroups.activeTabGroup.activeTab?.label.startsWith(
          `Braid: choose · alternative ${n} of 3 (passed; waiting for the pick)`,
        ),
      );
    }
    await requestScreenshot('bestof-alternative-diff');
    // The right side of each, as the diff editor reads it: that alternative's commit.
    const rightOf = async (n: number): Promise<string> =>
      (
        await vscode.workspace.openTextDocument(
          vscode.Uri.from({
            scheme: 'braid-change',
            path: `/${FILE}`,
            query: new URLSearchParams({ root: workspaceRoot(), rev: refCommit(run.id, n) }).toString(),
          }),
        )
      ).getText();
    assert.equal(await rightOf(1), 'alt 1\n');
    assert.equal(await rightOf(2), 'alt 2\n');
    assert.equal(
      await vscode.commands.executeCommand('braid.openAlternativeChanges', run.id, 'choose', 3),
      0,
      'the failed one kept no change',
    );
    assert.equal(existsSync(join(workspaceRoot(), FILE)), false, 'nothing landed before the pick');

    // Pick This Alternative on the tree row of alternative 2.
    assert.equal(
      await vscode.commands.executeCommand('braid.pickThisAlternative', {
        kind: 'alternative',
        runId: run.id,
        stepId: 'choose',
        index: 2,
      }),
      2,
    );
    const summary = await done;
    assert.deepEqual(summary.steps, { choose: 'succeeded', after: 'succeeded' });
    assert.equal(readFileSync(join(workspaceRoot(), FILE), 'utf8'), 'alt 2\n');
    await waitFor('the winner lens', async () =>
      (await lensTitles(uri)).some((t) => /^✓ alternative 2 of 3 won \(picked\)/.test(t)),
    );
    const after = rows();
    assert.match(String(after[1]!.description), /^won/);
    assert.equal((after[1]!.iconPath as vscode.ThemeIcon).id, 'star-full');
  });
});

/** The commit an alternative's change is kept under (the ref Open Alternative's Changes falls back to). */
function refCommit(runId: string, n: number): string {
  const ref = join(workspaceRoot(), '.git', 'refs', 'braid', 'runs', runId, `choose.alt${n}`);
  return readFileSync(ref, 'utf8').trim();
}
