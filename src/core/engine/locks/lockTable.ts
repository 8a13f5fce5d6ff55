import type { Disposable } from '../../disposable';
import { Emitter } from '../../emitter';
import { lockConflict } from '../../paths/overlap';

// The in-process half of step locking: `writes` are exclusive, `reads` shared. The scheduler
// calls tryAcquire on every dispatch pass, so it never waits; a blocked caller learns who holds
// the conflicting lock and retries after onRelease fires. (Other processes are LockDir's job.)

export interface HeldLock {
  holder: string;
  writes: readonly string[];
  reads: readonly string[];
}

export type AcquireResult = { ok: true; release(): void } | { ok: false; holder: string; paths: [string, string] };

export class LockTable {
  // Insertion order, so the holder named in a conflict is the longest-standing one.
  private readonly entries = new Map<string, HeldLock>();
  private readonly released = new Emitter<void>();

  /** The holder whose set conflicts with these sets, if any; takes nothing. */
  conflict(
    writes: readonly string[],
    reads: readonly string[],
  ): { holder: string; paths: [string, string] } | undefined {
    if (writes.length === 0 && reads.length === 0) return undefined;
    for (const held of this.entries.values()) {
      const paths = lockConflict(writes, reads, held.writes, held.reads);
      if (paths) return { holder: held.holder, paths };
    }
    return undefined;
  }

  /** Takes the locks if no other holder's set conflicts; never blocks. */
  tryAcquire(holder: string, writes: readonly string[], reads: readonly string[]): AcquireResult {
    if (writes.length === 0 && reads.length === 0) return { ok: true, release: () => {} };
    if (this.entries.has(holder)) throw new Error(`LockTable: ${JSON.stringify(holder)} already holds locks`);
    // lockConflict caches glob pairs, so a pass over hundreds of holders is map lookups.
    const blocked = this.conflict(writes, reads);
    if (blocked) return { ok: false, ...blocked };
    const entry: HeldLock = { holder, writes: [...writes], reads: [...reads] };
    this.entries.set(holder, entry);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        if (this.entries.get(holder) === entry) this.entries.delete(holder);
        this.released.fire();
      },
    };
  }

  /** A snapshot of the current holders and their sets. */
  held(): HeldLock[] {
    return [...this.entries.values()].map((e) => ({ holder: e.holder, writes: [...e.writes], reads: [...e.reads] }));
  }

  /** Calls `listener` after any release, so waiting steps can retry. */
  onRelease(listener: () => void): Disposable {
    return this.released.on(listener);
  }
}
