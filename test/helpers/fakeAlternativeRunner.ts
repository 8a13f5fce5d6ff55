// A runner for best-of steps on a simulated clock that behaves like the worktree isolator: an
// alternative that passes asks `settle` before it "merges back", lands or is dropped, and may end
// `conflict` at its merge-back. Behaviour is per alternative id (`<step>.alt<i>`), attempt by attempt.
import type { Clock } from '../../src/core/engine/scheduling/clock';
import { workOnClock, type FakeCosts } from './fakeWork';
import type { AttemptContext, AttemptResult, StepRunner } from '../../src/core/engine/types';

export interface AltBehaviour {
  durationMs?: number;
  /** Attempt numbers (1-based) that fail; `true`: every one. */
  fail?: readonly number[] | true;
  /** What its check printed last. */
  score?: number;
  /** Its merge-back ends `conflict`. */
  conflict?: true;
  /** Costs reported mid-run: [ms into the attempt, the attempt's cost so far]. */
  costs?: FakeCosts;
}

export class FakeAlternativeRunner implements StepRunner {
  readonly log: Array<{
    id: string;
    attempt: number;
    start: number;
    end: number;
    status: string;
    abortReason?: unknown;
  }> = [];
  readonly landed: string[] = [];
  readonly dropped: string[] = [];
  readonly settledCalls: Array<{
    stepId: string;
    winner: string | undefined;
    losers: readonly string[];
    keep: 'all' | 'none';
  }> = [];
  running = 0;
  maxRunning = 0;

  constructor(
    private readonly clock: Clock,
    private readonly behave: Readonly<Record<string, AltBehaviour>> = {},
  ) {}

  async execute(ctx: AttemptContext): Promise<AttemptResult> {
    const id = ctx.step.id;
    const b = this.behave[id] ?? {};
    const start = this.clock.now();
    const entry = (status: string, extra: object = {}) =>
      this.log.push({ id, attempt: ctx.attempt, start, end: this.clock.now(), status, ...extra });
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    let cost: number | undefined;
    try {
      await workOnClock(this.clock, ctx.signal, b.costs, b.durationMs, (usd) => {
        cost = usd;
        ctx.onAgent?.({ costUsd: usd });
      });
    } catch {
      entry('canceled', { abortReason: ctx.signal.reason });
      return {
        status: 'canceled',
        exitCode: null,
        signal: 'SIGTERM',
        reason: 'canceled',
        durationMs: this.clock.now() - start,
        ...(cost !== undefined ? { agent: { costUsd: cost } } : {}),
      };
    } finally {
      this.running--;
    }
    const agent = cost !== undefined ? { agent: { costUsd: cost } } : {};
    const durationMs = this.clock.now() - start;
    if (b.fail === true || (Array.isArray(b.fail) && b.fail.includes(ctx.attempt))) {
      entry('failed');
      return {
        status: 'failed',
        exitCode: 1,
        signal: null,
        reason: 'exit',
        message: `${id} exited 1`,
        durationMs,
        ...agent,
      };
    }
    const passed: AttemptResult = {
      status: 'succeeded',
      exitCode: 0,
      signal: null,
      durationMs,
      output: `out:${id}`,
      ...agent,
      ...(b.score !== undefined ? { score: b.score } : {}),
    };
    if (ctx.settle && !(await ctx.settle(passed))) {
      this.dropped.push(id);
      entry('dropped');
      return { ...passed, status: 'canceled', reason: 'canceled' };
    }
    this.landed.push(id);
    entry(b.conflict ? 'conflict' : 'succeeded');
    return b.conflict
      ? { ...passed, status: 'conflict', reason: 'conflict', message: 'merge-back conflict in a.txt' }
      : passed;
  }

  async alternativesSettled(
    stepId: string,
    winner: string | undefined,
    losers: readonly string[],
    keep: 'all' | 'none',
  ): Promise<void> {
    this.settledCalls.push({ stepId, winner, losers, keep });
  }

  endOf(id: string, attempt = 1): number | undefined {
    return this.log.find((l) => l.id === id && l.attempt === attempt)?.end;
  }
  attempts(id: string): number {
    return this.log.filter((l) => l.id === id).length;
  }
}
