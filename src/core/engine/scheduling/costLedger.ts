// What a run's agents reported spending, step by step: the ended attempts' final costs plus the
// running attempt's cost so far (an agent reports its attempt's total, which only grows).

export class CostLedger {
  private readonly ended = new Map<string, number>();
  private readonly running = new Map<string, number>();
  private any = false;

  /** The running attempt of `id` reports `attemptUsd` so far; returns the step's cost in the run. */
  report(id: string, attemptUsd: number): number {
    this.running.set(id, attemptUsd);
    this.any = true;
    return this.step(id)!;
  }

  /** The attempt ended, with its final cost when it reported one; returns the step's cost, if any. */
  end(id: string, attemptUsd: number | undefined): number | undefined {
    if (attemptUsd !== undefined) this.report(id, attemptUsd);
    const now = this.running.get(id);
    this.running.delete(id);
    if (now !== undefined) this.ended.set(id, (this.ended.get(id) ?? 0) + now);
    return this.step(id);
  }

  /** The attempt's cost so far (undefined before its first report). */
  attempt(id: string): number | undefined { return this.running.get(id); }

  step(id: string): number | undefined {
    const a = this.ended.get(id), b = this.running.get(id);
    return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  }

  /** The run's total. */
  total(): number {
    let t = 0;
    for (const v of this.ended.values()) t += v;
    for (const v of this.running.values()) t += v;
    return t;
  }

  /** Whether any agent reported a cost. */
  get reported(): boolean { return this.any; }
}

/** Dollars as an agent bill shows them: cents from a dollar up, else four places. */
export function fmtUsd(usd: number): string {
  return usd >= 0.995 || usd === 0 ? usd.toFixed(2) : usd.toFixed(4);
}
