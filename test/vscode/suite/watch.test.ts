// The settings `braid.otel.endpoint` and `braid.notify` in a real VS Code: a run started by the
// command exports its trace to the endpoint and tells the webhook its end, through the engine
// process (the window passes the settings with the run request). Receivers on 127.0.0.1.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { startOtlpReceiver } from '../../helpers/otlpReceiver';
import { startWebhookReceiver } from '../../helpers/webhookReceiver';
import { writePlan } from './helpers';
import { plan } from '../../helpers/planText';

describe('settings: traces and webhooks', function () {
  this.timeout(90_000);

  it("braid.otel.endpoint gets the run's span tree and braid.notify its end", async () => {
    const otlp = await startOtlpReceiver();
    const hook = await startWebhookReceiver();
    const config = vscode.workspace.getConfiguration('braid');
    // Machine-scoped settings: user settings, not the workspace's.
    await config.update('otel.endpoint', otlp.endpoint, vscode.ConfigurationTarget.Global);
    await config.update('notify', [hook.url], vscode.ConfigurationTarget.Global);
    try {
      const uri = await writePlan(
        'watched',
        plan`
          version: 1
          name: Watched
          steps:
            a:
              run: echo a
            b:
              needs: [a]
              run: echo b
          `,
      );
      const summary = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
      assert.equal(summary.status, 'succeeded');
      const end = await hook.when((d) => d.body.braid.event === 'run-ended');
      assert.equal(end.body.braid.run, summary.runId);
      assert.match(end.body.text, /^Braid: run \S+ of Watched succeeded: 2 succeeded\. braid status \S+$/);
      await otlp.waitFor(5);
      const root = otlp.spans.find((s) => s.parentSpanId === '')!;
      assert.equal(root.name, 'braid run Watched');
      assert.equal(root.attributes['braid.run.id'], summary.runId);
      assert.deepEqual(
        otlp.spans
          .filter((s) => s.parentSpanId === root.spanId)
          .map((s) => s.name)
          .sort(),
        ['step a', 'step b'],
      );
    } finally {
      await config.update('otel.endpoint', undefined, vscode.ConfigurationTarget.Global);
      await config.update('notify', undefined, vscode.ConfigurationTarget.Global);
      await otlp.close();
      await hook.close();
    }
  });
});
