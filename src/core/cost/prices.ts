// From tokens to dollars: which price a model has (the user's tables first, then the pinned one),
// and what an agent's tokens cost at it. A model without a price has no cost, never $0: the
// sentence says which model lacks one, so the user can add it (`braid.prices`, a plan's `prices:`).
import type { TokenCounts } from '../agents/streams/types';
import { PINNED_PRICES, type ModelPrice } from './priceTable';

/** Prices by model id, USD per million tokens; a user's own (settings, plan). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

export type Estimate = { readonly usd: number } | { readonly unknown: string };

/** The price of `model`: the first table that has it (exactly, then without a date or `[…]` suffix), else the pinned one. */
export function priceOf(model: string, tables: readonly PriceTable[] = []): ModelPrice | undefined {
  const names = [model, baseModel(model)];
  for (const t of [...tables, PINNED_PRICES]) {
    for (const n of names) if (Object.hasOwn(t, n)) return t[n];
  }
  return undefined;
}

/** `claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`; `claude-opus-4-8[1m]` → `claude-opus-4-8`; `models/gemini-2.5-flash` → `gemini-2.5-flash`. */
export function baseModel(model: string): string {
  return model
    .trim()
    .replace(/^models\//, '')
    .replace(/\[[^\]]*\]$/, '')
    .replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '');
}

/** What `tokens` cost at `price`, in USD. */
export function costAt(price: ModelPrice, tokens: TokenCounts): number {
  const cached = Math.min(tokens.cached, tokens.input);
  return (
    ((tokens.input - cached) * price.input +
      cached * (price.cachedInput ?? price.input) +
      tokens.output * price.output) /
    1e6
  );
}

/** The cost of every model's tokens; unknown when a model used has no price (or no model is known). */
export function estimate(
  byModel: ReadonlyMap<string | undefined, TokenCounts>,
  tables: readonly PriceTable[] = [],
): Estimate {
  let usd = 0;
  for (const [model, tokens] of byModel) {
    if (tokens.input === 0 && tokens.output === 0) continue;
    if (model === undefined) return { unknown: 'cost unknown: the agent did not say which model it used' };
    const price = priceOf(model, tables);
    if (!price) return { unknown: `cost unknown: no price for ${model}` };
    usd += costAt(price, tokens);
  }
  return { usd };
}
