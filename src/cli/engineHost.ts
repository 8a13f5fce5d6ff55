// The engine's state: connected windows and the runs it executes. Runs belong to the engine, not to
// a connection, so a window reload (disconnect, reconnect) leaves them going; a reconnecting window
// gets a snapshot of the active runs and then every event, and is back in step.
import type { PriceTable } from '../core/cost/prices';
import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import type { BudgetDecision } from '../core/engine/scheduling/budget';
import type { CompileOptions } from '../core/plan/compile';
import { LauncherPool } from '../core/exec/launcher';
import { runPlan } from '../core/engine/runPlan';
import { runWatchers } from './runWatchers';
import type { Scheduler } from '../core/engine/scheduling/scheduler';
import { DEFAULT_CONCURRENCY } from '../core/engine/scheduling/schedulerOptions';
import { RunStore } from '../core/engine/records/runStore';
import type { RunRecord } from '../core/engine/records/runRecord';
import { requester } from '../core/engine/review/decisionClaim';
import { reviewSteps } from '../core/engine/review/reviewSteps';
import type { Diagnostic } from '../core/plan/types';
import {
  PROTOCOL_VERSION,
  encodeMessage,
  parseClientMessage,
  type ClientMessage,
  type EngineMessage,
  type LiveRunRecord,
  type RequestOf,
  type RequestType,
  type ResultOf,
} from '../protocol/engine';
import { LineSplitter } from '../protocol/jsonLines';
import { BudgetHold } from './budgetHold';
import { formatDiagnostic, formatUsd } from '../core/format';

export interface EngineHostOptions {
  /** The workspace's real path: runs are recorded under its `.braid/`. */
  readonly workspace: string;
  readonly isGit: boolean;
  /** How long with no runs and no clients before the engine asks to stop. */
  readonly idleMs: number;
  /** How long a run held at its budget waits for a window's answer before it stops. */
  readonly budgetTimeoutMs: number;
  readonly log: (line: string) => void;
  /** Stops the engine: closes the listener, then `stopRuns` and `closeConnections` here. */
  readonly requestStop: (reason: string) => Promise<void>;
}

// A client that stops reading must not grow the engine without bound; it can reconnect and resync.
const MAX_UNSENT_BYTES = 32 * 1024 * 1024;

class Connection {
  greeted = false;
  /** Receives events: set once its snapshot is sent. */
  subscribed = false;

  constructor(
    readonly id: number,
    readonly socket: Socket,
    private readonly log: (line: string) => void,
  ) {}

  send(message: EngineMessage): void {
    if (this.socket.destroyed || !this.socket.writable) return;
    this.socket.write(encodeMessage(message));
    if (this.socket.writableLength > MAX_UNSENT_BYTES) {
      this.log(`client ${this.id}: not reading (${this.socket.writableLength} bytes unsent); disconnecting it`);
      this.socket.destroy();
    }
  }

  reply<T extends RequestType>(id: number, _type: T, result: ResultOf<T>): void {
    this.send({ type: 'reply', id, ok: true, result });
  }

  fail(id: number, error: string, diagnostics?: readonly Diagnostic[]): void {
    this.send({
      type: 'reply',
      id,
      ok: false,
      error,
      ...(diagnostics && diagnostics.length > 0 ? { diagnostics: [...diagnostics] } : {}),
    });
  }
}

interface ActiveRun {
  runId?: string;
  readonly abort: AbortController;
  scheduler?: Scheduler;
  /** The run's record as the run keeps it in memory: current at every event already sent. */
  record?: RunRecord;
  /** Set while the run is held at its `max-cost-usd`, waiting for a `budgetDecision`. */
  budget?: BudgetHold;
  done?: Promise<void>;
}

type RunParams = {
  planFile: string;
  only?: readonly string[];
  from?: string;
  fresh?: boolean;
  concurrency?: number;
  compile?: Omit<CompileOptions, 'isGit'>;
  retry?: { runId: string; steps?: readonly string[] };
  resume?: boolean;
  resolve?: { step: string; agent?: string };
  /** The window's `braid.prices`. */
  prices?: PriceTable;
  watch?: { otelEndpoint?: string; notify?: readonly string[] };
};
type StartOutcome = { ok: true; runId: string } | { ok: false; error: string; diagnostics?: readonly Diagnostic[] };

export class EngineHost {
  private readonly connections = new Set<Connection>();
  /** Every run from request to record written, started or not. */
  private readonly active = new Set<ActiveRun>();
  /** Runs by id, from their first event on. */
  private readonly byId = new Map<string, ActiveRun>();
  /**
   * Runs that ended in this engine: a budget answer for one is "too late", not an error (another
   * window answered first and the run is already over). Ids only, a few bytes a run.
   */
  private readonly ended = new Set<string>();
  private readonly retrying = new Set<string>();
  private readonly store: RunStore;
  private pendingShutdownReplies: (() => void)[] = [];
  private idleTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  // One launcher pool for every run of this engine, made at its first run, so later runs' first
  // steps start warm too (a CLI run makes its own and pays for that once).
  private pool: LauncherPool | undefined;
  private poolMade = false;
  private started = false;
  private seq = 0;

  constructor(private readonly o: EngineHostOptions) {
    this.store = new RunStore(o.workspace);
  }

  /** Starts the idle clock: call once listening. */
  start(): void {
    this.started = true;
    this.updateIdle();
  }

  /** Serves one client connection until it closes. */
  accept(socket: Socket): void {
    const conn = new Connection(++this.seq, socket, this.o.log);
    this.connections.add(conn);
    this.updateIdle();
    this.o.log(`client ${conn.id} connected`);
    socket.setEncoding('utf8');
    const lines = new LineSplitter(
      (line) => this.onLine(conn, line),
      () => {
        this.o.log(`client ${conn.id}: line too long; disconnecting it`);
        socket.destroy();
      },
    );
    socket.on('data', (text: string) => lines.push(text));
    socket.on('error', (e) => this.o.log(`client ${conn.id}: ${e.message}`));
    socket.on('close', () => {
      this.connections.delete(conn);
      this.o.log(`client ${conn.id} disconnected`);
      this.updateIdle();
    });
  }

  /** Cancels every run and resolves once each one's record is written. */
  async stopRuns(): Promise<void> {
    this.stopping = true;
    this.updateIdle();
    for (const run of this.active) run.abort.abort();
    await Promise.allSettled([...this.active].flatMap((r) => (r.done ? [r.done] : [])));
    this.pool?.close();
  }

  private get launchers(): LauncherPool | undefined {
    if (!this.poolMade) {
      this.poolMade = true;
      this.pool = LauncherPool.create(DEFAULT_CONCURRENCY + 1);
    }
    return this.pool;
  }

  /** Answers pending `shutdown` requests and ends every connection. */
  async closeConnections(): Promise<void> {
    for (const reply of this.pendingShutdownReplies.splice(0)) reply();
    await Promise.all(
      [...this.connections].map(
        (c) =>
          new Promise<void>((done) => {
            if (c.socket.destroyed) return done();
            c.socket.once('close', () => done());
            c.socket.end();
            // A peer that never closes its end must not hold the engine open.
            setTimeout(() => c.socket.destroy(), 1000).unref();
          }),
      ),
    );
  }

  private onLine(conn: Connection, line: string): void {
    const parsed = parseClientMessage(line);
    if (!parsed.ok) {
      this.o.log(`client ${conn.id}: dropped invalid message: ${parsed.error}`);
      return;
    }
    this.handle(conn, parsed.message).catch((e: unknown) => {
      this.o.log(`client ${conn.id}: ${parsed.message.type} failed: ${(e as Error).stack ?? String(e)}`);
      conn.fail(parsed.message.id, `engine error: ${(e as Error).message}`);
    });
  }

  private async handle(conn: Connection, m: ClientMessage): Promise<void> {
    if (m.type !== 'hello' && !conn.greeted) return conn.fail(m.id, 'send hello first');
    if (m.type === 'shutdown') {
      this.o.log(`client ${conn.id} asked the engine to shut down`);
      this.pendingShutdownReplies.push(() => conn.reply(m.id, 'shutdown', {}));
      await this.o.requestStop('shutdown request');
      return;
    }
    if (this.stopping && m.type !== 'hello') return conn.fail(m.id, 'the engine is shutting down');
    switch (m.type) {
      case 'hello':
        return this.hello(conn, m);
      case 'run':
        return this.reportStart(
          conn,
          m.id,
          'run',
          await this.startRun({
            planFile: resolve(this.o.workspace, m.planFile),
            ...(m.only ? { only: m.only } : {}),
            ...(m.from !== undefined ? { from: m.from } : {}),
            ...(m.fresh ? { fresh: true } : {}),
            ...(m.concurrency !== undefined ? { concurrency: m.concurrency } : {}),
            ...(m.compile ? { compile: m.compile } : {}),
            ...(m.prices ? { prices: m.prices } : {}),
            ...(m.watch ? { watch: m.watch } : {}),
          }),
        );
      case 'retry':
        return this.retry(conn, m);
      case 'budgetDecision': {
        const run = this.byId.get(m.runId);
        if (!run && !this.ended.has(m.runId)) return conn.fail(m.id, `run ${m.runId} is not active in this engine`);
        const accepted = run?.budget?.decide(m.decision) ?? false;
        this.o.log(
          `budget of ${m.runId}: client ${conn.id} says ${m.decision}${accepted ? '' : ' (too late: not waiting for a decision)'}`,
        );
        return conn.reply(m.id, 'budgetDecision', { accepted });
      }
      case 'cancelRun': {
        const run = this.byId.get(m.runId);
        if (!run) return conn.fail(m.id, `run ${m.runId} is not active in this engine`);
        this.o.log(`cancel run ${m.runId}`);
        run.abort.abort();
        return conn.reply(m.id, 'cancelRun', {});
      }
      case 'cancelStep': {
        const scheduler = this.byId.get(m.runId)?.scheduler;
        if (!scheduler) return conn.fail(m.id, `run ${m.runId} is not active in this engine`);
        if (!scheduler.state(m.stepId)) return conn.fail(m.id, `run ${m.runId} has no step ${m.stepId}`);
        this.o.log(`cancel step ${m.stepId} of ${m.runId}`);
        scheduler.cancelStep(m.stepId);
        return conn.reply(m.id, 'cancelStep', {});
      }
      case 'review': {
        this.o.log(`${m.action} ${m.steps.join(' ')} of ${m.runId}`);
        const r = await reviewSteps(this.o.workspace, m.runId, {
          action: m.action,
          steps: m.steps,
          by: requester('VS Code'),
          ...(m.reason !== undefined ? { reason: m.reason } : {}),
        });
        return r.ok ? conn.reply(m.id, 'review', { results: r.results }) : conn.fail(m.id, r.message);
      }
      case 'listRuns': {
        await this.store.markInterrupted();
        return conn.reply(m.id, 'listRuns', { active: [...this.byId.keys()], runs: await this.store.list() });
      }
    }
  }

  private async hello(conn: Connection, m: RequestOf<'hello'>): Promise<void> {
    if (m.protocol !== PROTOCOL_VERSION) {
      return conn.fail(m.id, `this engine speaks protocol ${PROTOCOL_VERSION}, the client ${m.protocol}`);
    }
    this.o.log(`client ${conn.id} is ${m.client}`);
    conn.greeted = true;
    conn.reply(m.id, 'hello', { protocol: PROTOCOL_VERSION, pid: process.pid, workspace: this.o.workspace });
    // A repeated hello resyncs: a fresh snapshot, events keep flowing.
    conn.send({ type: 'snapshot', runs: this.snapshot() });
    conn.subscribed = true;
  }

  private async retry(conn: Connection, m: RequestOf<'retry'>): Promise<void> {
    if (this.byId.has(m.runId) || this.retrying.has(m.runId)) return conn.fail(m.id, `run ${m.runId} is still active`);
    this.retrying.add(m.runId);
    try {
      const rec = await this.store.load(m.runId);
      if (!rec) return conn.fail(m.id, `unknown run ${m.runId}`);
      this.reportStart(
        conn,
        m.id,
        'retry',
        await this.startRun({
          planFile: rec.planFile,
          retry: { runId: m.runId, ...(m.steps ? { steps: m.steps } : {}) },
          ...(m.resume ? { resume: true } : {}),
          ...(m.resolve
            ? {
                resolve: { step: m.resolve.step, ...(m.resolve.agent !== undefined ? { agent: m.resolve.agent } : {}) },
              }
            : {}),
          ...(m.prices ? { prices: m.prices } : {}),
          ...(m.concurrency !== undefined ? { concurrency: m.concurrency } : {}),
          ...(m.compile ? { compile: m.compile } : {}),
          ...(m.watch ? { watch: m.watch } : {}),
        }),
      );
    } finally {
      this.retrying.delete(m.runId);
    }
  }

  private reportStart(conn: Connection, id: number, type: 'run' | 'retry', r: StartOutcome): void {
    if (r.ok) conn.reply(id, type, { runId: r.runId });
    else conn.fail(id, r.error, r.diagnostics);
  }

  /** Starts a run; resolves once it has started (its record exists) or could not start. */
  private startRun(p: RunParams): Promise<StartOutcome> {
    const run: ActiveRun = { abort: new AbortController() };
    this.active.add(run);
    this.updateIdle();
    const register = (runId: string) => {
      if (run.runId) return;
      run.runId = runId;
      this.byId.set(runId, run);
    };
    // A failing webhook or collector is said in the engine's log, once; it never fails the run.
    const notice = (m: string) => this.o.log(`run ${run.runId ?? p.planFile}: ${m}`);
    const observers = runWatchers(
      process.env,
      {
        otel: { ...(p.watch?.otelEndpoint ? { endpoint: p.watch.otelEndpoint } : {}) },
        ...(p.watch?.notify ? { notify: p.watch.notify } : {}),
        budgetAnswer: 'it holds until a VS Code window answers (Continue or Stop on the run), or stops when none does',
      },
      notice,
    );
    return new Promise<StartOutcome>((settle) => {
      let started = false;
      run.done = runPlan({
        planFile: p.planFile,
        workspace: this.o.workspace,
        signal: run.abort.signal,
        compile: { ...p.compile, isGit: this.o.isGit },
        ...(p.only ? { only: p.only } : {}),
        ...(p.from !== undefined ? { from: p.from } : {}),
        ...(p.fresh ? { fresh: true } : {}),
        ...(p.concurrency !== undefined ? { concurrency: p.concurrency } : {}),
        ...(p.retry ? { retry: p.retry } : {}),
        ...(p.resume ? { resume: true } : {}),
        ...(p.resolve ? { resolve: p.resolve } : {}),
        ...(p.prices ? { prices: p.prices } : {}),
        ...(this.launchers ? { launchers: this.launchers } : {}),
        observers,
        onNotice: notice,
        // runPlan has already emitted (so broadcast) the `budget` event when it asks.
        onBudget: (spentUsd, budgetUsd, pool) => this.askBudget(run, spentUsd, budgetUsd, pool),
        onEvent: (e) => {
          register(e.run);
          this.broadcast({ type: 'event', event: e });
        },
        onStart: (runId, scheduler, _graph, record) => {
          register(runId);
          run.scheduler = scheduler;
          run.record = record;
          started = true;
          this.o.log(
            `run ${runId} started: ${p.planFile}${p.retry ? ` (retry${p.resume ? ', resuming sessions' : ''})` : ''}`,
          );
          settle({ ok: true, runId });
        },
      }).then(
        (outcome) => {
          // Off the active list before `runEnded`: a snapshot taken after it must not list the run.
          this.forget(run);
          if (!outcome.ok) {
            const error = outcome.usage ?? refusal(outcome.diagnostics);
            this.o.log(`run of ${p.planFile} not started: ${error}`);
            settle({ ok: false, error, diagnostics: outcome.diagnostics });
            return;
          }
          const steps = Object.fromEntries(Object.entries(outcome.record.steps).map(([id, s]) => [id, s.status]));
          this.o.log(`run ${outcome.runId} ${outcome.result.status}`);
          this.broadcast({ type: 'runEnded', runId: outcome.runId, status: outcome.result.status, steps });
        },
        (e: unknown) => {
          this.forget(run);
          // A bug in the engine, not a step failure: say so, and still end the run for the windows.
          this.o.log(`run of ${p.planFile} crashed: ${(e as Error).stack ?? String(e)}`);
          if (!started) {
            settle({ ok: false, error: `could not start the run: ${(e as Error).message}` });
            return;
          }
          const steps = Object.fromEntries(Object.entries(run.record?.steps ?? {}).map(([id, s]) => [id, s.status]));
          this.broadcast({ type: 'runEnded', runId: run.runId!, status: 'failed', steps });
        },
      );
    });
  }

  /**
   * The run reached its budget: hold it until a window answers. With no window to ask, or none
   * answering in time, it stops. A window that disconnects does not stop it by itself: a reloading
   * window comes back, finds `pendingBudget` in its snapshot and can still answer.
   */
  private askBudget(run: ActiveRun, spentUsd: number, budgetUsd: number, pool?: string): Promise<BudgetDecision> {
    const what = `${pool !== undefined ? `pool ${pool} of ` : ''}run ${run.runId ?? '?'} reached its budget (${formatUsd(spentUsd)} of ${formatUsd(budgetUsd)})`;
    if (![...this.connections].some((c) => c.subscribed)) {
      this.o.log(`${what} with no window to ask: stopping it`);
      return Promise.resolve('stop');
    }
    this.o.log(`${what}: waiting up to ${this.o.budgetTimeoutMs} ms for a decision`);
    const hold = new BudgetHold(spentUsd, budgetUsd, pool, this.o.budgetTimeoutMs, () => {
      this.o.log(`${what}: no decision within ${this.o.budgetTimeoutMs} ms: stopping it`);
    });
    run.budget = hold;
    return hold.decision;
  }

  private forget(run: ActiveRun): void {
    // Ended while held (canceled, the engine stopping): nobody can answer any more.
    run.budget?.decide('stop');
    if (run.runId) {
      this.byId.delete(run.runId);
      this.ended.add(run.runId);
    }
    this.active.delete(run);
    this.updateIdle();
  }

  /**
   * The active runs' records as the runs hold them in memory (saved to run.json before each event
   * goes out, so a snapshot and the events after it never disagree). A copy: the run goes on.
   */
  private snapshot(): LiveRunRecord[] {
    const runs: LiveRunRecord[] = [];
    for (const run of this.byId.values()) {
      if (!run.record) continue; // between its first event and its start, synchronously: never seen here
      const rec: LiveRunRecord = structuredClone(run.record);
      if (run.budget?.pending)
        rec.pendingBudget = {
          spentUsd: run.budget.spentUsd,
          budgetUsd: run.budget.budgetUsd,
          ...(run.budget.pool !== undefined ? { pool: run.budget.pool } : {}),
        };
      runs.push(rec);
    }
    return runs;
  }

  private broadcast(message: EngineMessage): void {
    for (const c of this.connections) if (c.subscribed) c.send(message);
  }

  private updateIdle(): void {
    const idle = this.started && !this.stopping && this.connections.size === 0 && this.active.size === 0;
    if (!idle) {
      if (this.idleTimer) this.o.log('idle clock stopped: a window or a run keeps the engine');
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    } else if (!this.idleTimer) {
      // Said in the log, so a test (and a user reading engine.log) sees when the engine would stop.
      this.o.log(`idle clock started: stopping in ${this.o.idleMs} ms unless a window connects or a run starts`);
      this.idleTimer = setTimeout(() => {
        void this.o.requestStop(`idle for ${this.o.idleMs} ms`);
      }, this.o.idleMs);
    }
  }
}

// The reason a run did not start, as one message: its first few errors (two missing agent CLIs
// are two sentences, each with its install command), each located.
function refusal(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return 'invalid plan';
  const shown = errors.slice(0, 3).map((d) => formatDiagnostic(d));
  return shown.join('\n') + (errors.length > 3 ? `\n(and ${errors.length - 3} more)` : '');
}
