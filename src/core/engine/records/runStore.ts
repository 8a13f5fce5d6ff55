// Run records under `.braid/`: run.json written atomically at every state change (recordWriter.ts),
// so a reload or a crash loses nothing, read back, listed, and found interrupted; plus the paths of
// a run's logs, outputs and worktrees (plan-format.md). The record's shape is in runRecord.ts.
import { mkdirSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { recordSchema, summarize, type RunRecord, type RunSummary, type StepRecord } from './runRecord';
import { RecordWriter } from './recordWriter';
import { braidGitignore, runsDir, worktreesDir } from './braidLayout';
import { pidAlive } from '../../exec/pidAlive';
import { withRunLock } from './runLock';
import { realClock, type Clock } from '../scheduling/clock';

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

// Run ids come from the command line too: nothing that could leave `.braid/runs/`.
const SAFE_RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const UNSAFE_STEP_ID = /[/\\\0:]|^\.|^$/;

export class RunStore {
  private readonly runsDir: string;
  private readonly writer: RecordWriter;

  /** `clock`: when writes are spaced and what a run found interrupted is stamped with (tests pass a simulated one). */
  constructor(
    readonly root: string,
    private readonly fs: StoreFs = fsp,
    private readonly clock: Clock = realClock,
  ) {
    if (!isAbsolute(root)) throw new Error(`RunStore needs an absolute workspace root, got ${JSON.stringify(root)}`);
    this.runsDir = runsDir(root);
    this.writer = new RecordWriter(fs, clock, (runId) => this.paths(runId).runJson);
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
      dir,
      runJson: join(dir, 'run.json'),
      logsDir,
      outputsDir,
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
   * Writes run.json atomically (recordWriter.ts: calls while a write is in flight coalesce, every
   * caller resolves once a write made after its call has landed, the promise is pre-handled);
   * `flush` reports failures.
   */
  save(record: RunRecord): Promise<void> {
    this.paths(record.id); // a bad id throws here, not later inside the write loop
    return this.writer.save(record);
  }

  /** Resolves when every save so far has landed; rejects with the first write failure since the last flush. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** The run's record, or undefined when it is unknown, unreadable or malformed. */
  async load(runId: string, worth?: (data: unknown) => boolean): Promise<RunRecord | undefined> {
    if (!SAFE_RUN_ID.test(runId)) return undefined;
    let text: string;
    try {
      text = await this.fs.readFile(this.paths(runId).runJson, 'utf8');
    } catch {
      // Unknown or unreadable: the documented undefined.
      return undefined;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      // Malformed (a torn write by a killed process): the documented undefined.
      return undefined;
    }
    if (worth && !worth(data)) return undefined;
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
    const dead = (rec: RunRecord) =>
      rec.status === 'running' && rec.host.hostname === here && !pidAlive(rec.host.pid, rec.host.procStart);
    const marked: string[] = [];
    for (const seen of await this.loadAll(mayBeRunningHere)) {
      if (!dead(seen)) continue;
      // What we read may predate the host's last write (it ended the run, then exited, after our
      // read): read again now that it is gone, under the run's lock, or the stale copy written
      // back would undo its end and every decision made since (issue 31).
      const done = await withRunLock(this.paths(seen.id).dir, async () => {
        const rec = await this.load(seen.id);
        if (!rec || !dead(rec)) return false;
        await this.interrupt(rec);
        const saved = this.save(rec);
        await this.flush();
        await saved;
        return true;
      });
      if (done.ok && done.value) marked.push(seen.id);
    }
    return marked;
  }

  private async interrupt(rec: RunRecord): Promise<void> {
    // run.json's mtime is the last moment the host was known alive: the best end time there is.
    const lastSeen = await this.fs.stat(this.paths(rec.id).runJson).then(
      (s) => s.mtime.toISOString(),
      () => new Date(this.clock.now()).toISOString(),
    );
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
      delete step.waitingFor;
      delete step.retryAt;
    }
  }

  /** Whether the step's last recorded attempt (or a later one) marked its merge-back as landed. */
  private async landedLast(runId: string, step: StepRecord): Promise<boolean> {
    try {
      const mark = JSON.parse(await this.fs.readFile(this.paths(runId).landed(step.id), 'utf8')) as {
        attempt?: unknown;
      };
      return typeof mark.attempt === 'number' && mark.attempt >= (step.attempts.at(-1)?.attempt ?? 0);
    } catch {
      // No mark (never landed) or a torn one: not landed.
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

  /**
   * Stores a step's output (atomically, so a dependent never reads half of it). Synchronous where
   * rename replaces an open file (not Windows): four small calls on the engine's thread cost it less
   * than the threadpool round trips of their async forms (stepLog.ts's appendLog says why). The
   * folder is made with the run; made again only if it has gone.
   */
  async writeOutput(runId: string, stepId: string, text: string): Promise<void> {
    const p = this.paths(runId);
    if (process.platform === 'win32') {
      await this.fs.mkdir(p.outputsDir, { recursive: true });
      return this.writer.writeAtomic(p.output(stepId), text);
    }
    try {
      this.writer.writeAtomicSync(p.output(stepId), text);
    } catch (e) {
      if (code(e) !== 'ENOENT') throw e;
      mkdirSync(p.outputsDir, { recursive: true });
      this.writer.writeAtomicSync(p.output(stepId), text);
    }
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

  /** `worth` sees each record's JSON before its schema check: what it refuses costs no check. */
  private async loadAll(worth?: (data: unknown) => boolean): Promise<RunRecord[]> {
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
        const rec = await this.load(ids[next++]!, worth);
        if (rec) records.push(rec);
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, ids.length) }, worker));
    return records.sort((a, b) => cmp(b.createdAt, a.createdAt) || cmp(b.id, a.id));
  }
}

/**
 * Only a run recorded as running on this host can be a dead one to mark: every `braid run` looks,
 * and checking every past run's whole record against the schema was most of a run's start in a
 * workspace with a history (issue 35, docs/decisions/cli-start.md).
 */
function mayBeRunningHere(data: unknown): boolean {
  const d = data as { status?: unknown; host?: { hostname?: unknown } } | null;
  return typeof d === 'object' && d !== null && d.status === 'running' && d.host?.hostname === hostname();
}

function succeededDurations(step: StepRecord): number[] {
  const marked = step.attempts.filter((a) => a.status !== undefined);
  const ok =
    marked.length > 0
      ? marked.filter((a) => a.status === 'succeeded')
      : // Records without attempt statuses: retries follow failures only, so a succeeded step's last attempt is its success.
        step.status === 'succeeded'
        ? step.attempts.slice(-1)
        : [];
  return ok.flatMap((a) => (typeof a.durationMs === 'number' && Number.isFinite(a.durationMs) ? [a.durationMs] : []));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const code = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;
