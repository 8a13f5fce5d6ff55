// Pool caps that shrink when a provider pushes back: a rate-limited step halves its pool's
// concurrency for a while (twice the step's wait, so the steps coming back return at half the
// pace), and the cap comes back whole when that time has passed. A limit while it is already
// cut halves it again (never below 1) and extends the time.
import type { Clock } from './clock';

export interface PoolCut {
  readonly cap: number;
  /** Clock time at which the full cap returns. */
  readonly until: number;
}

export class PoolLimits {
  private readonly cuts = new Map<string, PoolCut & { ctl: AbortController }>();

  /**
   * `caps`: the plan's `pools`; `globalCap`: what a pool without its own cap is halved from;
   * `onRestore`: a cap came back (dispatch again).
   */
  constructor(
    private readonly caps: Readonly<Record<string, number>>,
    private readonly globalCap: number,
    private readonly clock: Clock,
    private readonly onRestore: () => void,
  ) {}

  /** The pool's cap now; undefined when it has none. */
  cap(pool: string): number | undefined {
    return this.cuts.get(pool)?.cap ?? this.caps[pool];
  }

  cut(pool: string): PoolCut | undefined {
    const c = this.cuts.get(pool);
    return c ? { cap: c.cap, until: c.until } : undefined;
  }

  /** Halves `pool`'s cap until `forMs` from now (or later, if already cut for longer). */
  halve(pool: string, forMs: number): PoolCut {
    const now = this.clock.now();
    const prev = this.cuts.get(pool);
    const base = prev?.cap ?? this.caps[pool] ?? this.globalCap;
    const until = Math.max(prev?.until ?? 0, now + Math.max(0, forMs));
    prev?.ctl.abort();
    const ctl = new AbortController();
    const cut = { cap: Math.max(1, Math.floor(base / 2)), until, ctl };
    this.cuts.set(pool, cut);
    this.clock.sleep(until - now, ctl.signal).then(() => {
      if (this.cuts.get(pool) !== cut) return;
      this.cuts.delete(pool);
      this.onRestore();
    }, () => {});
    return { cap: cut.cap, until };
  }

  /** Cancels the restore timers (the run is over: no timer may keep the process alive). */
  dispose(): void {
    for (const c of this.cuts.values()) c.ctl.abort();
    this.cuts.clear();
  }
}
