// The real agent CLIs through `braid run` with an OTLP endpoint set: each agent step's attempt is a
// span with the GenAI attributes, and its token figures are what the run recorded from the CLI's
// own stream (answered by the loopback model server with usage figures). Decoded by a receiver on
// 127.0.0.1 (protobuf).
import { strict as assert } from 'node:assert';
import { type AgentHome } from './harness/agentHome';
import { makeWorkspace, runPlan, stepOf } from './harness/braidRun';
import { scenarios } from './modelServer/scenario';
import type { ModelServer } from './modelServer/server';
import { withModelAndHome } from './harness/suite';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlpReceiver';

const SYSTEMS = { claude: 'anthropic', codex: 'openai', gemini: 'gcp.gemini' } as const;

describe('real agent CLIs exported as GenAI spans (contract)', function () {
  this.timeout(180_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: scenarios.answer('Traced.') }, (s, h) => {
    server = s;
    home = h;
  });

  it('claude, codex and gemini: one invoke_agent span each, gen_ai.system and the recorded tokens', async () => {
    void server;
    const otlp = await startOtlpReceiver();
    try {
      const ws = await makeWorkspace(home.dir, { git: false });
      const steps = Object.keys(SYSTEMS).flatMap((cli) => [
        `  ask-${cli}:`,
        `    agent: ${cli}`,
        '    prompt: Say it.',
      ]);
      const r = await runPlan(ws, ['version: 1', 'concurrency: 3', 'steps:', ...steps].join('\n') + '\n', {
        ...home.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.equal(r.stderr.includes('traces:'), false, r.stderr);
      const root = otlp.spans.find((s) => s.parentSpanId === '');
      assert.ok(root, otlp.spans.map((s) => s.name).join(', '));
      assert.equal(root.attributes['braid.run.id'], r.status.id);
      for (const [cli, system] of Object.entries(SYSTEMS)) {
        const step: ReceivedSpan | undefined = otlp.spans.find(
          (s) => s.name === `step ask-${cli}` && s.parentSpanId === root.spanId,
        );
        assert.ok(step, `step ask-${cli}`);
        const inv: ReceivedSpan[] = otlp.spans.filter((s: ReceivedSpan) => s.parentSpanId === step.spanId);
        assert.deepEqual(
          inv.map((s) => s.name),
          [`invoke_agent ${cli}`],
        );
        const att = stepOf(r, `ask-${cli}`).attempts[0]!;
        assert.ok(
          (att.inputTokens ?? 0) > 0 && (att.outputTokens ?? 0) > 0,
          `${cli} recorded tokens: ${JSON.stringify(att)}`,
        );
        const a = inv[0]!.attributes;
        assert.equal(a['gen_ai.system'], system);
        assert.equal(a['gen_ai.agent.name'], cli);
        assert.equal(a['gen_ai.usage.input_tokens'], att.inputTokens, cli);
        assert.equal(a['gen_ai.usage.output_tokens'], att.outputTokens, cli);
        assert.equal(a['gen_ai.conversation.id'], att.sessionId, cli);
        if (att.costUsd !== undefined) assert.equal(a['braid.cost_usd'], att.costUsd, cli);
        assert.equal(inv[0]!.status.code, 1, `${cli}: ok`);
      }
    } finally {
      await otlp.close();
    }
  });
});
