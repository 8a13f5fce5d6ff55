// What a run's agents spent, step by step: the ended attempts' final costs plus the running
// attempt's cost so far (an agent's figure for its attempt only grows), each reported by the agent
// or estimated by Braid from its tokens (cost/); a sum of both kinds is `mixed`.
import type { CostSource } from '../../cost/agentUsage';

/** The source of a sum of `a` and `b`. */
export function joinSource(a: CostSource | undefined, b: CostSource | undefined): CostSource | undefined {
  return a === undefined ? b : b === undefined || a === b ? a : 'mixed';
}

interface Entry {
  usd: number;
  source: CostSource | undefined;
}

export class CostLedger {
  private readonly ended = new Map<string, Entry>();
  private readonly running = new Map<string, Entry>();
  /** Each step's pool, for pool budgets (steps without one are not listed). */
  private readonly poolOf = new Map<string, string>();
  private any = false;

  /** Counts `id`'s costs in `pool` too (poolTotal). */
  setPool(id: string, pool: string): void {
    this.poolOf.set(id, pool);
  }

  /** The running attempt of `id` reports `attemptUsd` so far; returns the step's cost in the run. */
  report(id: string, attemptUsd: number, source?: CostSource): number {
    this.running.set(id, { usd: attemptUsd, source });
    this.any = true;
    return this.step(id)!;
  }

  /** The attempt ended, with its final cost when it reported one; returns the step's cost, if any. */
  end(id: string, attemptUsd: number | undefined, source?: CostSource): number | undefined {
    if (attemptUsd !== undefined) this.report(id, attemptUsd, source);
    const now = this.running.get(id);
    this.running.delete(id);
    if (now !== undefined) {
      const before = this.ended.get(id);
      this.ended.set(id, {
        usd: (before?.usd ?? 0) + now.usd,
        source: before ? joinSource(before.source, now.source) : now.source,
      });
    }
    return this.step(id);
  }

  /** The attempt's cost so far (undefined before its first report). */
  attempt(id: string): number | undefined {
    return this.running.get(id)?.usd;
  }

  step(id: string): number | undefined {
    const a = this.ended.get(id),
      b = this.running.get(id);
    return a === undefined && b === undefined ? undefined : (a?.usd ?? 0) + (b?.usd ?? 0);
  }

  /** Whether the step's cost is reported, estimated or both. */
  stepSource(id: string): CostSource | undefined {
    return joinSource(this.ended.get(id)?.source, this.running.get(id)?.source);
  }

  /** The run's total. */
  total(): number {
    let t = 0;
    for (const v of this.ended.values()) t += v.usd;
    for (const v of this.running.values()) t += v.usd;
    return t;
  }

  /** What the steps of `pool` spent together. */
  poolTotal(pool: string): number {
    let t = 0;
    for (const [id, p] of this.poolOf) if (p === pool) t += this.step(id) ?? 0;
    return t;
  }

  /** Whether the run's total is reported, estimated or both. */
  source(): CostSource | undefined {
    let s: CostSource | undefined;
    for (const v of this.ended.values()) s = joinSource(s, v.source);
    for (const v of this.running.values()) s = joinSource(s, v.source);
    return s;
  }

  /** Whether any agent reported a cost. */
  get reported(): boolean {
    return this.any;
  }
}
