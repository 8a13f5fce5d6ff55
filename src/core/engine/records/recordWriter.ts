// Writes of run.json that a crash never leaves half done and a busy run never queues up: one
// write in flight a run, only the newest record waiting behind it, written through a temporary
// file and a rename. Apart from runStore.ts, which decides where records go and how they are read.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type * as fsp from 'node:fs/promises';
import type { Clock } from '../scheduling/clock';
import type { RunRecord } from './runRecord';

/** The file operations the writer uses (a part of runStore's StoreFs). */
export type WriteFs = Pick<typeof fsp, 'writeFile' | 'rename' | 'unlink'>;

const RENAME_RETRY = new Set(['EPERM', 'EACCES', 'EBUSY']);

interface Waiter {
  resolve(): void;
  reject(e: unknown): void;
}
/** One run's writes: at most one in flight, and only the newest record waiting behind it. */
interface Lane {
  next?: RunRecord | undefined;
  waiters: Waiter[];
  done: Promise<void>;
  wake?: (() => void) | undefined;
}

/**
 * While a run keeps changing, its run.json is written at most this often: each write serialises
 * the whole record on the engine's thread (3.7 ms at 1,000 steps here), and written back to back
 * that was a fifth of a 1,000-step run's loop. A save 100 ms or more after the last write, and
 * `flush`, write at once.
 */
const MIN_WRITE_INTERVAL_MS = 100;
/**
 * And at least this many times the last write's own cost on the thread (serialising and encoding):
 * the record grows with the run, so a fixed interval made the writes quadratic — at 1,000 instant
 * steps on a loaded machine they took a fifth of the engine's thread, and at 10,000 steps each
 * costs ~40 ms. Writes then take at most 1/WRITE_COST_SHARE of the thread, whatever the size.
 * docs/decisions/many-short-steps.md.
 */
const WRITE_COST_SHARE = 20;

export class RecordWriter {
  private readonly lanes = new Map<string, Lane>();
  private failure: unknown;
  private tmpSeq = 0;
  private flushing = 0;
  /** When each run's record was last written (the clock's now), for MIN_WRITE_INTERVAL_MS. */
  private readonly lastWrite = new Map<string, number>();
  /** What each run's last write cost the thread, in ms (performance.now: real work, whatever the clock). */
  private readonly lastCost = new Map<string, number>();

  /** `fileOf`: the run.json of a run. */
  constructor(
    private readonly fs: WriteFs,
    private readonly clock: Clock,
    private readonly fileOf: (runId: string) => string,
  ) {}

  /**
   * Writes run.json atomically. Calls while a write is in flight coalesce: only the newest record
   * is written next, and every caller resolves once a write made after its call has landed. The
   * record is serialized when written, so a caller may keep mutating one object. The promise is
   * pre-handled (fire-and-forget callers do not crash the process); `flush` reports failures.
   */
  save(record: RunRecord): Promise<void> {
    let lane = this.lanes.get(record.id);
    const promise = new Promise<void>((resolve, reject) => {
      if (!lane) {
        lane = { waiters: [], done: Promise.resolve() };
        this.lanes.set(record.id, lane);
        lane.next = record;
        lane.waiters.push({ resolve, reject });
        lane.done = this.pump(record.id, lane);
      } else {
        lane.next = record;
        lane.waiters.push({ resolve, reject });
      }
    });
    promise.catch(() => {});
    return promise;
  }

  /** Resolves when every save so far has landed; rejects with the first write failure since the last flush. */
  async flush(): Promise<void> {
    this.flushing++;
    try {
      while (this.lanes.size > 0) {
        for (const l of this.lanes.values()) l.wake?.();
        await Promise.all([...this.lanes.values()].map((l) => l.done));
      }
    } finally {
      this.flushing--;
    }
    const failure = this.failure;
    this.failure = undefined;
    // A stored rejection reason (a write's error), rethrown as it came.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (failure !== undefined) throw failure;
  }

  private async pump(runId: string, lane: Lane): Promise<void> {
    // Let the current burst of synchronous state changes pile up into one write.
    await Promise.resolve();
    const file = this.fileOf(runId);
    while (lane.next) {
      const last = this.lastWrite.get(runId);
      const interval = Math.max(MIN_WRITE_INTERVAL_MS, WRITE_COST_SHARE * (this.lastCost.get(runId) ?? 0));
      const wait = last === undefined || this.flushing > 0 ? 0 : last + interval - this.clock.now();
      if (wait > 0) {
        const cut = new AbortController();
        lane.wake = () => cut.abort();
        await this.clock.sleep(wait, cut.signal).catch(() => {}); // woken early: flush
        lane.wake = undefined;
      }
      const record = lane.next;
      const waiters = lane.waiters;
      lane.next = undefined;
      lane.waiters = [];
      this.lastWrite.set(runId, this.clock.now());
      try {
        const t = performance.now();
        const bytes = Buffer.from(JSON.stringify(record, null, 2) + '\n');
        this.lastCost.set(runId, performance.now() - t);
        await this.writeAtomic(file, bytes);
        for (const w of waiters) w.resolve();
      } catch (e) {
        this.failure ??= e;
        for (const w of waiters) w.reject(e);
      }
    }
    this.lanes.delete(runId);
  }

  /** Writes the file through a temporary one beside it and a rename: a reader sees all of it or none. */
  async writeAtomic(file: string, text: string | Uint8Array): Promise<void> {
    // Same folder, so the rename never crosses file systems; pid + counter keep writers apart.
    const tmp = `${file}.${process.pid}.${this.tmpSeq++}.tmp`;
    try {
      // A full disk fails the write half-way: the partial temp file goes too.
      await this.fs.writeFile(tmp, text);
      await this.renameRetrying(tmp, file);
    } catch (e) {
      await this.fs.unlink(tmp).catch(() => {});
      throw e;
    }
  }

  /** writeAtomic's synchronous form, for small files on a platform whose rename never fails this way. */
  writeAtomicSync(file: string, text: string | Uint8Array): void {
    const tmp = `${file}.${process.pid}.${this.tmpSeq++}.tmp`;
    try {
      writeFileSync(tmp, text);
      renameSync(tmp, file);
    } catch (e) {
      try {
        rmSync(tmp, { force: true });
      } catch {
        /* the write's failure is the one to report */
      }
      throw e;
    }
  }

  // Windows refuses to replace a file another process has open for a moment (a reader, a virus
  // scanner); POSIX never fails this way. A few short retries, as graceful-fs does.
  private async renameRetrying(from: string, to: string): Promise<void> {
    for (let i = 0; ; i++) {
      try {
        return await this.fs.rename(from, to);
      } catch (e) {
        if (process.platform !== 'win32' || i >= 10 || !RENAME_RETRY.has(code(e) ?? '')) throw e;
        await new Promise((r) => setTimeout(r, 10 * (i + 1)));
      }
    }
  }
}

const code = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;
