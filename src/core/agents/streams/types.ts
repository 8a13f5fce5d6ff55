// What an agent's stdout becomes while it runs: readable log lines now, and a summary (session,
// turns, tokens, cost, final answer, errors) that grows as events arrive and is final after end().

/** Tokens one model used. `input` counts every input token, `cached` the part of it served from a cache; `output` includes `reasoning`. */
export interface TokenCounts {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
  readonly reasoning: number;
}

/** One readable log line (never contains a newline). */
export interface ParsedLine {
  /** `text`: the agent's words; `tool`: one tool call; `info`: session, retries; `error`; `raw`: stdout that was not an event. */
  readonly kind: 'text' | 'tool' | 'info' | 'error' | 'raw';
  readonly text: string;
}

/** What the agent reported about its run; a field is absent when the agent never said. */
export interface AgentSummary {
  /** Claude's session id, codex's thread id, gemini's session id: what resuming needs. */
  sessionId?: string;
  model?: string;
  turns?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** Input tokens served from the provider's cache: a part of inputTokens, which counts every input token. */
  cachedInputTokens?: number;
  /** Reasoning (thinking) tokens: a part of outputTokens, which counts every output token (as providers bill them). */
  reasoningTokens?: number;
  /** The same tokens by the model that used them, when the agent says (what a cost is estimated from: cost/prices.ts). */
  models?: Record<string, TokenCounts>;
  /** The cost the agent itself reported (claude); absent when it reports none (codex, gemini), which Braid then estimates. */
  costUsd?: number;
  /** The agent's final answer: the step's output. Absent for plain-text agents (the stdout tail is used). */
  finalText?: string;
  /** The agent said the run failed (claude `is_error`, codex `turn.failed`, gemini `status: error`). */
  isError?: boolean;
  /** Error messages the agent reported (not its assistant text): what rate-limit detection reads. */
  errors: string[];
  /** HTTP status of the API error that ended the run, when the agent reports one (claude `api_error_status`). */
  apiErrorStatus?: number;
  /** The agent reported its rate or usage limit as exhausted, with the reset time when it gave one. */
  rateLimited?: { resetAt?: Date };
}

/** Incremental parser of one attempt's stdout. */
export interface AgentStream {
  /** Feeds a chunk (any boundaries: half a line, half a UTF-16 pair is not possible as chunks are strings); returns the lines completed by it. */
  push(chunk: string): ParsedLine[];
  /** The stream ended: parses a last unterminated line and returns any lines it yields. */
  end(): ParsedLine[];
  /** The summary so far; complete after end(). */
  readonly summary: AgentSummary;
}
