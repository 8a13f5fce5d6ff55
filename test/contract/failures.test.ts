// Failures and limits the real CLIs hit, through `braid run`: an HTTP 500 shows the agent's own
// reason beside its exit code (step message, summary, status --json); a 429 reaches Braid's
// rate-limit wait within 30 s of the first 429 (the CLIs' own retry loops bounded), the reset
// hint the CLI printed is honoured, and the retried step succeeds; gemini's generic "Resource has
// been exhausted" 429 is a rate limit too. One run: every step at once.
import { strict as assert } from 'node:assert';
import { type AgentHome } from './harness/agentHome';
import { makeWorkspace, runPlan, stepOf } from './harness/braidRun';
import type { Scenario } from './modelServer/scenario';
import type { ModelServer, RecordedRequest } from './modelServer/server';
import { withModelAndHome } from './harness/suite';

const CLIS = ['claude', 'codex', 'gemini'] as const;
const PROVIDER = { claude: 'anthropic', codex: 'openai', gemini: 'gemini' } as const;

// Each step's prompt names its scenario.
function scenarioOf(req: RecordedRequest): Scenario {
  const text = req.userTexts.join('\n');
  if (text.includes('SCENARIO server-error')) return { turns: [{ error: 'server-error' }] };
  if (text.includes('SCENARIO limited-once'))
    return { turns: [{ error: 'rate-limit', resetSeconds: 3, times: 1 }, { text: 'recovered' }] };
  if (text.includes('SCENARIO quota-once')) return { turns: [{ error: 'quota', times: 1 }, { text: 'recovered' }] };
  return { turns: [{ text: 'ok' }] };
}

interface StepEvent {
  type: string;
  id: string;
  status: string;
  reason?: string;
  message?: string;
  retryAt?: string;
  time: string;
}

describe('failures and rate limits of the real agent CLIs (contract)', function () {
  this.timeout(180_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: scenarioOf }, (s, h) => {
    server = s;
    home = h;
  });

  it("500: the agent's reason and exit code; 429: Braid waits within 30 s, honours the hint, the retry succeeds", async () => {
    const ws = await makeWorkspace(home.dir, { git: false });
    const steps: string[] = [];
    for (const cli of CLIS) {
      steps.push(`  broken-${cli}:`, `    agent: ${cli}`, '    prompt: SCENARIO server-error');
      steps.push(`  limited-${cli}:`, `    agent: ${cli}`, '    prompt: SCENARIO limited-once', '    pool: limited');
    }
    steps.push('  quota-gemini:', '    agent: gemini', '    prompt: SCENARIO quota-once', '    retry-delay: 1s');
    const plan = ['version: 1', 'concurrency: 7', 'steps:', ...steps].join('\n') + '\n';
    const r = await runPlan(ws, plan, home.env, ['--json'], 170_000);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as StepEvent);

    // 500: failed, with the agent's words and the exit code, in status --json and the events.
    const reason = {
      claude: /API Error: 500/,
      codex: /experiencing high demand/,
      gemini: /API Error: 500 An internal error has occurred/,
    };
    for (const cli of CLIS) {
      const s = stepOf(r, `broken-${cli}`);
      assert.equal(s.status, 'failed', `broken-${cli}`);
      assert.match(s.message ?? '', reason[cli], `broken-${cli}: ${s.message}`);
      assert.match(s.message ?? '', /\(exit \d+\)$/, `broken-${cli}: the exit code beside the reason: ${s.message}`);
      const end = events.filter((e) => e.type === 'step' && e.id === `broken-${cli}` && e.status === 'failed').pop();
      // Events carry the record's own fields: the code in `reason`, the sentence in `message`.
      assert.equal(end?.reason, 'exit');
      assert.match(end?.message ?? '', reason[cli], 'the failed event carries it too');
      const log = await r.log(`broken-${cli}`);
      assert.doesNotMatch(log, /^\s+at .*\(file:/m, 'no stack trace in the readable log');
      assert.doesNotMatch(
        log,
        /256-color|Reading additional input from stdin|\[STARTUP\]/,
        'no noise in the readable log',
      );
      assert.doesNotMatch(log, /Reconnecting\.\.\./, 'codex did not reconnect: its retries are bounded');
    }

    // 429: rate-limited by Braid, soon after the first 429, then the next attempt succeeds.
    for (const cli of CLIS) {
      const id = `limited-${cli}`;
      const s = stepOf(r, id);
      assert.equal(s.status, 'succeeded', `${id}: ${s.message}\n${await r.log(id)}`);
      assert.equal(s.attempts[0]!.reason, 'rate-limited', `${id}: ${JSON.stringify(s.attempts[0])}`);
      const first429 = server.requests.find(
        (q) =>
          q.provider === PROVIDER[cli] && q.status === 429 && q.userTexts.join('\n').includes('SCENARIO limited-once'),
      )!;
      const wait = events.find(
        (e) => e.type === 'step' && e.id === id && e.status === 'waiting' && e.reason === 'rate-limited',
      )!;
      assert.ok(first429 && wait, `${id}: a 429 and a rate-limit wait`);
      const ms = Date.parse(wait.time) - first429.at;
      console.log(
        `      ${cli}: first 429 → Braid's rate-limit wait: ${(ms / 1000).toFixed(1)} s; wait until ${wait.retryAt}`,
      );
      assert.ok(ms <= 30_000, `${id}: ${ms} ms from the first 429 to Braid's wait`);
      const requests429 = server.requests.filter(
        (q) =>
          q.provider === PROVIDER[cli] && q.status === 429 && q.userTexts.join('\n').includes('SCENARIO limited-once'),
      ).length;
      assert.equal(requests429, 1, `${cli} made one request into the limit, not a retry loop`);
    }
    // Gemini's hint ("Please retry in 3.5s.", on its own line) sets the wait, not a 1-2 s back-off.
    const gw = events.find((e) => e.type === 'step' && e.id === 'limited-gemini' && e.status === 'waiting')!;
    // (The back-off without a hint would be 1–2 s from the 2 s retry-delay; the hint is 3–3.5 s, less
    // the few ms between reading it and scheduling the wait.)
    assert.ok(
      Date.parse(gw.retryAt!) - Date.parse(gw.time) >= 2_500,
      `gemini waits out its hint: ${gw.time} → ${gw.retryAt}`,
    );

    // Gemini's generic quota 429 (its stream says `unknown`) is a rate limit, retried.
    const q = stepOf(r, 'quota-gemini');
    assert.equal(q.status, 'succeeded', `quota-gemini: ${q.message}`);
    assert.equal(q.attempts[0]!.reason, 'rate-limited');
  });
});
