// One budget (the run's `max-cost-usd`, or a pool's: budgets.ts): once what its agents spend
// (reported or estimated, running attempts included) reaches it, no new step starts and the caller is asked. `continue` lets the run spend one more budget's worth before asking
// again; `stop` (the default, and what a failed or throwing ask means) ends the run there.

export type BudgetDecision = 'continue' | 'stop';

/** Asked once each time the run reaches its budget; the extension shows Continue / Stop. */
export type BudgetAsk = (spentUsd: number, budgetUsd: number) => Promise<BudgetDecision>;

export interface BudgetHooks {
  /** What the run has spent so far (every step, every attempt, the running ones included). */
  spent(): number;
  /** The budget was reached: nothing new starts until a decision. */
  reached(spentUsd: number, budgetUsd: number): void;
  decided(decision: BudgetDecision, spentUsd: number, budgetUsd: number): void;
}

export class RunBudget {
  private threshold: number | undefined;
  private state: 'open' | 'asking' | 'stopped' = 'open';
  private closed = false;

  constructor(
    private readonly budgetUsd: number | undefined,
    private readonly ask: BudgetAsk | undefined,
    private readonly hooks: BudgetHooks,
  ) {
    if (budgetUsd !== undefined && !(Number.isFinite(budgetUsd) && budgetUsd >= 0))
      throw new RangeError(`max-cost-usd must be a finite number ≥ 0, got ${budgetUsd}`);
    this.threshold = budgetUsd;
  }

  /** What may be spent now before a running step is stopped: the budget as last raised; undefined without one. */
  get limit(): number | undefined {
    return this.threshold;
  }

  /** Whether a new step may start now. */
  get open(): boolean {
    return this.state === 'open';
  }
  get stopped(): boolean {
    return this.state === 'stopped';
  }

  /** Call after every change of the spending: asks when it reaches the budget. */
  check(): void {
    if (this.threshold === undefined || this.state !== 'open' || this.closed) return;
    const spent = this.hooks.spent();
    if (spent < this.threshold) return;
    this.state = 'asking';
    const at = this.threshold;
    this.hooks.reached(spent, at);
    let answer: Promise<BudgetDecision>;
    try {
      answer = this.ask ? this.ask(spent, at) : Promise.resolve('stop');
    } catch {
      // An asker that throws cannot say go on: stopping is the safe answer.
      answer = Promise.resolve('stop');
    }
    void answer
      .then(
        (d) => (d === 'continue' ? 'continue' : 'stop'),
        () => 'stop' as const,
      )
      .then((d) => {
        if (this.closed) return;
        const now = this.hooks.spent();
        if (d === 'continue') {
          this.threshold = Math.max(at, now) + this.budgetUsd!;
          this.state = 'open';
        } else this.state = 'stopped';
        this.hooks.decided(d, now, at);
        if (d === 'continue') this.check();
      });
  }

  /** The run is over: a late answer changes nothing. */
  close(): void {
    this.closed = true;
  }
}
