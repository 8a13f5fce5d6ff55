// One running attempt: its abort and the context its runner gets. The scheduler aborts it
// (cancel, a step's budget) and the runner reads its signal. An AbortController costs ~2 µs and
// garbage to make, and a runner that never looks at the signal (a fake, an attempt that ends
// before it starts anything) need not pay for one: the controller is made the first time the
// signal is read, already aborted if the attempt was.
import type { GraphStep } from '../../plan/types';
import type { AgentProgress, AttemptContext, ConflictAttempt, OutputStream, PreviousAttempt } from '../types';
import type { StepStatus } from '../../status';

export class AttemptAbort {
  private ctl: AbortController | undefined;
  private why: unknown;
  private done = false;

  get aborted(): boolean {
    return this.done;
  }

  /** The first reason it was aborted for (later aborts change nothing, like AbortController's). */
  get reason(): unknown {
    return this.why;
  }

  get signal(): AbortSignal {
    if (this.ctl === undefined) {
      this.ctl = new AbortController();
      if (this.done) this.ctl.abort(this.why);
    }
    return this.ctl.signal;
  }

  abort(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.why = reason;
    this.ctl?.abort(reason);
  }
}

/** What an attempt's context reports to: the scheduler. */
export interface AttemptSink {
  output(id: string, stream: OutputStream, text: string, alternative?: number): void;
  progress(step: GraphStep, attempt: number, abort: AttemptAbort, p: AgentProgress): void;
}

/** The context of one attempt. `signal` is an own enumerable getter, not a prototype one, so a
 * runner's `{ ...ctx }` still carries the signal (reading it there makes the controller). */
export class RunningAttempt implements AttemptContext {
  readonly abort = new AttemptAbort();
  // Own arrow functions, not methods: runners hand these on unbound.
  readonly onOutput = (stream: OutputStream, text: string, alternative?: number): void =>
    this.sink.output(this.step.id, stream, text, alternative);
  readonly onAgent = (p: AgentProgress): void => this.sink.progress(this.step, this.attempt, this.abort, p);

  readonly previous?: PreviousAttempt;

  constructor(
    readonly runId: string,
    readonly step: GraphStep,
    readonly attempt: number,
    readonly outputs: ReadonlyMap<string, string>,
    readonly statuses: ReadonlyMap<string, StepStatus>,
    private readonly sink: AttemptSink,
    previous?: PreviousAttempt,
    conflict?: ConflictAttempt,
  ) {
    Object.defineProperty(this, 'signal', SIGNAL);
    if (previous) this.previous = previous;
    if (conflict) this.conflict = conflict;
  }

  readonly conflict?: ConflictAttempt;

  declare readonly signal: AbortSignal;
}

// One descriptor and one getter for every attempt.
const SIGNAL: PropertyDescriptor = {
  enumerable: true,
  get(this: RunningAttempt): AbortSignal {
    return this.abort.signal;
  },
};
