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
