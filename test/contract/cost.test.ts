// What each real agent CLI costs through `braid run`, against the loopback model server answering
// with large usage figures in each provider's own wire format: codex's and gemini's tokens priced
// by Braid's table, claude's own figure as it reports it, each to the cent of what the price table
// says for the tokens the server sent; and a plan budget across the three holding and stopping.
import { strict as assert } from 'node:assert';
import { type AgentHome } from './harness/agentHome';
import { makeWorkspace, runPlan, stepOf } from './harness/braidRun';
import { scenarios, type Usage } from './modelServer/scenario';
import type { ModelServer, Provider, RecordedRequest } from './modelServer/server';
import { withModelAndHome } from './harness/suite';
import { costAt, priceOf } from '../../src/core/cost/prices';
import { plan } from '../helpers/planText';

const CLIS = { claude: 'anthropic', codex: 'openai', gemini: 'gemini' } as const satisfies Record<string, Provider>;
// Big enough that a cent is a fine measure: about $0.52 a claude turn, $0.56 codex, $0.04 gemini.
const USAGE: Usage = { input: 100_000, cached: 40_000, output: 8_000, reasoning: 1_000 };

const modelOf = (q: RecordedRequest): string => q.body.model ?? /models\/([^:/]+):/.exec(q.path)![1]!;

/** What the price table says the conversation's answered turns of `provider` cost. */
function tableCost(server: ModelServer, provider: Provider, since: number): number {
  const turns = server.requests
    .slice(since)
    .filter((q) => q.provider === provider && q.conversation && q.status === 200);
  assert.ok(turns.length > 0, `${provider} answered no turn`);
  return turns.reduce((sum, q) => {
    const price = priceOf(modelOf(q));
    assert.ok(price, `the table has a price for ${modelOf(q)}`);
    return (
      sum +
      costAt(price, { input: USAGE.input, cached: USAGE.cached, output: USAGE.output, reasoning: USAGE.reasoning })
    );
  }, 0);
}

const cents = (usd: number | undefined) => (usd === undefined ? undefined : Math.round(usd * 100));

describe('what each agent costs (contract)', function () {
  this.timeout(180_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: scenarios.answer('unused') }, (s, h) => {
    server = s;
    home = h;
  });

  for (const [cli, provider] of Object.entries(CLIS)) {
    it(`${cli}: the step's cost is what the price table says for the tokens the model sent, to the cent, and says whether reported or estimated`, async () => {
      server.serve(scenarios.costing(scenarios.writeFile('a.txt', 'a', 'Wrote a.txt.'), USAGE));
      const since = server.requests.length;
      const ws = await makeWorkspace(home.dir, { git: false });
      const r = await runPlan(
        ws,
        plan`
          version: 1
          steps:
            work:
              agent: ${cli}
              prompt: Write a.txt.
          `,
        home.env,
      );
      const s = stepOf(r, 'work');
      assert.equal(s.status, 'succeeded', `${r.stdout}\n${r.stderr}\n${await r.log('work')}`);
      const expected = tableCost(server, provider, since);
      assert.equal(cents(s.costUsd), cents(expected), `${cli}: braid says ${s.costUsd}, the table ${expected}`);
      const a = s.attempts[s.attempts.length - 1]!;
      assert.equal(a.costSource, cli === 'claude' ? 'reported' : 'estimated');
      assert.equal(s.costSource, a.costSource);
      assert.ok(
        (a.inputTokens as number) >= USAGE.input && (a.cachedInputTokens as number) >= USAGE.cached,
        JSON.stringify(a),
      );
      if (cli !== 'claude')
        assert.ok((a.reasoningTokens as number) >= USAGE.reasoning, `${cli} reasoning tokens: ${JSON.stringify(a)}`);
      assert.equal(typeof a.model, 'string');
      assert.equal(cents((r.status as unknown as { costUsd?: number }).costUsd), cents(expected), 'the run total');
      // What the user reads: the summary's cost column says whether Braid estimated it.
      const line = (r.stdout + r.stderr).split('\n').find((l) => l.startsWith('work '));
      assert.ok(line, r.stdout);
      if (cli === 'claude') assert.doesNotMatch(line, /est\./);
      else assert.match(line, /\$\d\.\d+ est\./);
    });
  }

  it('a plan budget across claude, codex and gemini: a step streaming past it is stopped (reason budget), and the run holds before the next', async () => {
    server.serve(scenarios.costing(scenarios.answer('Done.'), USAGE));
    const since = server.requests.length;
    const ws = await makeWorkspace(home.dir, { git: false });
    // claude ≈ $0.52, gemini ≈ $0.04 (0.56 so far), codex ≈ $0.56 streams past $1.00: stopped; claude2 never starts.
    const r = await runPlan(
      ws,
      plan`
        version: 1
        max-cost-usd: 1.00
        steps:
          first:
            agent: claude
            prompt: One.
          second:
            agent: gemini
            needs: [first]
            prompt: Two.
          third:
            agent: codex
            needs: [second]
            prompt: Three.
          fourth:
            agent: claude
            needs: [third]
            prompt: Four.
        `,
      home.env,
    );
    const out = `${r.stdout}\n${r.stderr}`;
    assert.deepEqual(
      ['first', 'second', 'third', 'fourth'].map((id) => stepOf(r, id).status),
      ['succeeded', 'succeeded', 'canceled', 'canceled'],
      out,
    );
    const third = stepOf(r, 'third');
    assert.equal(third.reason, 'budget');
    assert.match(third.message ?? '', /the run's spending \$1\.\d+ passed its budget \$1\.00/);
    assert.equal(stepOf(r, 'fourth').reason, 'budget');
    assert.equal(
      server.requests
        .slice(since)
        .filter((q) => q.provider === 'anthropic' && q.conversation && q.userTexts.some((t) => t.includes('Four.')))
        .length,
      0,
      'the held step never reached the model',
    );
    assert.equal(r.code, 1);
    assert.match(out, /braid retry \S+ --max-cost-usd \d/, 'the CLI says the command that raises the budget');
  });

  it('a claude step streaming past the budget is stopped mid-way, before the turns it would still have taken', async () => {
    const shells = Array.from({ length: 6 }, (_, i) => ({ shell: `echo turn-${i}` }));
    server.serve({ turns: [...shells, { text: 'Done.' }], usage: USAGE });
    const since = server.requests.length;
    const ws = await makeWorkspace(home.dir, { git: false });
    const r = await runPlan(
      ws,
      plan`
        version: 1
        max-cost-usd: 1.00
        steps:
          long:
            agent: claude
            prompt: Run the commands.
        `,
      home.env,
      ['--permission', 'full'],
    );
    const s = stepOf(r, 'long');
    assert.equal(s.status, 'canceled', `${r.stdout}\n${r.stderr}\n${await r.log('long')}`);
    assert.equal(s.reason, 'budget');
    const turns = server.requests.slice(since).filter((q) => q.provider === 'anthropic' && q.conversation).length;
    assert.ok(turns < 7, `stopped after ${turns} of its 7 turns`);
    assert.equal(
      s.costSource,
      'estimated',
      "killed before its result: the cost is Braid's estimate from what it streamed",
    );
    assert.ok((s.costUsd ?? 0) > 1, `${s.costUsd}`);
  });
});
