// The scheduler's view of write-set locks within one engine process.
// (Cross-process LockDir joins here next; see the closing note of session 1.)
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
