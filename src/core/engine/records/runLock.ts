// The lock over an ended run's record: whatever changes run.json from outside the run's own
// process (a decision landing from the record, a run found interrupted) reads it again and writes
// it under this lock, so no two of them work from one stale read and the later write loses the
// earlier one's change.
import { join } from 'node:path';
import * as lockfile from 'proper-lockfile';

export type Locked<T> = { ok: true; value: T } | { ok: false; busy: true };

/**
 * Runs `fn` holding the run's lock (`review.lock` in its folder). Waits up to about `waitMs` for
 * another holder; `busy` when it is still held then.
 */
export async function withRunLock<T>(runDir: string, fn: () => Promise<T>, waitMs = 5_000): Promise<Locked<T>> {
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(runDir, {
      lockfilePath: join(runDir, 'review.lock'),
      realpath: false,
      stale: 10_000,
      onCompromised: () => undefined,
      retries: waitMs > 0 ? { retries: Math.ceil(waitMs / 50), minTimeout: 20, maxTimeout: 50, factor: 1.2 } : 0,
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw e;
    return { ok: false, busy: true };
  }
  try {
    return { ok: true, value: await fn() };
  } finally {
    await release().catch(() => undefined);
  }
}
