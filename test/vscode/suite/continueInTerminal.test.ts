// Continue in Terminal on a step that a live run is done with (issue 34): the run's process takes
// over a step only while it runs, so the window says the step continues once the run has ended and
// opens no terminal (a terminal would only show `braid attach` refusing). The hand-over itself is
// test/vscode/e2e/takeover.e2e.ts's (an ended run) and test/contract/takeover.test.ts's.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { braidApi, waitFor, writePlan } from './helpers';
import { plan } from '../../helpers/planText';

describe('Continue in Terminal', function () {
  this.timeout(60_000);

  it("on a live run's failed agent step: says it continues once the run has ended, and opens no terminal", async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'continue-live',
      plan`
        version: 1
        name: Continue live
        agents:
          quitter:
            input: text
            command: [sh, -c, "echo giving up; exit 1", quitter, "\${{ prompt }}"]
        steps:
          broken:
            agent: quitter
            prompt: Try the thing.
          slow:
            run: sleep 60
        `,
    );
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const run = await waitFor('the agent step failed while the run goes on', () => {
      const r = api.runs.runs().find((x) => x.planName === 'Continue live' && x.status === 'running');
      return r?.steps.get('broken')?.status === 'failed' && r.steps.get('slow')?.status === 'running' ? r : undefined;
    });
    const before = vscode.window.terminals.length;
    const opened = await vscode.commands.executeCommand('braid.continueInTerminal', run.id, 'broken');
    assert.equal(opened, undefined, 'no terminal handed over');
    assert.equal(vscode.window.terminals.length, before);
    assert.ok(!vscode.window.terminals.some((t) => t.name === 'Braid: broken'));
    await vscode.commands.executeCommand('braid.cancelRun', run.id);
    assert.notEqual((await done).status, 'succeeded');
    // Once the run has ended, the same command hands the step over (its agent gives up again at once).
    const later = await vscode.commands.executeCommand<vscode.Terminal | undefined>(
      'braid.continueInTerminal',
      run.id,
      'broken',
    );
    assert.equal(later?.name, 'Braid: broken', 'the ended run hands the step over');
    await waitFor('braid attach to end', () => later.exitStatus, 30_000);
    later.dispose();
  });
});
