// Lock gates besides the real one: a run-local gate for tests and benchmarks, a view of a gate
// that leaves worktree steps out at dispatch, and the awaited acquire their merge-backs use.
// Real runs use sharedLocks (every run of the process, and other processes via `.braid/locks`).
import type { GraphStep } from '../../plan/types';
import { LockTable } from './lockTable';
import type { LockGate, LockGrant } from '../scheduling/schedulerOptions';

/** Locks for one run: `writes` exclusive, `reads` shared; the holder is named by step id. */
export function processLocks(table = new LockTable()): LockGate {
  return {
    tryAcquire: (step: GraphStep) => {
      const g = table.tryAcquire(step.id, step.writes, step.reads);
      return g.ok ? g : { ok: false, holder: g.holder, paths: g.paths };
    },
    onRelease: (listener) => table.onRelease(listener),
  };
}

const FREE: LockGrant = { ok: true, release: () => {} };

/**
 * The gate as the scheduler sees it when `later` steps take their locks themselves, later (a
 * worktree step locks only its merge-back): those start without any; the rest go to `gate`.
 */
export function lockingOnly(gate: LockGate, later: (step: GraphStep) => boolean): LockGate {
  return {
    tryAcquire: (step) => (later(step) ? FREE : gate.tryAcquire(step)),
    onRelease: (listener) => gate.onRelease(listener),
  };
}

export type WaitedGrant = { ok: true; release(): void } | { ok: false; reason: 'aborted' };

/**
 * Takes `step`'s locks from `gate`, waiting (re-trying on every release) while another holds
 * them. `onWait` hears each holder once, when the wait for it begins. Ends without the locks
 * only when `signal` aborts; a grant that lands after the abort is given back.
 */
export async function acquireWhenFree(
  gate: LockGate,
  step: GraphStep,
  signal: AbortSignal,
  onWait?: (holder: string, paths: readonly string[]) => void,
): Promise<WaitedGrant> {
  let wake: (() => void) | undefined;
  // A release between a refusal and our sleep must not be lost: it is counted, not just signalled.
  let released = 0;
  const sub = gate.onRelease(() => {
    released++;
    wake?.();
  });
  const stop = (): void => wake?.();
  signal.addEventListener('abort', stop, { once: true });
  let lastHolder: string | undefined;
  try {
    for (;;) {
      if (signal.aborted) return { ok: false, reason: 'aborted' };
      const seen = released;
      const got = await gate.tryAcquire(step);
      if (got.ok) {
        if (!signal.aborted) return got;
        got.release();
        return { ok: false, reason: 'aborted' };
      }
      if (got.holder !== lastHolder) {
        lastHolder = got.holder;
        onWait?.(got.holder, got.paths);
      }
      if (released === seen && !signal.aborted)
        await new Promise<void>((r) => {
          wake = r;
        });
      wake = undefined;
    }
  } finally {
    sub.dispose();
    signal.removeEventListener('abort', stop);
  }
}
