// What an agent's summary becomes in a step's record: its tokens, and a cost that says where it
// came from. The agent's own figure (claude's) is kept as it reported it; otherwise the tokens are
// priced (prices.ts) by the model that used them, as the agent said or, for an agent that does not
// say (codex), the model the step asked for or the CLI is configured with (agentModel.ts).
import type { AgentSummary, TokenCounts } from '../agents/streams/types';
import type { AgentUsage } from './agentUsage';
import { estimate, type PriceTable } from './prices';

/** What pricing an attempt needs: the user's tables (first wins) and the model when the agent does not name it. */
export interface Pricing {
  readonly tables: readonly PriceTable[];
  readonly model?: string;
}

/** The part of an agent's summary a step records, with its cost reported, estimated or unknown. */
export function usageOf(s: AgentSummary, pricing?: Pricing): AgentUsage {
  const model = s.model ?? pricing?.model;
  const u: { -readonly [K in keyof AgentUsage]: AgentUsage[K] } = {};
  if (s.sessionId !== undefined) u.sessionId = s.sessionId;
  if (model !== undefined) u.model = model;
  if (s.turns !== undefined) u.turns = s.turns;
  if (s.inputTokens !== undefined) u.inputTokens = s.inputTokens;
  if (s.cachedInputTokens !== undefined) u.cachedInputTokens = s.cachedInputTokens;
  if (s.outputTokens !== undefined) u.outputTokens = s.outputTokens;
  if (s.reasoningTokens !== undefined) u.reasoningTokens = s.reasoningTokens;
  if (s.costUsd !== undefined) {
    u.costUsd = s.costUsd;
    u.costSource = 'reported';
  } else if (pricing && (s.inputTokens !== undefined || s.outputTokens !== undefined)) {
    const e = estimate(byModel(s, model), pricing.tables);
    if ('usd' in e) {
      u.costUsd = e.usd;
      u.costSource = 'estimated';
    } else u.costUnknown = e.unknown;
  }
  return u;
}

function byModel(s: AgentSummary, model: string | undefined): Map<string | undefined, TokenCounts> {
  const m = new Map<string | undefined, TokenCounts>();
  if (s.models) {
    for (const [name, t] of Object.entries(s.models)) m.set(name === '' ? model : name, t);
    return m;
  }
  m.set(model, {
    input: s.inputTokens ?? 0,
    cached: s.cachedInputTokens ?? 0,
    output: s.outputTokens ?? 0,
    reasoning: s.reasoningTokens ?? 0,
  });
  return m;
}
