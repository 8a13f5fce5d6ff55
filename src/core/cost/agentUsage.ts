// What an agent used, as a step's record and events keep it: its session, turns, tokens, and a
// cost that says where it came from. The cost layer's noun: usageOf (agentCost.ts) makes it.

/** Where a cost came from (`mixed`: a sum of both). */
export const COST_SOURCES = ['reported', 'estimated', 'mixed'] as const;

/** Whether a cost is the agent's own figure (claude) or Braid's estimate from its tokens and a price table (cost/); `mixed`: a sum of both. */
export type CostSource = (typeof COST_SOURCES)[number];

/**
 * An agent's session and spending as it reported them; a field is absent when it never said.
 * Tokens: `inputTokens` counts every input token (`cachedInputTokens` is the part served from a
 * cache), `outputTokens` every output token (`reasoningTokens` is the part spent thinking).
 */
export interface AgentUsage {
  readonly sessionId?: string;
  /** The model that used the tokens (as the agent said, else the step's `model` or the CLI's configured one). */
  readonly model?: string;
  readonly turns?: number;
  readonly inputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly outputTokens?: number;
  readonly reasoningTokens?: number;
  readonly costUsd?: number;
  /** With costUsd: `reported` by the agent, or `estimated` by Braid. */
  readonly costSource?: CostSource;
  /** Tokens but no cost: why ("cost unknown: no price for MODEL"). Never a cost of 0. */
  readonly costUnknown?: string;
}
