// Runs as traces: a real run exported through the official OTLP exporters to a receiver on
// 127.0.0.1 that decodes what arrives (protobuf and JSON), and the tree of spans and their
// attributes checked against the run's own record. Through runPlan (the engine's way, the
// setting's endpoint) and through the bundled CLI (OTEL_* variables, the module loaded apart).
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan } from '../../src/core/engine/runPlan';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import { tracingObserver } from '../../src/core/telemetry/tracing';
import { FAKE_AGENT } from '../helpers/agentScratch';
import { buildCli, MAIN, ROOT } from '../helpers/cliRun';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlpReceiver';
import { plan } from '../helpers/planText';

const q = (s: string) => JSON.stringify(s);

/** `braid ARGS` in `cwd` with `env` added, run without blocking this process (the receiver lives here). */
function braid(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1', ...env } },
      (_e, stdout, stderr) => done({ code: child.exitCode, stdout, stderr }),
    );
  });
}

/** The spans as a tree: children of each span id, the root(s), and a span by name under a parent. */
function tree(spans: readonly ReceivedSpan[]) {
  const roots = spans.filter((s) => s.parentSpanId === '');
  const children = (p: ReceivedSpan) => spans.filter((s) => s.parentSpanId === p.spanId);
  const one = (p: ReceivedSpan, name: string) => {
    const found = children(p).filter((s) => s.name === name);
    assert.equal(found.length, 1, `one ${name} under ${p.name}: ${spans.map((s) => s.name).join(', ')}`);
    return found[0]!;
  };
  return { roots, children, one };
}

describe('runs as traces (OTLP)', function () {
  this.timeout(120_000);
  let scratch = '';
  let bin = '';
  const repos: TestRepo[] = [];
  const receivers: OtlpReceiver[] = [];

  before(() => {
    assert.ok(buildCli());
    scratch = mkdtempSync(join(tmpdir(), 'braid-otel-'));
    bin = join(scratch, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec ${q(process.execPath)} ${q(FAKE_AGENT)} "$@"\n`);
    chmodSync(join(bin, 'claude'), 0o755);
  });
  after(async () => {
    for (const r of receivers) await r.close();
    for (const r of repos) r.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  const receiver = async (status?: number) => {
    const r = await startOtlpReceiver(status);
    receivers.push(r);
    return r;
  };
  const repo = (text: string) => {
    const r = makeRepo({ 'README.md': 'x\n' });
    repos.push(r);
    writeFileSync(join(r.dir, 'p.braid.yaml'), text);
    r.commitAll('plan');
    return r;
  };

  it('a run is one trace: run → steps → attempts and alternatives, with status, reason, exit code, writes and GenAI usage (protobuf)', async () => {
    const rx = await receiver();
    const r = repo(plan`
      version: 1
      env: { PATH: ${q(`${bin}:${process.env.PATH}`)}, FAKE_AGENT_FORMAT: claude, FAKE_AGENT_COST: '0.25' }
      steps:
        build:
          run: echo built > out.txt
          writes: [out.txt]
        flaky:
          needs: [build]
          run: exit 3
          retries: 1
          retry-delay: 0s
        after-flaky:
          needs: [flaky]
          run: echo never
        ask:
          needs: [build]
          agent: claude
          model: claude-test-model
          prompt: say hi
        race:
          agent: claude
          prompt: write it
          best-of: 2
          isolation: worktree
          env: { FAKE_AGENT_WRITE: "race.txt=done" }
          writes: [race.txt]
      `);
    const notices: string[] = [];
    const out = await runPlan({
      planFile: join(r.dir, 'p.braid.yaml'),
      workspace: r.dir,
      graceMs: 200,
      observers: [tracingObserver({}, { endpoint: rx.endpoint }, (m) => notices.push(m))!],
      onNotice: (m) => notices.push(m),
    });
    assert.ok(out.ok, JSON.stringify(out));
    const rec: RunRecord = out.record;
    assert.deepEqual(notices, []);
    const spans = rx.spans;
    // run + 5 steps + build 1 + flaky 2 + ask 1 attempts + race's 2 alternatives.
    assert.equal(spans.length, 12, spans.map((s) => s.name).join(', '));
    assert.ok(
      spans.every(
        (s) => s.encoding === 'protobuf' && s.traceId === spans[0]!.traceId && /^[0-9a-f]{32}$/.test(s.traceId),
      ),
      'one trace',
    );
    assert.equal(spans[0]!.resource['service.name'], 'braid');
    const t = tree(spans);
    assert.equal(t.roots.length, 1);
    const run = t.roots[0]!;
    assert.equal(run.name, 'braid run p');
    assert.equal(run.attributes['braid.run.id'], rec.id);
    assert.equal(run.attributes['braid.run.status'], 'failed');
    assert.equal(run.status.code, 2, 'a failed run is an error');
    assert.deepEqual(
      t
        .children(run)
        .map((s) => s.name)
        .sort(),
      ['step after-flaky', 'step ask', 'step build', 'step flaky', 'step race'],
    );

    const build = t.one(run, 'step build');
    assert.deepEqual(build.attributes['braid.step.writes'], ['out.txt']);
    assert.equal(build.attributes['braid.step.status'], 'succeeded');
    assert.equal(build.status.code, 1);
    assert.equal(t.one(build, 'attempt 1').attributes['process.exit.code'], 0);

    const flaky = t.one(run, 'step flaky');
    assert.equal(flaky.attributes['braid.step.status'], 'failed');
    assert.equal(flaky.attributes['braid.step.reason'], 'exit');
    assert.equal(flaky.attributes['process.exit.code'], 3);
    assert.deepEqual(flaky.status, { code: 2, message: 'exited with code 3' });
    const [a1, a2] = [t.one(flaky, 'attempt 1'), t.one(flaky, 'attempt 2')];
    assert.equal(a1.attributes['process.exit.code'], 3);
    assert.equal(a2.attributes['braid.attempt.reason'], 'exit');
    assert.ok(a1.endNs <= a2.startNs, 'the retry starts after the first attempt ended');
    assert.ok(flaky.startNs <= a1.startNs && a2.endNs <= flaky.endNs, 'attempts lie inside their step');

    const skipped = t.one(run, 'step after-flaky');
    assert.equal(skipped.attributes['braid.step.status'], 'skipped');
    assert.equal(skipped.attributes['braid.step.message'], 'flaky failed');
    assert.equal(t.children(skipped).length, 0);

    const ask = t.one(run, 'step ask');
    const inv = t.one(ask, 'invoke_agent claude');
    const att = rec.steps.ask!.attempts[0]!;
    assert.ok((att.inputTokens ?? 0) > 0 && (att.outputTokens ?? 0) > 0, JSON.stringify(att));
    assert.equal(inv.kind, 3, 'an agent invocation is a client span');
    assert.equal(inv.attributes['gen_ai.system'], 'anthropic');
    assert.equal(inv.attributes['gen_ai.operation.name'], 'invoke_agent');
    assert.equal(inv.attributes['gen_ai.request.model'], 'claude-test-model');
    assert.equal(inv.attributes['gen_ai.usage.input_tokens'], att.inputTokens);
    assert.equal(inv.attributes['gen_ai.usage.output_tokens'], att.outputTokens);
    assert.equal(inv.attributes['gen_ai.conversation.id'], att.sessionId);
    assert.equal(inv.attributes['braid.cost_usd'], 0.25);
    assert.equal(ask.attributes['braid.cost_usd'], rec.steps.ask!.costUsd);

    const race = t.one(run, 'step race');
    const alts = t.children(race).sort((x, y) => x.name.localeCompare(y.name));
    assert.deepEqual(
      alts.map((s) => s.name),
      ['alternative 1', 'alternative 2'],
    );
    for (const alt of alts) {
      const i = alt.attributes['braid.alternative'] as number;
      assert.equal(
        alt.attributes['braid.alternative.status'],
        rec.steps.race!.alternatives!.find((x) => x.index === i)!.status,
      );
      assert.equal(alt.attributes['gen_ai.system'], 'anthropic');
    }
    assert.equal(race.attributes['braid.step.winner'], rec.steps.race!.winner);
  });

  it('the CLI honours OTEL_EXPORTER_OTLP_ENDPOINT, _PROTOCOL=http/json, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES', async () => {
    const rx = await receiver();
    const r = repo(plan`
      version: 1
      steps:
        one:
          run: echo one
        two:
          needs: [one]
          run: echo two
      `);
    const res = await braid(['run', 'p.braid.yaml'], r.dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: rx.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'ci-braid',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
    });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stderr.includes('traces:'), false, res.stderr);
    assert.ok(
      rx.requests.every((x) => x.path === '/v1/traces' && x.contentType.startsWith('application/json')),
      JSON.stringify(rx.requests),
    );
    const t = tree(rx.spans);
    assert.equal(rx.spans.length, 5);
    assert.ok(rx.spans.every((s) => s.encoding === 'json'));
    const run = t.roots[0]!;
    assert.equal(run.resource['service.name'], 'ci-braid');
    assert.equal(run.resource['deployment.environment'], 'test');
    assert.equal(run.attributes['braid.run.status'], 'succeeded');
    assert.equal(t.one(t.one(run, 'step two'), 'attempt 1').status.code, 1);
  });

  it('with no endpoint a run sends nothing and never loads OpenTelemetry; OTEL_SDK_DISABLED wins over an endpoint', async () => {
    const rx = await receiver();
    const r = repo(plan`
      version: 1
      steps:
        one:
          run: echo one
      `);
    // Told by a preload, at the CLI's exit: which modules it loaded.
    const seen = join(scratch, 'loaded.json');
    const preload = join(scratch, 'loaded.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('fs').writeFileSync(${q(seen)}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const loaded = () =>
      (JSON.parse(readFileSync(seen, 'utf8')) as string[]).filter(
        (p) => p.includes('opentelemetry') || p.endsWith('otelTracer.js'),
      );

    const plain = await braid(['run', 'p.braid.yaml'], r.dir, {
      NODE_OPTIONS: `--require ${preload}`,
      OTEL_SERVICE_NAME: 'x',
    });
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual(loaded(), []);

    const disabled = await braid(['run', 'p.braid.yaml'], r.dir, {
      NODE_OPTIONS: `--require ${preload}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: rx.endpoint,
      OTEL_SDK_DISABLED: 'true',
    });
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.deepEqual(loaded(), []);
    assert.equal(rx.requests.length, 0);

    // The same preload sees the module when an endpoint is set: the check above can fail.
    const traced = await braid(['run', 'p.braid.yaml'], r.dir, {
      NODE_OPTIONS: `--require ${preload}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: rx.endpoint,
    });
    assert.equal(traced.code, 0, traced.stderr);
    assert.ok(
      loaded().some((p) => p === join(ROOT, 'out', 'otelTracer.js')),
      JSON.stringify(loaded()),
    );
    assert.equal(rx.spans.length, 3);
  });

  it('a collector that refuses the spans is told once and never fails the run', async () => {
    const rx = await receiver(400);
    const r = repo(plan`
      version: 1
      steps:
        one:
          run: echo one
      `);
    const res = await braid(['run', 'p.braid.yaml'], r.dir, { OTEL_EXPORTER_OTLP_ENDPOINT: rx.endpoint });
    assert.equal(res.code, 0, res.stderr);
    assert.ok(rx.requests.length >= 1, 'the exporter did try');
    const told = res.stderr.split('\n').filter((l) => l.includes('traces: could not send'));
    assert.equal(told.length, 1, res.stderr);
    assert.match(
      told[0]!,
      new RegExp(`braid: traces: could not send the run's spans to ${rx.endpoint.replace(/\./g, '\\.')}/v1/traces`),
    );
  });
});
