// Telling a rate or usage limit from any other failure, per CLI, and reading the reset time the
// agent printed. A limited step is requeued, not failed, so a false positive only delays a real
// failure while a false negative loses the step: but an agent's own words ("add a rate limiter")
// are never read, only what it reports as errors (and, for plain-text agents, the end of the
// output of a failed run).
import type { AgentFamily } from './presets';
import type { AgentSummary } from './streams/types';
import { parseResetTime } from './resetTime';

export interface RateLimitInput {
  readonly family: AgentFamily;
  /** null: killed by a signal (timeout, cancel): never a rate limit. */
  readonly exitCode: number | null;
  /** The end of stderr (the executor keeps a tail of it). */
  readonly stderr: string;
  /** The end of stdout: read for plain-text agents only (structured ones report errors in `summary`). */
  readonly stdoutTail?: string;
  readonly summary?: AgentSummary;
  readonly now: Date;
}

export interface RateLimitVerdict {
  readonly limited: boolean;
  /** When the limit resets, if the agent said. */
  readonly resetAt?: Date;
  /** The line that showed it, for the log and the step's message. */
  readonly evidence?: string;
}

const NOT_LIMITED: RateLimitVerdict = { limited: false };

// What every provider's errors say: HTTP 429, "rate limit", "too many requests", quota.
const COMMON: readonly RegExp[] = [
  /\b(?:HTTP|status|code|error)\b[^\n\d]{0,16}429\b/i,
  /\b429\b[^\n]{0,8}too many requests/i,
  /too many requests/i,
  /\brate[ _-]?limit(?:ed|s)?\b/i,
  /\busage limit\b/i,
  /\bquota (?:exceeded|exhausted)\b/i,
];

const FAMILY: Readonly<Record<AgentFamily, readonly RegExp[]>> = {
  // "Claude AI usage limit reached|1749924000", "You've hit your limit · resets 3pm (Europe/Berlin)",
  // "5-hour limit reached ∙ resets 2pm", API `rate_limit_error`.
  claude: [
    /usage limit reached/i,
    /\bhit your (?:\w+ )?limit\b/i,
    /\blimit reached\b[^\n]*\bresets?\b/i,
    /rate_limit_error/,
  ],
  // "You've hit your usage limit. … try again at 3:05 PM.", "exceeded retry limit, last status: 429".
  codex: [/\bhit your usage limit\b/i, /last status: 429/i, /rate limit exceeded/i],
  // "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric …", "You have exhausted your daily quota",
  // "Usage limit reached for gemini-2.5-pro", "Please retry in 23.5s"; the API's generic 429
  // "Resource has been exhausted (e.g. check quota)." (gemini's stream types it `unknown`).
  gemini: [
    /RESOURCE_EXHAUSTED/,
    /\bquota exceeded\b/i,
    /exhausted your (?:daily )?quota/i,
    /usage limit reached for/i,
    /\bresource has been exhausted\b/i,
    /\bRetryableQuotaError\b/,
  ],
  // aider prints litellm's exceptions.
  aider: [/\bRateLimitError\b/],
  other: [],
};

/** Whether a finished attempt ended on a rate or usage limit, and until when. */
export function detectRateLimit(input: RateLimitInput): RateLimitVerdict {
  const { summary, exitCode, family, now } = input;
  if (exitCode === null) return NOT_LIMITED;
  const failed = exitCode !== 0 || summary?.isError === true;
  if (!failed) return NOT_LIMITED;
  // The stream said so in as many words (claude's rate_limit_event, api_error_status 429).
  const reported = summary?.rateLimited ?? (summary?.apiErrorStatus === 429 ? {} : undefined);
  const texts = [...(summary?.errors ?? []), input.stderr];
  if (family === 'aider' || family === 'other' || !summary) texts.push(input.stdoutTail ?? '');
  const patterns = [...FAMILY[family], ...COMMON];
  let evidence: string | undefined;
  let resetAt = reported?.resetAt;
  for (const text of texts) {
    for (const line of lastLines(text)) {
      if (!patterns.some((p) => p.test(line))) continue;
      evidence ??= line.trim();
      resetAt ??= parseResetTime(line, now);
    }
  }
  if (!reported && evidence === undefined) return NOT_LIMITED;
  // The hint may sit on a line of its own ("Please retry in 23.5s." under gemini's quota
  // message): once the failure is a limit, any line of the agent's errors may state the reset.
  if (resetAt === undefined) {
    for (const text of texts) {
      for (const line of lastLines(text)) {
        resetAt = parseResetTime(line, now);
        if (resetAt !== undefined) break;
      }
      if (resetAt !== undefined) break;
    }
  }
  return {
    limited: true,
    ...(resetAt !== undefined && resetAt.getTime() > now.getTime() ? { resetAt } : {}),
    evidence: evidence ?? (summary?.apiErrorStatus === 429 ? 'API error 429' : 'rate limit reported by the agent'),
  };
}

// The end of a failed run is where its reason is; a long log's middle is the agent's work.
function lastLines(text: string, max = 200): string[] {
  const lines = text.split('\n');
  return lines.slice(-max).reverse();
}
