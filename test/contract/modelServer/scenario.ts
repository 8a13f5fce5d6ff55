// What the loopback model server answers: a scenario is a list of turns. A request of the agent's
// conversation (one that offers tools) gets the turn for the number of model turns its history
// already holds (0 for the first, 1 after one tool call, …), so concurrent agents and retried
// requests each get the right one; past the end the last turn repeats. Error turns answer the
// requests for the turn after them, `times` each (default: all, a persistent error). Requests
// outside the conversation (a CLI's side calls: titles, token counts, routing) get a short answer.

/** A file path the model asks to write: relative paths resolve against the agent's working folder as its request states it. */
export type Turn =
  | { readonly text: string }
  | { readonly write: { readonly path: string; readonly content: string } }
  | { readonly shell: string }
  /** A call of a tool the request offers whose name is `tool` or ends in `__tool` / `_tool` (an MCP server's, as each CLI prefixes it). */
  | { readonly call: { readonly tool: string; readonly input: Record<string, unknown> } }
  | {
      readonly error: ErrorKind;
      /** Seconds until the limit resets (rate limits); default 30. */
      readonly resetSeconds?: number;
      /** How many requests get this error before the next turn answers; default: every one (a persistent error). */
      readonly times?: number;
    };

/**
 * `rate-limit`: the provider's HTTP 429 for requests per minute (claude: the subscription's
 * `anthropic-ratelimit-unified-*` headers; codex: `usage_limit_reached` with `resets_at`; gemini:
 * RESOURCE_EXHAUSTED with "Please retry in …s." and a RetryInfo); `quota`: gemini's generic
 * "Resource has been exhausted" 429 without a hint (others: same as rate-limit);
 * `server-error`: HTTP 500 with the provider's body.
 */
export type ErrorKind = 'rate-limit' | 'quota' | 'server-error';

/** Tokens a model turn reports, in each provider's own usage fields: `input` counts every input token (`cached` of them from a cache), `output` every output token (`reasoning` of them thinking). */
export interface Usage {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
  readonly reasoning: number;
}

export interface Scenario {
  readonly turns: readonly Turn[];
  /** What every answered turn of the conversation reports using (default: a few hundred tokens). */
  readonly usage?: Usage;
}

export const scenarios = {
  answer: (text: string): Scenario => ({ turns: [{ text }] }),
  writeFile: (path: string, content: string, answer = `Wrote ${path}.`): Scenario => ({
    turns: [{ write: { path, content } }, { text: answer }],
  }),
  shell: (command: string, answer = 'Ran it.'): Scenario => ({ turns: [{ shell: command }, { text: answer }] }),
  rateLimited: (resetSeconds = 30): Scenario => ({ turns: [{ error: 'rate-limit', resetSeconds }] }),
  quota: (): Scenario => ({ turns: [{ error: 'quota' }] }),
  limitedOnce: (text: string, resetSeconds = 2): Scenario => ({
    turns: [{ error: 'rate-limit', resetSeconds, times: 1 }, { text }],
  }),
  serverError: (): Scenario => ({ turns: [{ error: 'server-error' }] }),
  callTool: (tool: string, input: Record<string, unknown>, answer = 'Done.'): Scenario => ({
    turns: [{ call: { tool, input } }, { text: answer }],
  }),
  /** `scenario` with every turn reporting `usage`. */
  costing: (scenario: Scenario, usage: Usage): Scenario => ({ ...scenario, usage }),
} as const;

/** The offered tool a `call` turn means: named `tool`, or an MCP server's tool prefixed by the CLI; the bare name when none is offered. */
export function offeredTool(names: readonly string[], tool: string): string {
  return names.find((n) => n === tool) ?? names.find((n) => n.endsWith(`__${tool}`) || n.endsWith(`_${tool}`)) ?? tool;
}
