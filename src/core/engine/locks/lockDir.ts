import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import { toDisposable, type Disposable } from '../../disposable';
import { watchdogPid } from '../../exec/watchdog';
import { lockConflict } from '../../paths/overlap';
import { locksDir } from '../records/braidLayout';
import { pidAlive, SELF_START, procStart } from '../../exec/pidAlive';

// The cross-process mirror of LockTable: each held lock set is one JSON file in
// `.braid/locks/`, so a second VS Code window or a CLI run in the same workspace respects it.
// Check-and-claim runs under a short directory mutex (proper-lockfile's atomic mkdir), so two
// processes can never both see "free" and both write. Releases only unlink their own file and
// need no mutex. A holder that died (kill -9) leaves its file behind; it is broken once its pid
// is provably dead on this host, and so is its watchdog (the process that ends a dead engine's
// steps, watchdog.ts): until then a step of the dead holder may still be writing. A live
// process's file is never broken.

export interface LockOwner {
  run: string;
  step: string;
}

/** The content of one holder file. */
export interface LockRecord {
  pid: number;
  hostname: string;
  run: string;
  step: string;
  startedAt: string;
  writes: string[];
  reads: string[];
  /** Linux: the process's start time (/proc/<pid>/stat field 22), to tell a reused pid apart. */
  procStart?: string;
  /** The holder's watchdog: its steps may outlive it until this process is gone too. */
  watchdog?: { pid: number; procStart?: string };
}

export type LockDirResult =
  | { ok: true; release(): Promise<void> }
  /** `retryAfterMs`: when a stale check could next free it, in case a file event is missed. */
  | { ok: false; holder: string; paths: [string, string]; retryAfterMs: number };

export interface LockDirOptions {
  /** How often watchers look for vanished files and dead holders; default 1000 ms. */
  pollMs?: number;
  /** After this long a crashed process's directory mutex is taken over; default 5000 ms. */
  mutexStaleMs?: number;
}

// Holder files are named `<pid>-<uuid>.json`.
const OWN_PREFIX = `${process.pid}-`;

export class LockDir {
  /** The absolute path of the lock directory. */
  readonly dir: string;
  private readonly pollMs: number;
  private readonly mutexStaleMs: number;
  private readonly owned = new Map<string, LockOwner>();
  private exitHook: (() => void) | undefined;

  constructor(root: string, options: LockDirOptions = {}) {
    this.dir = locksDir(path.resolve(root));
    this.pollMs = options.pollMs ?? 1000;
    this.mutexStaleMs = options.mutexStaleMs ?? 5000;
  }

  /** Claims `writes` (exclusive) and `reads` (shared) against other processes; never waits on a holder. */
  async tryAcquire(owner: LockOwner, writes: readonly string[], reads: readonly string[]): Promise<LockDirResult> {
    if (writes.length === 0 && reads.length === 0) return { ok: true, release: async () => {} };
    await mkdir(this.dir, { recursive: true });
    const unlockMutex = await lockfile.lock(this.dir, {
      lockfilePath: path.join(this.dir, '.mutex'),
      realpath: false,
      stale: this.mutexStaleMs,
      // Long enough in total to outlast a stale mutex left by a crash, short steps under contention.
      retries: { retries: 200, minTimeout: 2, maxTimeout: 60, factor: 1.3, randomize: true },
      // The critical section takes milliseconds; losing the mutex would take a multi-second stall.
      onCompromised: () => {},
    });
    try {
      for (const { record } of await this.readForeign(true)) {
        const paths = lockConflict(writes, reads, record.writes, record.reads);
        if (paths) return { ok: false, holder: describe(record), paths, retryAfterMs: this.pollMs };
      }
      const record: LockRecord = {
        pid: process.pid,
        hostname: os.hostname(),
        run: owner.run,
        step: owner.step,
        startedAt: new Date().toISOString(),
        writes: [...writes],
        reads: [...reads],
        ...(SELF_START !== undefined ? { procStart: SELF_START } : {}),
        ...watchdogField(),
      };
      const name = `${process.pid}-${randomUUID()}.json`;
      const tmp = path.join(this.dir, `.tmp-${process.pid}-${randomUUID()}`);
      await writeFile(tmp, JSON.stringify(record, null, 2));
      await rename(tmp, path.join(this.dir, name));
      this.own(name, owner);
      let released: Promise<void> | undefined;
      return { ok: true, release: () => (released ??= this.releaseFile(name)) };
    } finally {
      await unlockMutex().catch(() => {});
    }
  }

  /** Removes every lock this instance holds for `run` (cancel, exit). */
  async releaseAllOwnedBy(run: string): Promise<void> {
    const names = [...this.owned].filter(([, o]) => o.run === run).map(([name]) => name);
    await Promise.all(names.map((name) => this.releaseFile(name)));
  }

  /**
   * Calls `listener` (debounced) when a holder file disappears or its process is found dead, so a
   * waiting step retries without polling. Creates the directory if it does not exist yet.
   * Subscribe before the attempt that may fail, or a release in between goes unseen (or retry
   * once after the failure's `retryAfterMs`).
   */
  watch(listener: () => void): Disposable {
    let known = new Set<string>();
    const reportedDead = new Set<string>();
    let watcher: fs.FSWatcher | undefined;
    let debounce: NodeJS.Timeout | undefined;
    let disposed = false;
    const touched = new Set<string>();

    const attach = (): void => {
      if (watcher || disposed) return;
      try {
        fs.mkdirSync(this.dir, { recursive: true });
        known = new Set(jsonFiles(fs.readdirSync(this.dir)));
        watcher = fs.watch(this.dir, (_kind, name) => {
          // A foreign file that came and went between two checks leaves the listing unchanged:
          // the event itself says something may have been released.
          const file = typeof name === 'string' ? name : '';
          if (file.endsWith('.json') && !file.startsWith(OWN_PREFIX)) touched.add(file);
          schedule();
        });
        watcher.on('error', () => {
          watcher?.close();
          watcher = undefined; // the directory went away: re-attached on the next poll
        });
      } catch {
        // The directory is not there yet (or cannot be watched here): the poll covers it.
        watcher = undefined;
      }
    };
    const schedule = (): void => {
      if (debounce || disposed) return;
      debounce = setTimeout(() => {
        debounce = undefined;
        void check();
      }, 10);
    };
    const check = async (): Promise<void> => {
      let names: string[];
      try {
        names = jsonFiles(await readdir(this.dir));
      } catch {
        // The directory is not there yet: no locks.
        names = [];
      }
      const now = new Set(names);
      // This process's own files are LockTable's business: their release is announced there, and
      // echoing it here would make a waiting run re-dispatch on every one of its own releases.
      let fire = [...known, ...touched].some((n) => !now.has(n) && !n.startsWith(OWN_PREFIX));
      touched.clear();
      known = now;
      for (const { name, record } of await this.readForeign(false, true)) {
        if (!reportedDead.has(name) && isStale(record)) {
          reportedDead.add(name);
          fire = true;
        }
      }
      if (fire && !disposed) listener();
    };

    attach();
    const poll = setInterval(() => {
      attach();
      schedule();
    }, this.pollMs);
    poll.unref();
    return toDisposable(() => {
      disposed = true;
      clearInterval(poll);
      if (debounce) clearTimeout(debounce);
      watcher?.close();
    });
  }

  // Holder files of other processes. With `breakStale`, those of dead processes (and their
  // abandoned temp files) are removed; only call that under the mutex. With `includeStale`,
  // stale ones are returned too.
  private async readForeign(
    breakStale: boolean,
    includeStale = false,
  ): Promise<Array<{ name: string; record: LockRecord }>> {
    let entries: string[];
    try {
      entries = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: Array<{ name: string; record: LockRecord }> = [];
    for (const name of entries) {
      const file = path.join(this.dir, name);
      if (name.startsWith('.tmp-')) {
        const pid = Number(name.split('-')[1]);
        if (breakStale && Number.isInteger(pid) && !pidAlive(pid)) await unlink(file).catch(() => {});
        continue;
      }
      if (!name.endsWith('.json')) continue;
      const record = await readRecord(file);
      // Unreadable: removed meanwhile, or not ours to interpret (never written half: temp + rename).
      if (!record || isSelf(record)) continue;
      if (isStale(record)) {
        if (breakStale) await unlink(file).catch(() => {});
        if (!includeStale) continue;
      }
      out.push({ name, record });
    }
    return out;
  }

  private own(name: string, owner: LockOwner): void {
    this.owned.set(name, owner);
    if (!this.exitHook) {
      // A normal exit (even process.exit) leaves no files; only a crash needs stale breaking.
      this.exitHook = () => {
        for (const n of this.owned.keys()) {
          try {
            fs.unlinkSync(path.join(this.dir, n));
          } catch {
            // already gone
          }
        }
      };
      process.on('exit', this.exitHook);
    }
  }

  private async releaseFile(name: string): Promise<void> {
    if (!this.owned.delete(name)) return;
    if (this.owned.size === 0 && this.exitHook) {
      process.off('exit', this.exitHook);
      this.exitHook = undefined;
    }
    await unlink(path.join(this.dir, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}

function describe(r: LockRecord): string {
  return `${r.run}/${r.step} (pid ${r.pid}${r.hostname === os.hostname() ? '' : ` on ${r.hostname}`})`;
}

function jsonFiles(names: string[]): string[] {
  return names.filter((n) => n.endsWith('.json'));
}

async function readRecord(file: string): Promise<LockRecord | undefined> {
  try {
    const r = JSON.parse(await readFile(file, 'utf8')) as Partial<LockRecord>;
    const ok =
      typeof r.pid === 'number' &&
      typeof r.hostname === 'string' &&
      typeof r.run === 'string' &&
      typeof r.step === 'string' &&
      Array.isArray(r.writes) &&
      Array.isArray(r.reads);
    return ok ? (r as LockRecord) : undefined;
  } catch {
    // Removed meanwhile, or torn by a crash: no lock record.
    return undefined;
  }
}

// Our own process's locks are LockTable's business. A file with our pid but another start time
// is a previous process that reused our pid: stale, not ours.
function isSelf(r: LockRecord): boolean {
  return (
    r.hostname === os.hostname() && r.pid === process.pid && (r.procStart === undefined || r.procStart === SELF_START)
  );
}

function watchdogField(): Pick<LockRecord, 'watchdog'> {
  const pid = watchdogPid();
  if (pid === undefined) return {};
  const started = procStart(pid);
  return { watchdog: { pid, ...(started !== undefined ? { procStart: started } : {}) } };
}

// Only a process on this host can be proven dead; others count as alive forever. A dead holder's
// watchdog still running means its steps may be too.
function isStale(r: LockRecord): boolean {
  if (r.hostname !== os.hostname()) return false;
  if (pidAlive(r.pid, r.procStart)) return false;
  // A dead engine's steps may live on until its watchdog (exec/watchdog.ts) has ended them.
  const w = r.watchdog;
  return w === undefined || typeof w.pid !== 'number' || !pidAlive(w.pid, w.procStart);
}
