// The scheduler's view of write-set locks within one run only: for tests and benchmarks.
// Real runs use sharedLocks (every run of the process, and other processes via `.braid/locks`).
import type { GraphStep } from '../plan/types';
import { LockTable } from './locks';
import type { LockGate } from './scheduler';

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
