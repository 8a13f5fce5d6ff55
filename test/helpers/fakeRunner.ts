// A runner that "executes" steps on a simulated clock, recording start and end times.
import type { Clock } from '../../src/core/engine/scheduling/clock';
import type { AttemptContext, AttemptResult, StepRunner } from '../../src/core/engine/types';

export interface FakeBehaviour {
  durationMs?: number;
  /** Attempt numbers (1-based) that fail; `true` fails every attempt. */
  fail?: readonly number[] | true;
  output?: string;
}

export class FakeRunner implements StepRunner {
  readonly log: Array<{ id: string; attempt: number; start: number; end: number; status: string }> = [];
  readonly contexts: AttemptContext[] = [];
  running = 0;
  maxRunning = 0;

  constructor(
    private readonly clock: Clock,
    private readonly behave: Record<string, FakeBehaviour> = {},
    private readonly defaultMs = 10,
  ) {}

  async execute(ctx: AttemptContext): Promise<AttemptResult> {
    const b = this.behave[ctx.step.id] ?? {};
    const start = this.clock.now();
    this.contexts.push(ctx);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      ctx.onOutput('stdout', `hello from ${ctx.step.id}\n`);
      await this.clock.sleep(b.durationMs ?? this.defaultMs, ctx.signal);
    } catch {
      this.log.push({ id: ctx.step.id, attempt: ctx.attempt, start, end: this.clock.now(), status: 'canceled' });
      return {
        status: 'canceled',
        exitCode: null,
        signal: 'SIGTERM',
        reason: 'canceled',
        durationMs: this.clock.now() - start,
      };
    } finally {
      this.running--;
    }
    const fails = b.fail === true || (Array.isArray(b.fail) && b.fail.includes(ctx.attempt));
    const status = fails ? 'failed' : 'succeeded';
    this.log.push({ id: ctx.step.id, attempt: ctx.attempt, start, end: this.clock.now(), status });
    return fails
      ? { status: 'failed', exitCode: 1, signal: null, reason: 'exit', durationMs: this.clock.now() - start }
      : {
          status: 'succeeded',
          exitCode: 0,
          signal: null,
          durationMs: this.clock.now() - start,
          output: b.output ?? `out:${ctx.step.id}`,
        };
  }

  startOf(id: string, attempt = 1): number {
    return this.log.find((l) => l.id === id && l.attempt === attempt)!.start;
  }
  endOf(id: string): number {
    return [...this.log].reverse().find((l) => l.id === id)!.end;
  }
}
