// A fake attempt's work on the run's clock, shared by the fake agent and alternative runners: each
// cost is reported at its time, then the attempt works until `durationMs`. A cancel (the attempt's
// signal) rejects out of the clock's sleep, so the caller records how it ended.
import type { Clock } from '../../src/core/engine/scheduling/clock';

/** `[at ms, dollars spent so far]`, in time order. */
export type FakeCosts = ReadonlyArray<readonly [number, number]>;

export async function workOnClock(
  clock: Clock,
  signal: AbortSignal,
  costs: FakeCosts = [],
  durationMs = 10,
  spent: (usd: number, at: number) => void = () => {},
): Promise<void> {
  let t = 0;
  for (const [at, usd] of costs) {
    await clock.sleep(at - t, signal);
    t = at;
    spent(usd, at);
  }
  await clock.sleep(Math.max(0, durationMs - t), signal);
}
