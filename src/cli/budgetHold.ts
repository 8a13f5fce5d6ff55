// A run held at its `max-cost-usd` while the engine waits for a window's answer. The first answer
// wins, whichever window gives it; with none in time (every window closed, the user away) the run
// stops, as it would with no one to ask: an unattended run must not spend on.
import type { BudgetDecision } from '../core/engine/scheduling/budget';

export class BudgetHold {
  /** What runPlan awaits. */
  readonly decision: Promise<BudgetDecision>;
  private settle!: (d: BudgetDecision) => void;
  private readonly timer: NodeJS.Timeout;
  private done = false;

  /** `pool`: a pool's budget holds, not the run's. */
  constructor(
    readonly spentUsd: number,
    readonly budgetUsd: number,
    readonly pool: string | undefined,
    timeoutMs: number,
    onTimeout: () => void,
  ) {
    this.decision = new Promise((resolve) => {
      this.settle = resolve;
    });
    // setTimeout fires at once past 2^31-1 ms; a huge setting means "wait as long as it can".
    this.timer = setTimeout(
      () => {
        if (this.decide('stop')) onTimeout();
      },
      Math.min(timeoutMs, 2 ** 31 - 1),
    );
    // A pending question must not keep a stopping engine alive; the run's end settles it anyway.
    this.timer.unref();
  }

  /** Still waiting for an answer. */
  get pending(): boolean {
    return !this.done;
  }

  /** Answers the hold; false when an answer (or the timeout) came first and this one changes nothing. */
  decide(d: BudgetDecision): boolean {
    if (this.done) return false;
    this.done = true;
    clearTimeout(this.timer);
    this.settle(d);
    return true;
  }
}
