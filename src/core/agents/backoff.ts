// How long a rate-limited step waits before its next attempt: until the reset time the agent
// printed, or exponential back-off from the step's retry-delay, with jitter so the steps of one
// pool, limited together, do not all come back in the same second. Pure: time and randomness
// are given (seededRandom makes a schedule reproducible in tests).

export interface BackoffInput {
  /** How many times this step has been rate-limited, this one included (1 for the first). */
  readonly limitedCount: number;
  /** The step's `retry-delay` in ms: the first wait. */
  readonly baseMs: number;
  /** The reset time the agent printed, if any. */
  readonly resetAt?: Date;
  readonly now: Date;
  /** Uniform in [0, 1). */
  readonly random: () => number;
  /** Longest exponential wait; default 30 minutes. A printed reset time is waited for whatever it is. */
  readonly maxMs?: number;
}

export interface Backoff {
  readonly delayMs: number;
  readonly until: Date;
}

const DEFAULT_MAX_MS = 30 * 60_000;
// A reset time is exact, but every limited step of the provider reads the same one: spread the
// returns over a little while after it.
const RESET_SPREAD_MS = 15_000;

/** The wait before the next attempt of a rate-limited step. */
export function rateLimitBackoff(input: BackoffInput): Backoff {
  const { limitedCount, baseMs, resetAt, now, random } = input;
  if (!Number.isInteger(limitedCount) || limitedCount < 1)
    throw new RangeError(`rateLimitBackoff: limitedCount must be an integer ≥ 1, got ${limitedCount}`);
  if (!Number.isFinite(baseMs) || baseMs < 0)
    throw new RangeError(`rateLimitBackoff: baseMs must be a finite number ≥ 0, got ${baseMs}`);
  const r = random();
  let delayMs: number;
  if (resetAt !== undefined && resetAt.getTime() > now.getTime()) {
    delayMs = resetAt.getTime() - now.getTime() + Math.floor(r * Math.min(RESET_SPREAD_MS, Math.max(baseMs, 1000)));
  } else {
    const max = input.maxMs ?? DEFAULT_MAX_MS;
    // Equal jitter: half the exponential step fixed, half random, so a wait never collapses to 0.
    const step = Math.min(max, baseMs * 2 ** Math.min(limitedCount - 1, 40));
    delayMs = Math.floor(step / 2 + r * (step / 2));
  }
  return { delayMs, until: new Date(now.getTime() + delayMs) };
}

/** A deterministic uniform [0, 1) generator (mulberry32) for reproducible jitter. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
