// Agent steps through runPlan with the fake agent (real processes, real files): readable logs and
// the raw stream beside them, session ids, costs and final answers on the records, rate-limit
// requeues that do not use retries, budgets, and resuming a session on retry.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESUME_PROMPT } from '../../src/core/agents/resume';
import { runPlan, type RunRequest } from '../../src/core/engine/runPlan';
import { RunStore } from '../../src/core/engine/records/runStore';
import type { EngineEvent } from '../../src/core/engine/types';
import { plan } from '../helpers/planText';

const FAKE = join(__dirname, '..', 'fixtures', 'agents', 'fake-agent.mjs');
const SESSION = '7f3c9a2e-1b4d-4c8e-9f10-2a3b4c5d6e7f';
const THREAD = '0199a213-81c0-7800-8aa1-bbab2a035a53';
const GEMINI_SESSION = 'c2d6a0e4-5f1b-4a7c-8e9d-0b1c2d3e4f5a';

const q = (s: string) => JSON.stringify(s);
// The presets' own names, so they keep their formats and pools; only argv[0] is the fake agent.
// The fake agent as claude, codex and gemini (each in its stream format): a plan's `agents:` block,
// without its last newline, so that a plan puts it on a line of its own.
const AGENTS = plan`
  agents:
    claude:
      command: [${q(process.execPath)}, ${q(FAKE)}, -p, "\${{ prompt }}", --output-format, stream-json, --verbose]
      env: { FAKE_AGENT_FORMAT: claude }
      input: text
    codex:
      command: [${q(process.execPath)}, ${q(FAKE)}, exec, --json, "\${{ prompt }}"]
      env: { FAKE_AGENT_FORMAT: codex }
      input: text
    gemini:
      command: [${q(process.execPath)}, ${q(FAKE)}, -p, "\${{ prompt }}", --output-format, stream-json]
      env: { FAKE_AGENT_FORMAT: gemini }
      input: text
  `.trimEnd();

describe('agent steps through runPlan (fake agent)', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  function workspace(text: string): { dir: string; plan: string } {
    const dir = mkdtempSync(join(tmpdir(), 'braid-agent-run-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'p.braid.yaml'), text);
    return { dir, plan: join(dir, 'p.braid.yaml') };
  }

  async function run(w: { dir: string; plan: string }, extra: Partial<RunRequest> = {}) {
    const events: EngineEvent[] = [];
    const outcome = await runPlan({
      planFile: w.plan,
      workspace: w.dir,
      compile: { isGit: false },
      onEvent: (e) => events.push(e),
      graceMs: 200,
      ...extra,
    });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    return { ...outcome, events };
  }

  it('claude: readable log, raw stream beside it, the final answer as output, session and cost on the records', async () => {
    const w = workspace(plan`
      version: 1
      ${AGENTS}
      env: { FAKE_AGENT_ANSWER: "the schema is ready" }
      steps:
        design:
          prompt: design it
        use:
          needs: [design]
          run: echo "got \${{ steps.design.output }}"
      `);
    const { runId, result, record, events } = await run(w);
    assert.equal(result.status, 'succeeded');
    const paths = new RunStore(w.dir).paths(runId);
    const log = readFileSync(paths.log('design'), 'utf8');
    assert.match(log, /^Let me run the tests\.$/m);
    assert.match(log, /Bash.*npm test/);
    assert.match(log, /· done · 3 turns · \$0\.0123/);
    assert.doesNotMatch(log, /"type":"assistant"/, 'the log is readable text, not the raw stream');
    const raw = readFileSync(paths.rawLog('design'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(raw[0]!.braid, 'attempt');
    assert.ok(raw.some((e) => e.type === 'result' && e.total_cost_usd === 0.0123));
    assert.equal(readFileSync(paths.output('design'), 'utf8'), 'the schema is ready');
    assert.match(readFileSync(paths.log('use'), 'utf8'), /got the schema is ready/);
    const step = record.steps.design!;
    assert.equal(step.sessionId, SESSION);
    assert.equal(step.costUsd, 0.0123);
    assert.equal(step.attempts.length, 1);
    assert.equal(step.attempts[0]!.sessionId, SESSION);
    assert.equal(step.attempts[0]!.turns, 3);
    assert.equal(step.attempts[0]!.costUsd, 0.0123);
    assert.equal(record.costUsd, 0.0123);
    const onDisk = await new RunStore(w.dir).load(runId);
    assert.equal(onDisk!.steps.design!.costUsd, 0.0123);
    // Events: progress with the session and cost, the readable lines as output, the cost at the end.
    assert.ok(
      events.some((e) => e.type === 'agent' && e.id === 'design' && e.sessionId === SESSION && e.costUsd === 0.0123),
    );
    assert.ok(events.some((e) => e.type === 'agent' && e.activity !== undefined));
    const out = events
      .filter((e) => e.type === 'output' && e.id === 'design')
      .map((e) => (e.type === 'output' ? e.text : ''))
      .join('');
    assert.match(out, /Let me run the tests\./);
    assert.doesNotMatch(out, /"session_id"/);
    assert.ok(
      events.some((e) => e.type === 'step' && e.id === 'design' && e.status === 'succeeded' && e.costUsd === 0.0123),
    );
    const end = events.at(-1)!;
    assert.ok(end.type === 'run' && end.costUsd === 0.0123);
  });

  it('codex: the thread id is the session, the last agent message the output', async () => {
    const w = workspace(plan`
      version: 1
      ${AGENTS}
      steps:
        a:
          agent: codex
          prompt: fix it
          env: { FAKE_AGENT_ANSWER: fixed }
      `);
    const { runId, record } = await run(w);
    assert.equal(record.steps.a!.status, 'succeeded');
    assert.equal(record.steps.a!.sessionId, THREAD);
    assert.equal(record.steps.a!.costUsd, undefined, 'codex reports tokens, not dollars');
    assert.equal(record.steps.a!.attempts[0]!.inputTokens, 2400);
    assert.equal(readFileSync(new RunStore(w.dir).paths(runId).output('a'), 'utf8'), 'fixed');
  });

  it('a rate-limited agent is requeued with back-off and succeeds on the third try with retries: 0', async () => {
    const w = workspace(plan`
      version: 1
      ${AGENTS}
      steps:
        a:
          prompt: go
          retries: 0
          retry-delay: 50ms
          env: { FAKE_AGENT_RATE_LIMIT: "2", FAKE_AGENT_STATE: ${q(join(tmpdir(), `braid-rl-${process.pid}-${Date.now()}`))}, FAKE_AGENT_RESET: soon }
      `);
    const { runId, record, events } = await run(w);
    const a = record.steps.a!;
    assert.equal(a.status, 'succeeded');
    assert.equal(a.attempts.length, 3);
    assert.deepEqual(
      a.attempts.map((t) => t.reason),
      ['rate-limited', 'rate-limited', undefined],
    );
    const waits = events.filter((e) => e.type === 'step' && e.status === 'waiting');
    assert.equal(waits.length, 2);
    for (const e of waits) {
      assert.ok(e.type === 'step' && e.retryAt !== undefined);
      assert.equal(e.type === 'step' ? e.reason : '', 'rate-limited');
      assert.match(
        e.type === 'step' ? (e.message ?? '') : '',
        /^rate-limited, retrying at \d\d:\d\d \(.*hit your limit/,
      );
    }
    assert.match(
      readFileSync(new RunStore(w.dir).paths(runId).log('a'), 'utf8'),
      /──── rate-limited: .*hit your limit/,
    );
  });

  it('a plain-text agent: its stdout is the log and the output; a litellm rate limit in it is detected', async () => {
    const w = workspace(plan`
      version: 1
      agents:
        helper:
          command: [${q(process.execPath)}, ${q(FAKE)}, --yes-always, --message, "\${{ prompt }}"]
          env: { FAKE_AGENT_FORMAT: text }
          input: text
      steps:
        a:
          agent: helper
          prompt: go
          retry-delay: 10ms
          env: { FAKE_AGENT_ANSWER: all done, FAKE_AGENT_RATE_LIMIT: "1", FAKE_AGENT_STATE: ${q(join(tmpdir(), `braid-rlt-${process.pid}-${Date.now()}`))} }
      `);
    const { runId, record } = await run(w);
    assert.equal(record.steps.a!.status, 'succeeded');
    assert.deepEqual(
      record.steps.a!.attempts.map((t) => t.reason),
      ['rate-limited', undefined],
    );
    const paths = new RunStore(w.dir).paths(runId);
    assert.match(readFileSync(paths.output('a'), 'utf8'), /Applied edit to src\/a\.ts\nall done$/);
    assert.match(readFileSync(paths.log('a'), 'utf8'), /litellm\.RateLimitError/);
  });

  it('gemini: waits for the delay it printed ("Please retry in 0.2s")', async () => {
    const w = workspace(plan`
      version: 1
      ${AGENTS}
      steps:
        a:
          agent: gemini
          prompt: go
          retry-delay: 10ms
          env: { FAKE_AGENT_RATE_LIMIT: "1", FAKE_AGENT_STATE: ${q(join(tmpdir(), `braid-rlg-${process.pid}-${Date.now()}`))}, FAKE_AGENT_RESET: 0.2s }
      `);
    const { runId, record, events } = await run(w);
    assert.equal(record.steps.a!.status, 'succeeded');
    // Read as gemini's stream (the preset's own --output-format stream-json), not as plain text:
    // the session comes from its init event, the output is the answer its deltas spell.
    assert.equal(record.steps.a!.sessionId, GEMINI_SESSION);
    assert.equal(record.steps.a!.attempts.at(-1)!.inputTokens, 1300);
    assert.equal(readFileSync(new RunStore(w.dir).paths(runId).output('a'), 'utf8'), 'done: go');
    const wait = events.find((e) => e.type === 'step' && e.status === 'waiting');
    assert.ok(wait && wait.type === 'step');
    // The wait is measured from the printed reset, not the 10 ms retry-delay.
    assert.ok(Date.parse(wait.retryAt!) - Date.parse(wait.time) >= 100, `${wait.retryAt} vs ${wait.time}`);
  });

  it('the run’s max-cost-usd: the step whose stream passes it is stopped, no new step starts; the run fails with reason budget', async () => {
    const w = workspace(plan`
      version: 1
      ${AGENTS}
      max-cost-usd: 0.02
      concurrency: 1
      steps:
        a:
          prompt: one
        b:
          needs: [a]
          prompt: two
        c:
          needs: [b]
          prompt: three
      `);
    const asked: number[] = [];
    const { result, record, events } = await run(w, {
      onBudget: async (spent) => {
        asked.push(spent);
        return 'stop';
      },
    });
    assert.equal(result.status, 'failed');
    assert.equal(result.reason, 'budget');
    // b's stream passes $0.02 (a budget counts what is being spent): it is stopped there, c never starts.
    assert.deepEqual(
      Object.values(record.steps).map((s) => s.status),
      ['succeeded', 'canceled', 'canceled'],
    );
    assert.equal(record.steps.b!.reason, 'budget');
    assert.equal(record.steps.c!.reason, 'budget');
    assert.equal(record.reason, 'budget');
    assert.equal(asked.length, 1);
    assert.ok(Math.abs(record.costUsd! - 0.0246) < 1e-9);
    const end = events.at(-1)!;
    assert.ok(end.type === 'run' && end.reason === 'budget');
  });

  it('a step past its own max-cost-usd is killed and canceled with reason budget', async () => {
    const w = workspace(plan`
      version: 1
      ${AGENTS}
      steps:
        a:
          prompt: spend
          max-cost-usd: 0.01
          env: { FAKE_AGENT_COST: "0.05", FAKE_AGENT_LINGER_MS: "20000" }
      `);
    const { record } = await run(w);
    const a = record.steps.a!;
    assert.equal(a.status, 'canceled');
    assert.equal(a.reason, 'budget');
    assert.notEqual(a.signal ?? null, null, 'the agent, still running after its report, was killed');
    assert.equal(a.costUsd, 0.05);
  });

  it('retry with resume continues the recorded session; without it, the agent starts over; both are told why the last attempt failed', async () => {
    const argvFile = join(tmpdir(), `braid-argv-${process.pid}-${Date.now()}.json`);
    const w = workspace(plan`
      version: 1
      ${AGENTS}
      env: { FAKE_AGENT_ARGV_FILE: ${q(argvFile)} }
      steps:
        a:
          prompt: build the thing
          check: test -f done
      `);
    const first = await run(w);
    assert.equal(first.record.steps.a!.status, 'failed');
    assert.equal(first.record.steps.a!.sessionId, SESSION);
    writeFileSync(join(w.dir, 'done'), '');

    const fresh = await run(w, { retry: { runId: first.runId } });
    assert.equal(fresh.record.steps.a!.status, 'succeeded');
    const startedOver = JSON.parse(readFileSync(argvFile, 'utf8')) as { argv: string[]; prompt: string };
    assert.ok(!startedOver.argv.includes('--resume'));
    assert.match(
      startedOver.prompt,
      /^build the thing\n\nThe previous attempt \(attempt 1\) failed: check failed \(exit 1\): test -f done\n\n/,
    );

    rmSync(join(w.dir, 'done'));
    const failedAgain = await run(w, { retry: { runId: first.runId, steps: ['a'] } });
    assert.equal(failedAgain.record.steps.a!.status, 'failed');
    writeFileSync(join(w.dir, 'done'), '');
    const resumed = await run(w, { retry: { runId: first.runId }, resume: true });
    assert.equal(resumed.record.steps.a!.status, 'succeeded');
    const got = JSON.parse(readFileSync(argvFile, 'utf8')) as { argv: string[]; prompt: string };
    assert.deepEqual(got.argv.slice(0, 3), ['--resume', SESSION, '-p']);
    assert.match(
      got.prompt,
      /^The previous attempt \(attempt 3\) failed: check failed \(exit 1\): test -f done\n\n[^]*finish the task\.$/,
    );
    assert.notEqual(got.prompt, RESUME_PROMPT);
    assert.equal(resumed.record.steps.a!.attempts.length, 4, 'attempts of every run of the step are kept');
    assert.match(
      readFileSync(new RunStore(w.dir).paths(first.runId).log('a'), 'utf8'),
      new RegExp(`──── resuming session ${SESSION} ────`),
    );
    rmSync(argvFile, { force: true });
  });
});
