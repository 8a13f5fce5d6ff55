// Every budget of a run at once: the run's `max-cost-usd` and each pool's (`pools: { openai: {
// concurrency: 3, max-cost-usd: 5 } }`), all counting what is being spent, estimated costs and
// running attempts included. A budget reached holds what it covers (the run, or the pool's steps)
// and asks, one question at a time; a running step whose stream passes what it may spend is
// stopped (overrun). Apart from scheduler.ts: it decides nothing about slots or locks.
import type { GraphStep } from '../../plan/types';
import { RunBudget, type BudgetDecision } from './budget';
import type { CostLedger } from './costLedger';
import { formatUsd } from '../../format';

/** Asked when a budget is reached; `pool`: a pool's budget, not the run's. */
export type BudgetsAsk = (spentUsd: number, budgetUsd: number, pool?: string) => Promise<BudgetDecision>;

export interface BudgetsHooks {
  reached(spentUsd: number, budgetUsd: number, pool: string | undefined): void;
  decided(decision: BudgetDecision, spentUsd: number, budgetUsd: number, pool: string | undefined): void;
}

export class Budgets {
  readonly run: RunBudget;
  private readonly pools = new Map<string, RunBudget>();
  // One question at a time: a window shows one budget hold of a run at once.
  private asking: Promise<unknown> = Promise.resolve();

  constructor(
    runUsd: number | undefined,
    poolUsd: Readonly<Record<string, number>>,
    private readonly costs: CostLedger,
    ask: BudgetsAsk | undefined,
    hooks: BudgetsHooks,
  ) {
    const inTurn = (pool?: string) =>
      ask &&
      ((spent: number, budget: number) => {
        const next = this.asking.then(() => ask(spent, budget, pool));
        this.asking = next.catch(() => {});
        return next;
      });
    const hooksFor = (pool?: string) => ({
      spent: () => (pool === undefined ? costs.total() : costs.poolTotal(pool)),
      reached: (s: number, b: number) => hooks.reached(s, b, pool),
      decided: (d: BudgetDecision, s: number, b: number) => hooks.decided(d, s, b, pool),
    });
    this.run = new RunBudget(runUsd, inTurn(), hooksFor());
    for (const [pool, usd] of Object.entries(poolUsd))
      this.pools.set(pool, new RunBudget(usd, inTurn(pool), hooksFor(pool)));
  }

  /** Counts the step's costs in its pool's budget (call before it starts). */
  track(step: GraphStep): void {
    if (step.pool !== undefined && this.pools.has(step.pool)) this.costs.setPool(step.id, step.pool);
  }

  /** Whether `step` may start now: neither the run's nor its pool's budget holds it. */
  open(step: GraphStep): boolean {
    const pool = step.pool !== undefined ? this.pools.get(step.pool) : undefined;
    return this.run.open && (pool?.open ?? true);
  }

  /** Whether the budget that covers `step` said stop (the run's, or its pool's). */
  stopped(step: GraphStep): boolean {
    return this.run.stopped || (step.pool !== undefined && (this.pools.get(step.pool)?.stopped ?? false));
  }

  get anyStopped(): boolean {
    return this.run.stopped || [...this.pools.values()].some((b) => b.stopped);
  }

  /** Call after every change of the spending: each budget reached asks. */
  check(): void {
    this.run.check();
    for (const b of this.pools.values()) b.check();
  }

  /** A running step's spending passed what its run or its pool may still spend: why it must stop (undefined: it goes on). */
  overrun(step: GraphStep): string | undefined {
    const run = this.run.limit;
    const total = this.costs.total();
    if (run !== undefined && total > run)
      return `stopped: the run's spending ${formatUsd(total)} passed its budget ${formatUsd(run)}`;
    const pool = step.pool !== undefined ? this.pools.get(step.pool) : undefined;
    const limit = pool?.limit;
    if (pool && limit !== undefined) {
      const spent = this.costs.poolTotal(step.pool!);
      if (spent > limit)
        return `stopped: pool ${step.pool}'s spending ${formatUsd(spent)} passed its budget ${formatUsd(limit)}`;
    }
    return undefined;
  }

  close(): void {
    this.run.close();
    for (const b of this.pools.values()) b.close();
  }
}
