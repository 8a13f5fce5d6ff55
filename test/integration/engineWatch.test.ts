// The settings' watchers through the engine process, as the extension drives it: a run request's
// `watch` (braid.otel.endpoint, braid.notify) sends the run's trace to that endpoint and its end
// to that webhook, with nothing set in the engine's environment; a failing hook is said in the
// engine's log, once.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectEngine, type EngineClient } from '../../src/extension/engine/engineClient';
import { buildCli, MAIN } from '../helpers/cliRun';
import { startOtlpReceiver } from '../helpers/otlpReceiver';
import { startWebhookReceiver } from '../helpers/webhookReceiver';
import { until } from '../helpers/until';

describe('engine process: the settings’ trace endpoint and webhooks', function () {
  this.timeout(60_000);
  let dir = '';
  let client: EngineClient | undefined;
  before(() => {
    assert.ok(buildCli());
    dir = mkdtempSync(join(tmpdir(), 'braid-engine-watch-'));
  });
  after(async () => {
    if (client) {
      const pid = client.pid;
      client.dispose();
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('run → trace at the setting’s endpoint and word at its webhook; a failing one is logged once', async () => {
    const otlp = await startOtlpReceiver();
    const hook = await startWebhookReceiver();
    const broken = await startWebhookReceiver(503);
    try {
      writeFileSync(
        join(dir, 'p.braid.yaml'),
        'version: 1\nsteps:\n  a:\n    run: echo a\n  b:\n    needs: [a]\n    run: exit 2\n',
      );
      const env: Record<string, string> = {
        BRAID_ENGINE_IDLE_MS: '30000',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      };
      client = await connectEngine({ workspace: dir, cliPath: MAIN, clientName: 'engineWatch.test', env });
      const { runId } = await client.run({
        planFile: 'p.braid.yaml',
        watch: { otelEndpoint: otlp.endpoint, notify: [hook.url, broken.url] },
      });
      assert.equal((await client.whenEnded(runId)).status, 'failed');
      const end = await hook.when((d) => d.body.braid.event === 'run-ended');
      assert.match(
        end.body.text,
        new RegExp(`^Braid: run ${runId} of p failed: 1 succeeded, 1 failed\\. braid retry ${runId}$`),
      );
      await otlp.waitFor(5);
      const root = otlp.spans.find((s) => s.parentSpanId === '')!;
      assert.equal(root.attributes['braid.run.id'], runId);
      assert.equal(otlp.spans.filter((s) => s.parentSpanId === root.spanId).length, 2);
      // The engine writes its log as it goes: wait for the line rather than for a time.
      const log = join(dir, '.braid', 'engine.log');
      const text = await until(
        () => Promise.resolve(existsSync(log) ? readFileSync(log, 'utf8') : ''),
        (t) => t.includes('notify: the webhook'),
        "the engine log's line on the broken webhook",
      );
      const lines = text.split('\n').filter((l) => l.includes('notify: the webhook'));
      assert.equal(lines.length, 1, text);
      assert.match(
        lines[0]!,
        new RegExp(`run ${runId}: notify: the webhook http://127\\.0\\.0\\.1:\\d+/… failed \\(HTTP 503\\)`),
      );
      assert.equal(text.includes('secretToken'), false, "the hook's secret path is never logged");
    } finally {
      await otlp.close();
      await hook.close();
      await broken.close();
    }
  });
});
