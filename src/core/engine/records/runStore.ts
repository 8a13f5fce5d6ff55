// Run records under `.braid/`: run.json written atomically at every state change, so a reload or
// a crash loses nothing, plus the paths of a run's logs, outputs and worktrees (plan-format.md).
import * as fsp from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import type { ChangeRecord } from '../isolation/changeRecord';
import type { GraphSnapshot } from './snapshot';
import { worktreesRoot } from '../isolation/worktreeHome';
import type { AttemptResult } from '../types';
import { RUN_STATUSES, STEP_STATUSES, type ReasonCode, type RunStatus, type StepStatus } from '../../status';
import { braidGitignore, runsDir, worktreesDir } from './braidLayout';
import { pidAlive } from '../../exec/pidAlive';
import { realClock, type Clock } from '../scheduling/clock';

export interface AttemptRecord {
  attempt: number; startedAt: string; endedAt?: string; exitCode?: number | null; signal?: string | null;
  reason?: ReasonCode; message?: string; durationMs?: number;
  /** How the attempt ended; when absent, a succeeded step's last attempt is taken as its success. */
  status?: AttemptResult['status'];
  /** What its agent reported (agent steps). */
  sessionId?: string; turns?: number; inputTokens?: number; outputTokens?: number; costUsd?: number;
  /** The change this attempt committed (worktree steps); kept when a later attempt replaces the step's. */
  changes?: ChangeRecord;
}

export interface StepRecord {
  id: string; status: StepStatus; attempts: AttemptRecord[];
  startedAt?: string; endedAt?: string; durationMs?: number;
  exitCode?: number | null; signal?: string | null; reason?: ReasonCode; message?: string;
  /** While waiting on a lock (a `running` worktree step: its merge-back's). */
  waitingFor?: { holder: string; paths: string[] };
  /** While `waiting` out a retry delay or a rate limit: when the next attempt starts. */
  retryAt?: string;
  /** Where a kept worktree is: an absolute path (records before worktrees left the workspace: workspace-relative). */
  worktree?: string;
  /** What its agents reported spending, every attempt of every run of it; and its latest agent session. */
  costUsd?: number; sessionId?: string;
  /** Worktree steps: the change its last attempt committed (`files: []` when nothing changed). */
  changes?: ChangeRecord;
  /** When `braid revert` took its landed change back out of the workspace. */
  revertedAt?: string;
  /** A best-of step's alternatives (a failed one's kept worktree with it), and the winner's index and why it won. */
  alternatives?: AlternativeRecord[];
  winner?: number; winnerWhy?: string;
  /** What the step was defined as when this run ran it (reuse/contentKey.ts). */
  contentKey?: string;
  /**
   * Not run here: the result of the run that ran it with the same content key was reused (`--only`);
   * when it ended there and the time it spent running there.
   */
  reused?: { run: string; endedAt?: string; durationMs?: number };
}

export interface AlternativeRecord {
  index: number; status: string; attempts: number; costUsd?: number; score?: number; message?: string; worktree?: string;
  /** Its change, shaped as a step's (ref `refs/braid/runs/<run>/<step>.alt<i>`): what it committed, or its tree as it ended (a loser's, a failed one's). */
  changes?: ChangeRecord;
}

export interface RunRecord {
  version: 1; id: string; planFile: string; planName: string; workspace: string;
  status: RunStatus; createdAt: string; endedAt?: string;
  /** `budget`: the run stopped at its `max-cost-usd`. */
  reason?: 'budget';
  /** What the run's agents reported spending (the sum of its steps'). */
  costUsd?: number;
  /** The process that runs it; `procStart` (Linux) tells a reused pid apart. */
  host: { pid: number; hostname: string; procStart?: string };
  /** The plan as it ran. */
  graph: GraphSnapshot;
  steps: Record<string, StepRecord>;
}

export interface RunSummary {
  id: string; planFile: string; planName: string; status: RunStatus; createdAt: string; endedAt?: string;
  counts: Record<StepStatus, number>;
}

export interface RunPaths {
  readonly dir: string;
  readonly runJson: string;
  readonly logsDir: string;
  log(stepId: string): string;
  /** An agent's raw event stream, beside its readable log. */
  rawLog(stepId: string): string;
  readonly outputsDir: string;
  output(stepId: string): string;
  worktree(stepId: string): string;
  /** A worktree step's merge-back commit mark (applyChanges.ts): its change landed. */
  landed(stepId: string): string;
}

/** The file operations the store uses; injectable so tests can count or fail them. */
export type StoreFs = Pick<typeof fsp, 'mkdir' | 'readFile' | 'writeFile' | 'rename' | 'unlink' | 'readdir' | 'stat'>;

// Enough shape to trust a record from disk (hand edits, older versions, half-copied folders);
// loose objects, so fields added later survive a load and save.
const recordSchema = z.looseObject({
  version: z.literal(1), id: z.string(), planFile: z.string(), planName: z.string(), workspace: z.string(),
  status: z.enum(RUN_STATUSES), createdAt: z.string(), endedAt: z.string().optional(),
  host: z.looseObject({ pid: z.number().int(), hostname: z.string() }),
  graph: z.looseObject({
    plan: z.looseObject({ file: z.string(), name: z.string() }),
    agents: z.record(z.string(), z.looseObject({})),
    steps: z.array(z.looseObject({ id: z.string() }))
      .refine((steps) => new Set(steps.map((s) => s.id)).size === steps.length, 'duplicate step ids'),
  }),
  steps: z.record(z.string(), z.looseObject({
    id: z.string(), status: z.enum(STEP_STATUSES),
    attempts: z.array(z.looseObject({ attempt: z.number(), startedAt: z.string(), durationMs: z.number().optional() })),
  })),
});

// Run ids come from the command line too: nothing that could leave `.braid/runs/`.
const SAFE_RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const UNSAFE_STEP_ID = /[/\\\0:]|^\.|^$/;
const RENAME_RETRY = new Set(['EPERM', 'EACCES', 'EBUSY']);

interface Waiter { resolve(): void; reject(e: unknown): void }
/** One run's writes: at most one in flight, and only the newest record waiting behind it. */
interface Lane { next?: RunRecord; waiters: Waiter[]; done: Promise<void>; wake?: () => void }

/**
 * While a run keeps changing, its run.json is written at most this often: each write serialises
 * the whole record on the engine's thread (3.7 ms at 1,000 steps here), and written back to back
 * that was a fifth of a 1,000-step run's loop. A save 100 ms or more after the last write, and
 * `flush`, write at once.
 */
const MIN_WRITE_INTERVAL_MS = 100;

export class RunStore {
  private readonly runsDir: string;
  private readonly lanes = new Map<string, Lane>();
  private failure: unknown;
  private tmpSeq = 0;
  private flushing = 0;
  /** When each run's record was last written (the clock's now), for MIN_WRITE_INTERVAL_MS. */
  private readonly lastWrite = new Map<string, number>();

  /** `clock`: when writes are spaced and what a run found interrupted is stamped with (tests pass a simulated one). */
  constructor(readonly root: string, private readonly fs: StoreFs = fsp, private readonly clock: Clock = realClock) {
    if (!isAbsolute(root)) throw new Error(`RunStore needs an absolute workspace root, got ${JSON.stringify(root)}`);
    this.runsDir = runsDir(root);
  }

  /** A sortable, practically unique id: UTC `YYYYMMDD-HHMMSS-` and 4 random hex digits. */
  static newRunId(now: Date = new Date()): string {
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    const date = `${p(now.getUTCFullYear(), 4)}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}`;
    const time = `${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
    return `${date}-${time}-${randomBytes(2).toString('hex')}`;
  }

  /** Where a run's files live; throws on ids that could escape the run's folder (a bug upstream). */
  paths(runId: string): RunPaths {
    if (!SAFE_RUN_ID.test(runId)) throw new Error(`invalid run id ${JSON.stringify(runId)}`);
    const dir = join(this.runsDir, runId);
    const logsDir = join(dir, 'logs');
    const outputsDir = join(dir, 'outputs');
    const step = (id: string) => {
      if (UNSAFE_STEP_ID.test(id)) throw new Error(`invalid step id ${JSON.stringify(id)}`);
      return id;
    };
    return {
      dir, runJson: join(dir, 'run.json'), logsDir, outputsDir,
      log: (id) => join(logsDir, `${step(id)}.log`),
      rawLog: (id) => join(logsDir, `${step(id)}.jsonl`),
      output: (id) => join(outputsDir, step(id)),
      worktree: (id) => join(worktreesDir(this.root, runId), step(id)),
      landed: (id) => join(dir, 'landed', `${step(id)}.json`),
    };
  }

  /** Makes the run's folders and `.braid/.gitignore`, then writes run.json; throws if the run exists. */
  async create(record: RunRecord): Promise<void> {
    const p = this.paths(record.id);
    await this.fs.mkdir(this.runsDir, { recursive: true });
    try {
      await this.fs.writeFile(braidGitignore(this.root), '*\n', { flag: 'wx' });
    } catch (e) {
      if (code(e) !== 'EEXIST') throw e;
    }
    // Not recursive: an existing folder means an id collision, which must not merge two runs.
    await this.fs.mkdir(p.dir);
    await this.fs.mkdir(p.logsDir, { recursive: true });
    await this.fs.mkdir(p.outputsDir, { recursive: true });
    await this.save(record);
  }

  /**
   * Writes run.json atomically. Calls while a write is in flight coalesce: only the newest record
   * is written next, and every caller resolves once a write made after its call has landed. The
   * record is serialized when written, so a caller may keep mutating one object. The promise is
   * pre-handled (fire-and-forget callers do not crash the process); `flush` reports failures.
   */
  save(record: RunRecord): Promise<void> {
    this.paths(record.id); // a bad id throws here, not later inside the write loop
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
    if (failure !== undefined) throw failure;
  }

  /** The run's record, or undefined when it is unknown, unreadable or malformed. */
  async load(runId: string): Promise<RunRecord | undefined> {
    if (!SAFE_RUN_ID.test(runId)) return undefined;
    let text: string;
    try {
      text = await this.fs.readFile(this.paths(runId).runJson, 'utf8');
    } catch {
      return undefined;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return undefined;
    }
    const parsed = recordSchema.safeParse(data);
    // A record filed under another id would be saved over someone else's run.
    if (!parsed.success || parsed.data.id !== runId) return undefined;
    return data as RunRecord;
  }

  /** Every readable run, newest first; corrupt or half-written folders are skipped. */
  async list(): Promise<RunSummary[]> {
    return (await this.loadAll()).map(summarize);
  }

  /** The newest readable run. */
  async latest(): Promise<RunRecord | undefined> {
    return (await this.loadAll())[0];
  }

  /**
   * Marks `running` runs whose host process is gone (same hostname, pid not alive) as
   * `interrupted`, with their running and waiting steps; returns their ids.
   */
  async markInterrupted(): Promise<string[]> {
    const here = hostname();
    const marked: string[] = [];
    for (const rec of await this.loadAll()) {
      if (rec.status !== 'running' || rec.host.hostname !== here || pidAlive(rec.host.pid, rec.host.procStart)) continue;
      // run.json's mtime is the last moment the host was known alive: the best end time there is.
      const lastSeen = await this.fs.stat(this.paths(rec.id).runJson).then((s) => s.mtime.toISOString(), () => new Date(this.clock.now()).toISOString());
      rec.status = 'interrupted';
      rec.endedAt = lastSeen;
      for (const step of Object.values(rec.steps)) {
        if (step.status !== 'running' && step.status !== 'waiting') continue;
        if (await this.landedLast(rec.id, step)) {
          // Killed after its merge-back's commit point: its change is in the workspace, and
          // running it again would apply it twice.
          step.status = 'succeeded';
          step.message = `its change had landed in the workspace when the engine (pid ${rec.host.pid}) stopped`;
          step.endedAt = lastSeen;
          delete step.waitingFor;
          continue;
        }
        step.message = `the engine (pid ${rec.host.pid}) stopped while the step was ${step.status}`;
        step.status = 'interrupted';
        step.endedAt = lastSeen;
        delete step.waitingFor; delete step.retryAt;
      }
      await this.save(rec);
      marked.push(rec.id);
    }
    return marked;
  }

  /** Whether the step's last recorded attempt (or a later one) marked its merge-back as landed. */
  private async landedLast(runId: string, step: StepRecord): Promise<boolean> {
    try {
      const mark = JSON.parse(await this.fs.readFile(this.paths(runId).landed(step.id), 'utf8')) as { attempt?: unknown };
      return typeof mark.attempt === 'number' && mark.attempt >= (step.attempts.at(-1)?.attempt ?? 0);
    } catch {
      return false;
    }
  }

  /** The plan's readable runs in this workspace, newest first. */
  async runsOfPlan(planFile: string): Promise<RunRecord[]> {
    const file = resolve(planFile);
    return (await this.loadAll()).filter((r) => resolve(r.planFile) === file);
  }

  /** Median duration (ms) of each step's succeeded attempts over the plan's last `limit` runs. */
  async durationHistory(planFile: string, limit = 10): Promise<Map<string, number>> {
    const runs = (await this.runsOfPlan(planFile)).slice(0, limit);
    const samples = new Map<string, number[]>();
    for (const run of runs) {
      for (const step of Object.values(run.steps)) {
        for (const ms of succeededDurations(step)) {
          const list = samples.get(step.id) ?? [];
          list.push(ms);
          samples.set(step.id, list);
        }
      }
    }
    return new Map([...samples].map(([id, list]) => [id, median(list)]));
  }

  /** Stores a step's output (atomically, so a dependent never reads half of it). */
  async writeOutput(runId: string, stepId: string, text: string): Promise<void> {
    const p = this.paths(runId);
    await this.fs.mkdir(p.outputsDir, { recursive: true });
    await this.writeAtomic(p.output(stepId), text);
  }

  /** A step's stored output, or undefined when it has none. */
  async readOutput(runId: string, stepId: string): Promise<string | undefined> {
    try {
      return await this.fs.readFile(this.paths(runId).output(stepId), 'utf8');
    } catch (e) {
      if (code(e) === 'ENOENT') return undefined;
      throw e;
    }
  }

  private async pump(runId: string, lane: Lane): Promise<void> {
    // Let the current burst of synchronous state changes pile up into one write.
    await Promise.resolve();
    const file = this.paths(runId).runJson;
    while (lane.next) {
      const last = this.lastWrite.get(runId);
      const wait = last === undefined || this.flushing > 0 ? 0 : last + MIN_WRITE_INTERVAL_MS - this.clock.now();
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
        await this.writeAtomic(file, JSON.stringify(record, null, 2) + '\n');
        for (const w of waiters) w.resolve();
      } catch (e) {
        this.failure ??= e;
        for (const w of waiters) w.reject(e);
      }
    }
    this.lanes.delete(runId);
  }

  private async writeAtomic(file: string, text: string): Promise<void> {
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

  private async loadAll(): Promise<RunRecord[]> {
    let ids: string[];
    try {
      ids = (await this.fs.readdir(this.runsDir)).filter((id) => SAFE_RUN_ID.test(id));
    } catch (e) {
      if (code(e) === 'ENOENT') return [];
      throw e;
    }
    const records: RunRecord[] = [];
    // A few reads at a time: hundreds of runs must not exhaust file descriptors.
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const rec = await this.load(ids[next++]!);
        if (rec) records.push(rec);
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, ids.length) }, worker));
    return records.sort((a, b) => cmp(b.createdAt, a.createdAt) || cmp(b.id, a.id));
  }
}

function summarize(r: RunRecord): RunSummary {
  const counts = Object.fromEntries(STEP_STATUSES.map((s) => [s, 0])) as Record<StepStatus, number>;
  for (const s of Object.values(r.steps)) counts[s.status]++;
  return {
    id: r.id, planFile: r.planFile, planName: r.planName, status: r.status, createdAt: r.createdAt,
    ...(r.endedAt !== undefined ? { endedAt: r.endedAt } : {}), counts,
  };
}

function succeededDurations(step: StepRecord): number[] {
  const marked = step.attempts.filter((a) => a.status !== undefined);
  const ok = marked.length > 0
    ? marked.filter((a) => a.status === 'succeeded')
    // Records without attempt statuses: retries follow failures only, so a succeeded step's last attempt is its success.
    : step.status === 'succeeded' ? step.attempts.slice(-1) : [];
  return ok.flatMap((a) => (typeof a.durationMs === 'number' && Number.isFinite(a.durationMs) ? [a.durationMs] : []));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}


const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const code = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;
