// Waiting on something another process or the engine does, in tests: poll until it holds, and fail
// naming what was awaited (and the last value seen) rather than fall through to a confusing assertion.

/** Polls `read` until `done` holds for its value, or fails after `ms` saying what it waited for. */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (let delay = 20; ; delay = Math.min(delay * 1.5, 250)) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/**
 * Polls a cheap in-process condition every 10 ms until it holds, or fails after `ms` saying what it
 * waited for (a bound that turns a hang into a readable failure, not a timing claim).
 */
export async function untilHolds(holds: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
