// Braid in an untrusted workspace (restricted mode, trust kept on by the runner): it activates, shows
// and validates plans, but no command runs anything: no engine process, no new run record. The
// runner seeds one failed run (by the CLI) so retries have a real run to refuse.
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { engineSocketPathFor } from '../../../src/core/engineSocket';
import { PROTOCOL_VERSION } from '../../../src/protocol/engine';
import { braidApi, EXTENSION_ID, runRecord, waitFor, workspaceRoot, writePlan } from '../suite/helpers';
import { plan } from '../../helpers/planText';

const runsDir = (): string => join(workspaceRoot(), '.braid', 'runs');
const recordedRuns = (): string[] => (existsSync(runsDir()) ? readdirSync(runsDir()).sort() : []);

/** Whether anything answers on the workspace's engine socket, where a started engine would listen. */
function engineAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(engineSocketPathFor(workspaceRoot(), PROTOCOL_VERSION));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Pids of `braid serve` processes for this workspace (Linux /proc), in case one started but never listened. */
function enginePids(): number[] {
  if (!existsSync('/proc')) return [];
  const ws = workspaceRoot();
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv.includes('serve') && argv.includes(ws)) pids.push(Number(entry));
  }
  return pids;
}

async function assertNothingRan(before: readonly string[]): Promise<void> {
  assert.deepEqual(recordedRuns(), before, 'no new run record under .braid/runs');
  assert.equal(await engineAnswers(), false, 'no engine listens for this workspace');
  assert.deepEqual(enginePids(), [], 'no engine process for this workspace');
}

async function lenses(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
}

describe('an untrusted workspace', function () {
  this.timeout(60_000);
  const demo = (): vscode.Uri => vscode.Uri.file(join(workspaceRoot(), 'demo.braid.yaml'));

  it('is untrusted, and Braid still activates there (limited support, declared)', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the runner should have kept workspace trust on');
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not installed`);
    const caps = (ext.packageJSON as { capabilities?: { untrustedWorkspaces?: { supported?: unknown } } }).capabilities;
    assert.equal(caps?.untrustedWorkspaces?.supported, 'limited');
    await waitFor(`${EXTENSION_ID} to activate by itself`, () => ext.isActive);
  });

  it('shows the runs recorded before (the seeded failed run) in the tree', async () => {
    const api = await braidApi();
    const seeded = await waitFor('the seeded run', () => api.runs.runs().find((r) => r.planName === 'Seeded'));
    assert.equal(seeded.status, 'failed');
    const node = api.tree.getChildren().find((n) => n.runId === seeded.id);
    assert.ok(node, 'the seeded run is in the tree');
    assert.equal(api.tree.getTreeItem(node).contextValue, 'run.failed');
  });

  it('braid.runPlan, runStep and runFrom resolve undefined, start no engine and record no run', async () => {
    await braidApi();
    const before = recordedRuns();
    assert.equal(before.length, 1, `only the seeded run is recorded: ${before.join(', ')}`);
    assert.equal(await vscode.commands.executeCommand('braid.runPlan', demo()), undefined);
    await assertNothingRan(before);
    assert.equal(await vscode.commands.executeCommand('braid.runStep', demo(), 'hello'), undefined);
    await assertNothingRan(before);
    assert.equal(await vscode.commands.executeCommand('braid.runFrom', demo(), 'hello'), undefined);
    await assertNothingRan(before);
  });

  it('braid.retryFailed and braid.retryStep refuse the failed run: undefined, no engine, the record untouched', async () => {
    const api = await braidApi();
    const seeded = await waitFor('the seeded run', () => api.runs.runs().find((r) => r.planName === 'Seeded'));
    const before = recordedRuns();
    const recordBefore = readFileSync(join(runsDir(), seeded.id, 'run.json'), 'utf8');
    assert.equal(await vscode.commands.executeCommand('braid.retryFailed', seeded.id), undefined);
    await assertNothingRan(before);
    assert.equal(await vscode.commands.executeCommand('braid.retryStep', seeded.id, 'bad'), undefined);
    await assertNothingRan(before);
    assert.equal(readFileSync(join(runsDir(), seeded.id, 'run.json'), 'utf8'), recordBefore, 'run.json unchanged');
    assert.equal(runRecord(seeded.id).steps.bad?.attempts.length, 1);
    assert.equal(api.runs.get(seeded.id)?.status, 'failed');
  });

  it('braid.validatePlan still works: the error count, and the cycle in Problems', async () => {
    const bad = await writePlan(
      'cycle',
      plan`
        version: 1
        name: Cycle
        steps:
          x:
            needs: [y]
            run: echo x
          y:
            needs: [x]
            run: echo y
        `,
    );
    assert.ok((await vscode.commands.executeCommand<number>('braid.validatePlan', bad)) >= 1);
    assert.ok(
      vscode.languages.getDiagnostics(bad).some((d) => /cycle/i.test(d.message)),
      'a cycle diagnostic',
    );
    assert.equal(await vscode.commands.executeCommand('braid.validatePlan', demo()), 0);
  });

  it('Problems appear for a broken plan opened in the editor, at the line of each mistake', async () => {
    const uri = await writePlan(
      'broken',
      plan`
        version: 1
        name: Broken
        steps:
          a:
            run: echo a
            needs: [nope]
          b:
            rn: echo b
        `,
    );
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const diags = await waitFor('diagnostics', () => {
      const d = vscode.languages.getDiagnostics(uri);
      return d.length >= 2 ? d : undefined;
    });
    const lines = diags.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).map((d) => d.range.start.line);
    assert.ok(
      lines.includes(5) && lines.includes(7),
      JSON.stringify(diags.map((d) => [d.range.start.line, d.message])),
    );
    assert.ok(diags.every((d) => d.source === 'braid'));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('code lenses still show: Run plan · Show graph · Validate, and each step, with its last status', async () => {
    await braidApi();
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(demo()));
    const ls = await waitFor('lenses on the demo plan', async () => {
      const l = await lenses(demo());
      return l.length > 0 ? l : undefined;
    });
    const titles = ls.map((l) => l.command?.title ?? '');
    for (const t of ['$(run-all) Run plan', '$(type-hierarchy) Show graph', '$(check) Validate'])
      assert.ok(titles.includes(t), titles.join(' | '));
    // hello, count (a matrix step: one set of lenses), report.
    assert.equal(ls.filter((l) => l.command?.command === 'braid.runStep').length, 3);
    assert.equal(ls.filter((l) => l.command?.command === 'braid.runFrom').length, 3);

    const seededPlan = vscode.Uri.file(join(workspaceRoot(), 'plans', 'seeded.braid.yaml'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(seededPlan));
    const seededLenses = await waitFor('status lenses from the seeded run', async () => {
      const l = await lenses(seededPlan);
      return l.some((x) => x.command?.title.startsWith('✗ failed')) ? l : undefined;
    });
    assert.ok(
      seededLenses.some((l) => l.command?.command === 'braid.retryStep'),
      'a Retry lens (which would refuse, as above)',
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
