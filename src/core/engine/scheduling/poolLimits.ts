// Pool caps that follow what a provider accepts. A rate-limited step cuts its pool's cap to the
// number of the pool's steps still running (what the provider is serving: never more than the
// cap it had, never below 1). From there the cap grows back one step at a time, one step each
// probe interval while no limit comes (twice the step's wait, at least 30 s); a limit soon after
// a probe raised the cap doubles the interval, so a pool settled at the provider's limit pays one
// 429 per doubling interval rather than a burst each time a whole cap comes back. The cut ends
// when the cap is whole again. (bench/rateLimits.ts measures it against a provider's limit.)
import type { Clock } from './clock';

export interface PoolCut {
  readonly cap: number;
  /** Clock time of the next probe (the cap grows by one then). */
  readonly until: number;
}

/** The shortest wait between two probes: a provider's limit does not clear in less. */
export const MIN_PROBE_MS = 30_000;

interface Cut {
  cap: number;
  until: number;
  probeMs: number;
  probed: boolean;
  ctl: AbortController;
}

export class PoolLimits {
  private readonly cuts = new Map<string, Cut>();

  /**
   * `caps`: the plan's `pools`; `globalCap`: the cap of a pool without its own;
   * `onRestore`: a cap grew (dispatch again).
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

  /**
   * A step of `pool` was rate-limited while `running` others of it kept running: the cap drops
   * to that, and the next probe is `waitMs` (the doubled wait of the step) from now, doubled
   * again when the last probe had just raised the cap.
   */
  limited(pool: string, running: number, waitMs: number): PoolCut {
    const now = this.clock.now();
    const prev = this.cuts.get(pool);
    const full = this.caps[pool] ?? this.globalCap;
    const cap = Math.max(1, Math.min(prev?.cap ?? full, running));
    const probeMs = prev ? (prev.probed ? prev.probeMs * 2 : prev.probeMs) : Math.max(MIN_PROBE_MS, waitMs);
    prev?.ctl.abort();
    const cut: Cut = { cap, until: now + probeMs, probeMs, probed: false, ctl: new AbortController() };
    this.cuts.set(pool, cut);
    this.schedule(pool, cut);
    return { cap, until: cut.until };
  }

  private schedule(pool: string, cut: Cut): void {
    this.clock.sleep(cut.until - this.clock.now(), cut.ctl.signal).then(
      () => {
        if (this.cuts.get(pool) !== cut) return;
        const full = this.caps[pool] ?? this.globalCap;
        if (cut.cap + 1 >= full) {
          this.cuts.delete(pool);
        } else {
          cut.cap++;
          cut.probed = true;
          cut.ctl = new AbortController();
          cut.until = this.clock.now() + cut.probeMs;
          this.schedule(pool, cut);
        }
        this.onRestore();
      },
      () => {},
    );
  }

  /** Cancels the probe timers (the run is over: no timer may keep the process alive). */
  dispose(): void {
    for (const c of this.cuts.values()) c.ctl.abort();
    this.cuts.clear();
  }
}
