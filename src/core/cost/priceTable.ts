// The prices Braid estimates an agent's cost with when its CLI reports tokens but no cost (codex,
// gemini; claude while it runs, before its own figure). USD per million tokens, pinned here with
// where and when each was read: a provider changes its prices without telling Braid, so a figure
// computed from this table is always shown as an estimate, and a user's own prices (the setting
// `braid.prices`, a plan's `prices:`) win over it (prices.ts).

/** One model's prices, USD per 1,000,000 tokens. */
export interface ModelPrice {
  /** Input tokens not served from a cache. */
  readonly input: number;
  /** Input tokens served from the provider's cache (default: `input`). */
  readonly cachedInput?: number;
  /** Output tokens, reasoning (thinking) tokens included: every provider bills them as output. */
  readonly output: number;
}

/** A pinned price, with where it was read and when. */
export interface PinnedPrice extends ModelPrice {
  readonly source: string;
  /** The day the price was read there (YYYY-MM-DD). */
  readonly read: string;
}

const ANTHROPIC = 'https://platform.claude.com/docs/en/about-claude/pricing';
// OpenAI's page (https://developers.openai.com/api/docs/pricing) as two reports of it that agree
// (morphllm.com/openai-api-pricing, June 2026; api-evangelist, read there 2026-11-05): the page
// itself was not reachable from the search index on the day.
const OPENAI = 'https://developers.openai.com/api/docs/pricing (via morphllm.com/openai-api-pricing and apis.io)';
// Google's page, as deploybase.ai/articles/gemini-api-pricing and openrouter.ai report it;
// cached input at 10% of input (Google: "90% discount" on cache hits). Prompts over 200k tokens
// cost more on 2.5 Pro: not modelled (the estimate is then low).
const GOOGLE = 'https://ai.google.dev/gemini-api/docs/pricing (via deploybase.ai/articles/gemini-api-pricing)';
const READ = '2026-12-07';

const p = (source: string, input: number, cachedInput: number, output: number): PinnedPrice =>
  Object.freeze({ input, cachedInput, output, source, read: READ });

/** Model id → price. Ids as the CLIs report them (dates and `[1m]` suffixes are dropped first: prices.ts). */
export const PINNED_PRICES: Readonly<Record<string, PinnedPrice>> = Object.freeze({
  // Anthropic: base input, cache hits, output (cache writes, 1.25× input, are billed as input here).
  'claude-opus-5': p(ANTHROPIC, 5, 0.5, 25),
  'claude-opus-4-8': p(ANTHROPIC, 5, 0.5, 25),
  'claude-opus-4-7': p(ANTHROPIC, 5, 0.5, 25),
  'claude-opus-4-6': p(ANTHROPIC, 5, 0.5, 25),
  'claude-opus-4-5': p(ANTHROPIC, 5, 0.5, 25),
  'claude-opus-4-1': p(ANTHROPIC, 15, 1.5, 75),
  'claude-opus-4': p(ANTHROPIC, 15, 1.5, 75),
  'claude-sonnet-4-6': p(ANTHROPIC, 3, 0.3, 15),
  'claude-sonnet-4-5': p(ANTHROPIC, 3, 0.3, 15),
  'claude-sonnet-4': p(ANTHROPIC, 3, 0.3, 15),
  'claude-haiku-4-5': p(ANTHROPIC, 1, 0.1, 5),
  // OpenAI: input, cached input, output.
  'gpt-5.5': p(OPENAI, 5, 0.5, 30),
  'gpt-5.4': p(OPENAI, 2.5, 0.25, 15),
  'gpt-5.4-mini': p(OPENAI, 0.75, 0.075, 4.5),
  'gpt-5.4-nano': p(OPENAI, 0.2, 0.02, 1.25),
  // Google: input (prompts ≤ 200k tokens), cached input, output (thinking included).
  'gemini-2.5-pro': p(GOOGLE, 1.25, 0.125, 10),
  'gemini-2.5-flash': p(GOOGLE, 0.3, 0.03, 2.5),
  'gemini-2.5-flash-lite': p(GOOGLE, 0.1, 0.01, 0.4),
});
