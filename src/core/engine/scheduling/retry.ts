// What follows a failed attempt: a rate-limit requeue (after the agent's reset, or a backoff),
// a retry after a doubling delay, or the step's end; and the timers of the steps waiting one out.
import type { GraphStep } from '../../plan/types';
import { rateLimitBackoff } from '../../agents/backoff';
import type { Clock } from './clock';
import type { AttemptResult, PreviousAttempt } from '../types';

/** How many times one step may be requeued for a rate limit in a run before it fails. */
export const DEFAULT_MAX_RATE_LIMIT_REQUEUES = 10;

export type NextAttempt =
  | { readonly kind: 'finish'; readonly result: AttemptResult }
  | {
      readonly kind: 'wait';
      readonly delayMs: number;
      readonly reason: 'rate-limited' | 'retry-delay';
      readonly message: string;
      /** A rate limit: the step's pool is cut to what the provider serves, its first probe this long after. */
      readonly poolWaitMs?: number;
    };

export interface RetryInput {
  readonly step: GraphStep;
  /** The step's attempts so far in this run; its rate-limited ones are counted up here. */
  readonly st: {
    readonly attempt: number;
    readonly attemptBase?: number;
    rateLimited?: number;
    readonly resolutions?: number;
  };
  readonly result: AttemptResult;
  /** False once the run is canceled or stopped at its budget: nothing is retried then. */
  readonly going: boolean;
  readonly now: number;
  readonly random: () => number;
  readonly maxRateLimitRequeues?: number;
}

/** Decides whether a step ends with `result` or waits for another attempt. */
export function nextAttempt(i: RetryInput): NextAttempt {
  const { step, st, result: r, going } = i;
  if (r.status === 'failed' && r.reason === 'rate-limited' && going) {
    const limited = (st.rateLimited ?? 0) + 1;
    st.rateLimited = limited;
    const cap = i.maxRateLimitRequeues ?? DEFAULT_MAX_RATE_LIMIT_REQUEUES;
    if (limited > cap) {
      return {
        kind: 'finish',
        result: { ...r, message: `still rate-limited after ${cap} requeues: ${r.message ?? 'rate-limited'}` },
      };
    }
    const b = rateLimitBackoff({
      limitedCount: limited,
      baseMs: step.retryDelayMs,
      now: new Date(i.now),
      random: i.random,
      ...(r.rateLimit?.resetAt ? { resetAt: r.rateLimit.resetAt } : {}),
    });
    const evidence = r.rateLimit?.evidence ? ` (${r.rateLimit.evidence})` : '';
    return {
      kind: 'wait',
      delayMs: b.delayMs,
      reason: 'rate-limited',
      message: `rate-limited, retrying at ${clockTime(b.until)}${evidence}`,
      ...(step.pool ? { poolWaitMs: 2 * b.delayMs } : {}),
    };
  }
  // Rate-limited attempts were not failures: they do not use up `retries` nor lengthen the delay.
  // Nor do attempts that answered a conflict (`on-conflict`).
  const failures = st.attempt - (st.attemptBase ?? 0) - (st.rateLimited ?? 0) - (st.resolutions ?? 0);
  if (r.status === 'failed' && going && !r.permanent && failures <= step.retries) {
    const delay = step.retryDelayMs * 2 ** (failures - 1) * (1 + 0.2 * i.random());
    return {
      kind: 'wait',
      delayMs: delay,
      reason: 'retry-delay',
      message: `${r.message ?? 'failed'}; retrying in ${Math.round(delay)} ms`,
    };
  }
  return { kind: 'finish', result: r };
}

/** What attempt `attempt`'s failure `r` tells the next attempt. */
export function previousAttempt(attempt: number, r: AttemptResult): PreviousAttempt {
  return {
    attempt,
    reason: r.message ?? r.reason ?? 'failed',
    output: r.failureOutput ?? '',
    ...(r.agent?.sessionId !== undefined ? { sessionId: r.agent.sessionId } : {}),
  };
}

/** The steps waiting out a delay: each holds no slot and no lock, and can be aborted. */
export class RetryWaits {
  private readonly delays = new Map<string, AbortController>();

  constructor(private readonly clock: Clock) {}

  has(id: string): boolean {
    return this.delays.has(id);
  }

  /** After `delayMs`, `elapsed()`; aborted first, `aborted(reason)` instead. */
  start(id: string, delayMs: number, elapsed: () => void, aborted: (reason: unknown) => void): void {
    const ctl = new AbortController();
    this.delays.set(id, ctl);
    this.clock.sleep(delayMs, ctl.signal).then(
      () => {
        this.delays.delete(id);
        elapsed();
      },
      () => {
        this.delays.delete(id);
        aborted(ctl.signal.reason);
      },
    );
  }

  /** Aborts the step's wait; false when it is not waiting. */
  abort(id: string, reason: string): boolean {
    const ctl = this.delays.get(id);
    ctl?.abort(reason);
    return ctl !== undefined;
  }
}

/** HH:MM (24-hour) on this machine's wall clock: how waits say when they end, in events and views. */
export function clockTime(at: Date | number): string {
  const d = typeof at === 'number' ? new Date(at) : at;
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}
