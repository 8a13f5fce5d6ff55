// From an agent's tokens to a cost: the pinned price table (dated, sourced), the user's prices over
// it, model names as the CLIs spell them, and an unknown model's cost as unknown, never $0.
import { strict as assert } from 'node:assert';
import { usageOf } from '../../src/core/cost/agentCost';
import { topLevelModel, configuredModel } from '../../src/core/cost/agentModel';
import { PINNED_PRICES } from '../../src/core/cost/priceTable';
import { baseModel, costAt, estimate, priceOf } from '../../src/core/cost/prices';
import { createAgentStream } from '../../src/core/agents/streams/createStream';
import { costText } from '../../src/core/cost/costText';

const j = (o: unknown) => `${JSON.stringify(o)}\n`;
const near = (a: number | undefined, b: number) => assert.ok(a !== undefined && Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`);

describe('cost: prices and estimates', () => {
  it('every pinned price says where and when it was read', () => {
    for (const [model, p] of Object.entries(PINNED_PRICES)) {
      assert.match(p.source, /^https:\/\//, model);
      assert.match(p.read, /^\d{4}-\d{2}-\d{2}$/, model);
      assert.ok(p.input > 0 && p.output > 0 && (p.cachedInput ?? 0) <= p.input, model);
    }
  });

  it('model names as the CLIs report them find their price', () => {
    assert.equal(baseModel('claude-sonnet-4-5-20250929'), 'claude-sonnet-4-5');
    assert.equal(baseModel('claude-opus-4-8[1m]'), 'claude-opus-4-8');
    assert.equal(baseModel('models/gemini-2.5-flash'), 'gemini-2.5-flash');
    assert.equal(priceOf('claude-opus-4-8[1m]')?.output, 25);
    assert.equal(priceOf('gpt-5.5-turbo-unknown'), undefined, 'no guessing by prefix');
  });

  it('cached input at its own price, reasoning inside output: gpt-5.5 at $5 / $0.50 / $30 per million', () => {
    // 1,000 input of which 400 cached, 200 output (50 of them reasoning).
    near(
      costAt(priceOf('gpt-5.5')!, { input: 1000, cached: 400, output: 200, reasoning: 50 }),
      (600 * 5 + 400 * 0.5 + 200 * 30) / 1e6,
    );
  });

  it("the user's tables win over the pinned one, first table first", () => {
    const mine = { 'gpt-5.5': { input: 1, output: 2 } };
    const plan = { 'gpt-5.5': { input: 10, output: 20 } };
    assert.deepEqual(priceOf('gpt-5.5', [plan, mine]), plan['gpt-5.5']);
    near(costAt(priceOf('gpt-5.5', [mine])!, { input: 1e6, cached: 5e5, output: 0, reasoning: 0 }), 1);
  });

  it('an unknown model has an unknown cost, saying which, never 0', () => {
    assert.deepEqual(estimate(new Map([['my-local-model', { input: 10, cached: 0, output: 5, reasoning: 0 }]])), {
      unknown: 'cost unknown: no price for my-local-model',
    });
    assert.deepEqual(estimate(new Map([[undefined, { input: 10, cached: 0, output: 5, reasoning: 0 }]])), {
      unknown: 'cost unknown: the agent did not say which model it used',
    });
    const u = usageOf({ errors: [], inputTokens: 10, outputTokens: 5 }, { tables: [], model: 'my-local-model' });
    assert.equal(u.costUsd, undefined);
    assert.equal(u.costUnknown, 'cost unknown: no price for my-local-model');
  });

  it("claude's own figure stays as reported; codex's tokens are estimated at the configured model's price", () => {
    const claude = usageOf(
      { errors: [], model: 'claude-opus-4-8', inputTokens: 205, outputTokens: 40, costUsd: 0.5 },
      { tables: [] },
    );
    assert.deepEqual([claude.costUsd, claude.costSource], [0.5, 'reported']);
    const codex = usageOf(
      { errors: [], inputTokens: 417, cachedInputTokens: 100, outputTokens: 60, reasoningTokens: 0 },
      { tables: [], model: 'gpt-5.5' },
    );
    assert.equal(codex.costSource, 'estimated');
    assert.equal(codex.model, 'gpt-5.5');
    near(codex.costUsd, (317 * 5 + 100 * 0.5 + 60 * 30) / 1e6);
  });

  it('codex: reasoning tokens from turn.completed, the model from config.toml (or -m)', () => {
    const s = createAgentStream('codex-json');
    s.push(
      j({
        type: 'turn.completed',
        usage: { input_tokens: 1000, cached_input_tokens: 200, output_tokens: 300, reasoning_output_tokens: 120 },
      }),
    );
    s.end();
    assert.deepEqual(
      [s.summary.inputTokens, s.summary.cachedInputTokens, s.summary.outputTokens, s.summary.reasoningTokens],
      [1000, 200, 300, 120],
    );
    assert.equal(topLevelModel('# mine\nmodel = "gpt-5.4"\n[profiles.x]\nmodel = "o3"\n'), 'gpt-5.4');
    assert.equal(topLevelModel('[model_providers.x]\nmodel = "o3"\n'), undefined, "a table's model is not codex's");
    assert.equal(
      configuredModel('codex', ['codex', 'exec', '--model', 'gpt-5.4-mini', '--', '-m nope'], {}),
      'gpt-5.4-mini',
    );
    assert.equal(
      configuredModel('codex', ['codex', 'exec', '--', '--model=nope'], { CODEX_HOME: '/nonexistent' }),
      undefined,
      'the prompt is never read for a flag',
    );
  });

  it('gemini: thoughts (total − input − output) are reasoning, billed as output, per model', () => {
    const s = createAgentStream('gemini-json');
    s.push(j({ type: 'init', session_id: 'g', model: 'gemini-2.5-flash' }));
    s.push(
      j({
        type: 'result',
        status: 'success',
        stats: {
          total_tokens: 1500,
          input_tokens: 1000,
          output_tokens: 100,
          cached: 600,
          models: {
            'gemini-2.5-flash': { total_tokens: 1400, input_tokens: 900, output_tokens: 100, cached: 600 },
            'gemini-2.5-flash-lite': { total_tokens: 100, input_tokens: 100, output_tokens: 0, cached: 0 },
          },
        },
      }),
    );
    s.end();
    assert.deepEqual(s.summary.models, {
      'gemini-2.5-flash': { input: 900, cached: 600, output: 500, reasoning: 400 },
      'gemini-2.5-flash-lite': { input: 100, cached: 0, output: 0, reasoning: 0 },
    });
    const u = usageOf(s.summary, { tables: [] });
    near(u.costUsd, (300 * 0.3 + 600 * 0.03 + 500 * 2.5 + 100 * 0.1) / 1e6);
  });

  it('claude: tokens grow with each assistant message while it runs (an estimate), its result replaces them', () => {
    const s = createAgentStream('claude-stream-json');
    const msg = (id: string, input: number) =>
      j({
        type: 'assistant',
        message: {
          id,
          model: 'claude-opus-4-8',
          content: [{ type: 'text', text: 'hi' }],
          usage: { input_tokens: input, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 },
        },
      });
    s.push(msg('m1', 100) + msg('m1', 100) + msg('m2', 150));
    assert.deepEqual([s.summary.inputTokens, s.summary.outputTokens], [250, 2], 'one message seen twice counts once');
    const live = usageOf(s.summary, { tables: [] });
    assert.equal(live.costSource, 'estimated');
    near(live.costUsd, (250 * 5 + 2 * 25) / 1e6);
    s.push(
      j({
        type: 'result',
        subtype: 'success',
        num_turns: 2,
        total_cost_usd: 0.002025,
        usage: { input_tokens: 205, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 40 },
        result: 'ok',
      }),
    );
    s.end();
    assert.deepEqual([s.summary.inputTokens, s.summary.outputTokens], [205, 40]);
    assert.deepEqual(usageOf(s.summary, { tables: [] }).costSource, 'reported');
  });
});

describe('costText', () => {
  it('tells a reported figure, an estimate and a sum of both apart', () => {
    assert.deepEqual(
      [costText(0.52, 'reported'), costText(0.56, 'estimated'), costText(1.08, 'mixed'), costText(0.1, undefined)],
      ['$0.5200', '$0.5600 est.', '$1.08 partly est.', '$0.1000'],
    );
  });
});
