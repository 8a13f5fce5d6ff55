// A runner whose steps behave like agents on a simulated clock: they report cost as they go,
// hit rate limits, or end with a session id, attempt by attempt.
import type { Clock } from '../../src/core/engine/scheduling/clock';
import { workOnClock, type FakeCosts } from './fakeWork';
import type { AttemptContext, AttemptResult, StepRunner } from '../../src/core/engine/types';
import type { CostSource } from '../../src/core/cost/agentUsage';

export interface AgentAttempt {
  durationMs?: number;
  /** Costs reported mid-run: [clock ms into the attempt, the attempt's cost so far]. */
  costs?: FakeCosts;
  /** The attempt's final cost (reported with its result). */
  costUsd?: number;
  /** Whether its costs are the agent's own figures or Braid's estimates (default: neither said). */
  costSource?: CostSource;
  /** Ends rate-limited, with a reset time this long after its end when given. */
  limited?: true | { resetInMs: number };
  fail?: true;
  sessionId?: string;
}

/** Per step: one behaviour for every attempt, or a list (the last repeats). */
export type AgentScript = Readonly<Record<string, AgentAttempt | readonly AgentAttempt[]>>;

export class FakeAgentRunner implements StepRunner {
  readonly log: Array<{
    id: string;
    attempt: number;
    start: number;
    end: number;
    status: string;
    abortReason?: unknown;
  }> = [];
  private readonly inPool = new Map<string, number>();
  /** Per pool: how many ran at once, as [clock time, count] at every start. */
  readonly poolTrace: Array<{ pool: string; at: number; running: number }> = [];

  constructor(
    private readonly clock: Clock,
    private readonly script: AgentScript = {},
  ) {}

  async execute(ctx: AttemptContext): Promise<AttemptResult> {
    const s = this.script[ctx.step.id];
    const list = s === undefined ? [{}] : Array.isArray(s) ? s : [s as AgentAttempt];
    const b: AgentAttempt = list[Math.min(ctx.attempt, list.length) - 1] ?? {};
    const start = this.clock.now();
    const pool = ctx.step.pool;
    if (pool) {
      this.inPool.set(pool, (this.inPool.get(pool) ?? 0) + 1);
      this.poolTrace.push({ pool, at: start, running: this.inPool.get(pool)! });
    }
    const entry = (status: string, extra: object = {}) =>
      this.log.push({ id: ctx.step.id, attempt: ctx.attempt, start, end: this.clock.now(), status, ...extra });
    let cost: number | undefined;
    try {
      await workOnClock(this.clock, ctx.signal, b.costs, b.durationMs, (usd, at) => {
        cost = usd;
        ctx.onAgent?.({
          costUsd: usd,
          ...(b.costSource ? { costSource: b.costSource } : {}),
          activity: `working at ${at}`,
        });
      });
    } catch {
      entry('canceled', { abortReason: ctx.signal.reason });
      return {
        status: 'canceled',
        exitCode: null,
        signal: 'SIGTERM',
        reason: 'canceled',
        durationMs: this.clock.now() - start,
        ...(cost !== undefined
          ? { agent: { costUsd: cost, ...(b.costSource ? { costSource: b.costSource } : {}) } }
          : {}),
      };
    } finally {
      if (pool) this.inPool.set(pool, this.inPool.get(pool)! - 1);
    }
    const spent = b.costUsd ?? cost;
    const agent = {
      ...(b.sessionId ? { sessionId: b.sessionId } : {}),
      ...(spent !== undefined ? { costUsd: spent, ...(b.costSource ? { costSource: b.costSource } : {}) } : {}),
    };
    const durationMs = this.clock.now() - start;
    if (b.limited) {
      entry('limited');
      const resetAt = b.limited === true ? undefined : new Date(this.clock.now() + b.limited.resetInMs);
      return {
        status: 'failed',
        exitCode: 1,
        signal: null,
        reason: 'rate-limited',
        message: 'rate-limited: 429',
        durationMs,
        agent,
        rateLimit: { evidence: 'HTTP 429', ...(resetAt ? { resetAt } : {}) },
      };
    }
    if (b.fail) {
      entry('failed');
      return { status: 'failed', exitCode: 1, signal: null, reason: 'exit', durationMs, agent };
    }
    entry('succeeded');
    return { status: 'succeeded', exitCode: 0, signal: null, durationMs, output: `out:${ctx.step.id}`, agent };
  }

  startOf(id: string, attempt = 1): number | undefined {
    return this.log.find((l) => l.id === id && l.attempt === attempt)?.start;
  }
  attempts(id: string): number {
    return this.log.filter((l) => l.id === id).length;
  }
}
