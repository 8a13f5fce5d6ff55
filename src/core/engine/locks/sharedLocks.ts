// The scheduler's lock gate for real runs: one LockTable per workspace decides within this engine
// process (every run in it, so a daemon's runs respect each other), and every lock it grants is
// mirrored as a LockDir file so other processes (a second window, a CLI run) respect it too.
//
// Order matters. The table is only *asked* first (nothing taken), so a step held by another step
// here never touches the disk; the lock file is then claimed under LockDir's mutex; only then is
// the table entry taken. A tentative table entry that had to be taken back would announce a
// release, and every waiter (this run's included) would re-dispatch: the loop this order avoids.
import { resolve } from 'node:path';
import type { Disposable } from '../../disposable';
import { Emitter } from '../../emitter';
import type { GraphStep } from '../../plan/types';
import { LockDir, type LockDirOptions, type LockDirResult } from './lockDir';
import { LockTable } from './lockTable';
import { BRAID_DIR } from '../records/braidLayout';
import type { LockGate, LockGrant } from '../scheduling/schedulerOptions';

const tables = new Map<string, LockTable>();

/** This process's lock table for a workspace, shared by all its runs. */
export function workspaceLockTable(root: string): LockTable {
  const key = resolve(root);
  let t = tables.get(key);
  if (!t) tables.set(key, (t = new LockTable()));
  return t;
}

export interface SharedLocksOptions extends LockDirOptions {
  readonly root: string;
  readonly runId: string;
  /** Default: the workspace's table in this process. */
  readonly table?: LockTable;
}

export interface SharedLockGate extends LockGate {
  /** Stops watching and removes any lock file this run still holds. */
  close(): Promise<void>;
}

const SEP = '/';

/** A LockGate honouring locks of this process's runs and of other processes in the workspace. */
export function sharedLocks(o: SharedLocksOptions): SharedLockGate {
  const table = o.table ?? workspaceLockTable(o.root);
  const dir = new LockDir(o.root, {
    ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
    ...(o.mutexStaleMs !== undefined ? { mutexStaleMs: o.mutexStaleMs } : {}),
  });
  const released = new Emitter<void>();
  // Steps last refused by another process: only while there are any do file changes matter.
  const foreign = new Set<string>();
  const pending = new Set<Promise<void>>();
  let watch: Disposable | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const wake = (): void => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (closed || foreign.size === 0) return;
    // Every such step is tried again on this pass; those still refused say so again.
    foreign.clear();
    released.fire();
  };
  const waitForeign = (id: string, retryAfterMs: number): void => {
    foreign.add(id);
    watch ??= dir.watch(wake);
    // A file event can be missed (the release landed between our read and the watch); the
    // retry after LockDir's stale-check period bounds the wait without polling faster.
    timer ??= setTimeout(wake, retryAfterMs);
  };
  const settled = (id: string): void => {
    foreign.delete(id);
    if (foreign.size === 0 && timer) {
      clearTimeout(timer);
      timer = undefined;
    }
  };
  const track = (p: Promise<void>): void => {
    const q = p.catch(() => undefined).finally(() => pending.delete(q));
    pending.add(q);
  };
  const name = (holder: string): string => {
    const i = holder.indexOf(SEP);
    return i >= 0 && holder.slice(0, i) === o.runId ? holder.slice(i + 1) : holder;
  };

  const tryAcquire = async (step: GraphStep): Promise<LockGrant> => {
    const { writes, reads } = step;
    const here = table.conflict(writes, reads);
    if (here) {
      settled(step.id);
      return { ok: false, holder: name(here.holder), paths: here.paths };
    }
    let file: LockDirResult;
    try {
      file = await dir.tryAcquire({ run: o.runId, step: step.id }, writes, reads);
    } catch (e) {
      // The directory mutex could not be had (a wedged file system, a mutex held past its retries):
      // wait as for a holder, and try again; the dispatch loop must never see a rejection.
      file = {
        ok: false,
        holder: `the lock directory (${(e as Error).message})`,
        paths: [writes[0] ?? reads[0]!, `${BRAID_DIR}/locks`],
        retryAfterMs: o.pollMs ?? 1000,
      };
    }
    if (!file.ok) {
      waitForeign(step.id, file.retryAfterMs);
      return { ok: false, holder: file.holder, paths: file.paths };
    }
    settled(step.id);
    const got = table.tryAcquire(`${o.runId}${SEP}${step.id}`, writes, reads);
    if (!got.ok) {
      // Taken here while we were on the disk: give the file back; the table's holder will announce.
      track(file.release());
      return { ok: false, holder: name(got.holder), paths: got.paths };
    }
    return {
      ok: true,
      release: () => {
        // The file first: other processes may start as soon as it is gone.
        track(file.release());
        got.release();
      },
    };
  };

  const sub = table.onRelease(() => released.fire());
  return {
    tryAcquire,
    onRelease: released.on,
    close: async () => {
      closed = true;
      sub.dispose();
      watch?.dispose();
      if (timer) clearTimeout(timer);
      await Promise.all([...pending]);
      await dir.releaseAllOwnedBy(o.runId);
    },
  };
}
