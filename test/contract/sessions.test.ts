// Sessions, tokens and budgets the real CLIs report, through `braid run` and `braid retry
// --resume`: each CLI's resumed attempt continues its session (the model sees the first prompt
// again), a resumed codex thread's tokens are not counted twice, codex and gemini say "not
// reported" for cost, and claude gets a step's max-cost-usd as --max-budget-usd, stops itself
// there and its tokens are still recorded.
import { strict as assert } from 'node:assert';
import { type AgentHome } from './harness/agentHome';
import { braid, makeWorkspace, runPlan, stepOf } from './harness/braidRun';
import { scenarios } from './modelServer/scenario';
import type { ModelServer } from './modelServer/server';
import { withModelAndHome } from './harness/suite';
import { plan } from '../helpers/planText';

const CLIS = ['claude', 'codex', 'gemini'] as const;

describe('sessions, tokens and budgets of the real agent CLIs (contract)', function () {
  this.timeout(180_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: scenarios.answer('Answered.') }, (s, h) => {
    server = s;
    home = h;
  });

  it("retry --resume continues each CLI's session in the same folder; codex's resumed tokens are its own; every CLI has a cost, codex's and gemini's estimated", async () => {
    server.serve(scenarios.answer('Answered.'));
    const ws = await makeWorkspace(home.dir, { git: false });
    const steps = CLIS.flatMap((cli) => [
      `  s-${cli}:`,
      `    agent: ${cli}`,
      `    prompt: FIRST PROMPT for ${cli}`,
      '    check: test -f go',
    ]);
    const first = await runPlan(ws, ['version: 1', 'concurrency: 3', 'steps:', ...steps].join('\n') + '\n', home.env);
    for (const cli of CLIS)
      assert.equal(stepOf(first, `s-${cli}`).status, 'failed', `s-${cli}: its check fails the first time`);
    // codex and gemini report tokens, no cost: Braid estimates it from the price table (#33).
    assert.match(first.stdout, /s-codex .*\$\d[\d.]* est\./, `codex's cost is estimated: ${first.stdout}`);
    assert.match(first.stdout, /s-gemini .*\$\d[\d.]* est\./);
    assert.match(first.stdout, /s-claude .*\$\d/, 'claude reports its cost');

    await ws.write('go', '');
    const before = server.requests.length;
    const retry = await braid(['retry', first.status.id, '--resume', '--workspace', ws.dir], ws.dir, home.env);
    assert.equal(retry.code, 0, `${retry.stdout}\n${retry.stderr}`);
    const status = JSON.parse(
      (await braid(['status', first.status.id, '--json', '--workspace', ws.dir], ws.dir, home.env)).stdout,
    ) as typeof first.status;
    const resumed = server.requests.slice(before).filter((q) => q.conversation);
    for (const cli of CLIS) {
      const s = status.steps[`s-${cli}`]!;
      assert.equal(s.status, 'succeeded', `s-${cli}: ${s.message}`);
      const [a1, a2] = [s.attempts[0]!, s.attempts[s.attempts.length - 1]!];
      assert.equal(a2.sessionId, a1.sessionId, `${cli}: the same session`);
      assert.ok(
        resumed.some((q) => q.userTexts.some((t) => t.includes(`FIRST PROMPT for ${cli}`)) && q.position >= 1),
        `${cli}: the resumed request carries the first turn`,
      );
      assert.ok((a2.inputTokens ?? 0) > 0, `${cli}: tokens recorded`);
    }
    // Codex reported the thread's whole usage (both turns); the attempt keeps only its own.
    const codexRaw = await (async () => {
      const fs = await import('node:fs/promises');
      return fs.readFile(`${ws.dir}/.braid/runs/${first.status.id}/logs/s-codex.jsonl`, 'utf8');
    })();
    const totals = [...codexRaw.matchAll(/"turn\.completed","usage":\{"input_tokens":(\d+)/g)].map((m) => Number(m[1]));
    const c = status.steps['s-codex']!;
    assert.equal(totals.length, 2, codexRaw);
    assert.equal(
      c.attempts[c.attempts.length - 1]!.inputTokens,
      totals[1]! - totals[0]!,
      `resumed codex tokens: ${JSON.stringify(c.attempts)} from totals ${totals.join(',')}`,
    );
  });

  it("claude gets a step's max-cost-usd as --max-budget-usd, stops itself there, and its tokens are recorded", async () => {
    server.serve(scenarios.shell('echo one', 'unreachable'));
    const ws = await makeWorkspace(home.dir, { git: false });
    const r = await runPlan(
      ws,
      plan`
        version: 1
        steps:
          spend:
            agent: claude
            prompt: Spend.
            max-cost-usd: 0.0001
        `,
      home.env,
      ['--permission', 'full'],
    );
    const s = stepOf(r, 'spend');
    assert.equal(s.status, 'canceled', `${s.message}\n${await r.log('spend')}`);
    assert.match(s.message ?? '', /passed the step's budget/);
    const raw = await r.raw('spend');
    assert.match(raw, /error_max_budget_usd/, 'claude stopped itself at the budget (after one turn, not at its end)');
    assert.match(await r.log('spend'), /✗ Reached maximum budget/);
    const a = s.attempts[s.attempts.length - 1]!;
    assert.ok((a.inputTokens ?? 0) > 0 && (a.outputTokens ?? 0) > 0, `tokens from modelUsage: ${JSON.stringify(a)}`);
    assert.ok(s.costUsd !== undefined && s.costUsd > 0, 'its cost is recorded');
  });
});
