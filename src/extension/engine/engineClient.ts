// The extension's side of the engine socket, in plain Node (no `vscode`), so it is tested without a
// window. It reaches the workspace's engine, or starts one (engineSocketOpen.ts), and offers typed
// requests, the engine's events and run endings.
import type { Socket } from 'node:net';
import type { Disposable } from '../../core/disposable';
import { Emitter } from '../../core/emitter';
import { exact } from '../../core/exact';
import type { BudgetDecision } from '../../core/engine/scheduling/budget';
import type { EngineEvent } from '../../core/engine/types';
import type { Diagnostic } from '../../core/plan/types';
import {
  PROTOCOL_VERSION,
  clientMessageSchema,
  encodeMessage,
  parseEngineMessage,
  parseResult,
  type LiveRunRecord,
  type RequestParams,
  type RequestType,
  type ResultOf,
  type RunEnded,
} from '../../protocol/engine';
import { LineSplitter } from '../../protocol/jsonLines';
import { realWorkspace } from '../../core/engineSocket';
import { openEngineSocket } from './engineSocketOpen';

export interface ConnectOptions {
  readonly workspace: string;
  /** The CLI bundle (`out/cli.js`) that runs the engine. */
  readonly cliPath: string;
  /** The Node to run it with; desktop VS Code's own binary is Electron, run as Node. */
  readonly execPath?: string;
  /** Extra environment for a started engine. */
  readonly env?: NodeJS.ProcessEnv;
  /** Says who connects, in the engine's log. */
  readonly clientName?: string;
  /** How long to keep trying to reach an engine just started (default 5 s). */
  readonly startTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

export interface EngineClient {
  /** The engine's pid, as of the latest connection. */
  readonly pid: number;
  readonly connected: boolean;
  /** Starts a plan; resolves with its id once it has started. An invalid plan rejects with `EngineRequestError` (its `diagnostics`). */
  run(params: RequestParams<'run'>): Promise<ResultOf<'run'>>;
  /** Retries a run in place (its failed/canceled/skipped/interrupted steps, or `steps`); `resume` continues agent sessions. */
  retry(params: RequestParams<'retry'>): Promise<ResultOf<'retry'>>;
  /**
   * Answers a run held at its budget (a `budget` event without `decision`, or `pendingBudget` in a
   * snapshot). Resolves `accepted: false` when another answer or the engine's timeout came first;
   * rejects for a run the engine is not running.
   */
  budgetDecision(runId: string, decision: BudgetDecision): Promise<ResultOf<'budgetDecision'>>;
  cancelRun(runId: string): Promise<void>;
  cancelStep(runId: string, stepId: string): Promise<void>;
  listRuns(): Promise<ResultOf<'listRuns'>>;
  /** Any request by name (the methods above are shorthands); `hello` again resyncs with a fresh snapshot. */
  request<T extends RequestType>(type: T, params: RequestParams<T>): Promise<ResultOf<T>>;
  /** Asks the engine to cancel its runs and exit; resolves once the records are written. */
  shutdown(): Promise<void>;
  /** Resolves when the run ends (also when it just ended); rejects for a run the engine is not running, or if the connection drops first. */
  whenEnded(runId: string): Promise<RunEnded>;
  onEvent(listener: (event: EngineEvent) => void): Disposable;
  /**
   * The engine's active runs: called at once with the latest snapshot, then after every reconnection
   * (a reloaded window rebuilds its views from it). A run held at its budget has `pendingBudget`.
   */
  onSnapshot(listener: (runs: LiveRunRecord[]) => void): Disposable;
  onRunEnded(listener: (ended: RunEnded) => void): Disposable;
  /** The engine went away (it stopped, or died: its runs are `interrupted` once an engine starts again). */
  onDisconnect(listener: () => void): Disposable;
  /** Connects again, starting an engine if none runs. Requests made while disconnected do this themselves. */
  reconnect(): Promise<void>;
  dispose(): void;
}

/** A request the engine refused; `diagnostics` when the plan did not compile. */
export class EngineRequestError extends Error {
  constructor(
    message: string,
    readonly diagnostics: readonly Diagnostic[] = [],
  ) {
    super(message);
    this.name = 'EngineRequestError';
  }
}

/** Connects to the workspace's engine, starting it if none answers. */
export async function connectEngine(options: ConnectOptions): Promise<EngineClient> {
  const client = new Client(options);
  await client.reconnect();
  return client;
}

interface Pending {
  readonly type: RequestType;
  resolve(result: unknown): void;
  reject(e: Error): void;
}
const KEEP_ENDED = 200;

class Client implements EngineClient {
  pid = 0;
  private socket: Socket | undefined;
  private connecting: Promise<void> | undefined;
  private disposed = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly ended = new Map<string, RunEnded>();
  private readonly endWaiters = new Map<string, { resolve(e: RunEnded): void; reject(e: Error): void }[]>();
  // One listener's bug must not starve the others or break the connection.
  private readonly listenerThrew = (e: unknown): void =>
    this.log(`engine listener threw: ${(e as Error).stack ?? String(e)}`);
  private readonly events = new Emitter<EngineEvent>(this.listenerThrew);
  private readonly snapshots = new Emitter<LiveRunRecord[]>(this.listenerThrew);
  private readonly ends = new Emitter<RunEnded>(this.listenerThrew);
  private readonly disconnects = new Emitter<void>(this.listenerThrew);
  /** Runs the engine is running, as of the snapshot and the events since. */
  private readonly active = new Set<string>();
  private latestSnapshot: LiveRunRecord[] | undefined;
  private snapshotWaiter: { resolve(): void; reject(e: Error): void } | undefined;
  private readonly queue: string[] = [];
  private draining = false;
  private readonly log: (line: string) => void;
  private readonly workspace: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly o: ConnectOptions) {
    this.log = o.log ?? (() => {});
    this.workspace = realWorkspace(o.workspace);
    this.env = { ...process.env, ...o.env };
  }

  get connected(): boolean {
    return this.socket !== undefined;
  }

  run(params: RequestParams<'run'>) {
    return this.request('run', params);
  }
  retry(params: RequestParams<'retry'>) {
    return this.request('retry', params);
  }
  budgetDecision(runId: string, decision: BudgetDecision) {
    return this.request('budgetDecision', { runId, decision });
  }
  async cancelRun(runId: string) {
    await this.request('cancelRun', { runId });
  }
  async cancelStep(runId: string, stepId: string) {
    await this.request('cancelStep', { runId, stepId });
  }
  listRuns() {
    return this.request('listRuns', {});
  }
  async shutdown() {
    await this.request('shutdown', {});
  }

  whenEnded(runId: string): Promise<RunEnded> {
    const ended = this.ended.get(runId);
    if (ended) return Promise.resolve(ended);
    if (!this.socket) return Promise.reject(new Error(`not connected to the engine; run ${runId} cannot be followed`));
    if (!this.active.has(runId)) return Promise.reject(new Error(`run ${runId} is not active in the engine`));
    return new Promise((resolve, reject) => {
      const list = this.endWaiters.get(runId) ?? [];
      list.push({ resolve, reject });
      this.endWaiters.set(runId, list);
    });
  }

  onEvent(l: (e: EngineEvent) => void) {
    return this.events.on(l);
  }
  onSnapshot(l: (runs: LiveRunRecord[]) => void) {
    const d = this.snapshots.on(l);
    if (this.latestSnapshot) l(this.latestSnapshot);
    return d;
  }
  onRunEnded(l: (e: RunEnded) => void) {
    return this.ends.on(l);
  }
  onDisconnect(l: () => void) {
    return this.disconnects.on(l);
  }

  reconnect(): Promise<void> {
    if (this.disposed) return Promise.reject(new Error('the engine client is disposed'));
    if (this.socket) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.socket?.destroy();
    for (const e of [this.events, this.snapshots, this.ends, this.disconnects]) e.clear();
  }

  private async connect(): Promise<void> {
    const socket = await openEngineSocket({
      workspace: this.workspace,
      env: this.env,
      cliPath: this.o.cliPath,
      ...(this.o.execPath !== undefined ? { execPath: this.o.execPath } : {}),
      startTimeoutMs: this.o.startTimeoutMs ?? 5000,
      log: this.log,
    });
    if (this.disposed) {
      socket.destroy();
      throw new Error('the engine client is disposed');
    }
    this.attach(socket);
    // Connected means in step: the hello answered and the snapshot of active runs in hand.
    const snapshot = new Promise<void>((resolve, reject) => {
      this.snapshotWaiter = { resolve, reject };
    });
    snapshot.catch(() => {});
    try {
      const hello = await this.send('hello', {
        protocol: PROTOCOL_VERSION,
        client: this.o.clientName ?? `braid client ${process.pid}`,
      });
      this.pid = hello.pid;
      await snapshot;
    } catch (e) {
      socket.destroy();
      throw e;
    }
  }

  private attach(socket: Socket): void {
    this.socket = socket;
    socket.setEncoding('utf8');
    const lines = new LineSplitter(
      (line) => this.enqueue(line),
      () => {
        this.log('engine sent an overlong line; disconnecting');
        socket.destroy();
      },
    );
    socket.on('data', (text: string) => lines.push(text));
    socket.on('error', (e) => this.log(`engine socket: ${e.message}`));
    socket.on('close', () => this.closed(socket));
  }

  private closed(socket: Socket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.queue.length = 0;
    const gone = new Error('the engine connection closed');
    this.snapshotWaiter?.reject(gone);
    this.snapshotWaiter = undefined;
    this.active.clear();
    for (const p of this.pending.values()) p.reject(gone);
    this.pending.clear();
    for (const [runId, waiters] of this.endWaiters) {
      for (const w of waiters) w.reject(new Error(`the engine connection closed before run ${runId} ended`));
    }
    this.endWaiters.clear();
    if (!this.disposed) this.disconnects.fire();
  }

  async request<T extends RequestType>(type: T, params: RequestParams<T>): Promise<ResultOf<T>> {
    await this.reconnect();
    return this.send(type, params);
  }

  private send<T extends RequestType>(type: T, params: RequestParams<T>): Promise<ResultOf<T>> {
    const socket = this.socket;
    if (!socket) return Promise.reject(new Error('not connected to the engine'));
    const id = this.nextId++;
    // Our own messages are checked too: a malformed request is a bug here, better thrown than dropped there.
    const message = exact(clientMessageSchema.parse({ ...params, type, id }));
    return new Promise((resolve, reject) => {
      this.pending.set(id, { type, resolve: resolve, reject });
      socket.write(encodeMessage(message));
    });
  }

  // Messages are handled in order, but after a reply or a snapshot the rest wait for a setImmediate,
  // so the code awaiting it (e.g. `await connectEngine()` then `onEvent(...)`) runs first and misses
  // nothing that follows. (Back-to-back socket reads can arrive before that code has resumed.)
  private enqueue(line: string): void {
    this.queue.push(line);
    if (!this.draining) this.drain();
  }

  private drain(): void {
    this.draining = true;
    while (this.queue.length > 0) {
      if (this.dispatch(this.queue.shift()!)) {
        setImmediate(() => this.drain());
        return;
      }
    }
    this.draining = false;
  }

  private dispatch(line: string): boolean {
    const parsed = parseEngineMessage(line);
    if (!parsed.ok) {
      this.log(`dropped invalid message from the engine: ${parsed.error}`);
      return false;
    }
    const m = parsed.message;
    switch (m.type) {
      case 'reply': {
        const p = this.pending.get(m.id);
        if (!p) {
          this.log(`dropped a reply to unknown request ${m.id}`);
          return false;
        }
        this.pending.delete(m.id);
        if (!m.ok) {
          p.reject(new EngineRequestError(m.error, m.diagnostics ?? []));
          return true;
        }
        const result = parseResult(p.type, m.result);
        if (result.ok) {
          // A retry keeps its run id: the end remembered from the last time is not this one's.
          if (p.type === 'run' || p.type === 'retry') {
            const { runId } = result.message as ResultOf<'run'>;
            this.ended.delete(runId);
            this.active.add(runId);
          }
          p.resolve(result.message);
        } else {
          this.log(`invalid ${p.type} result from the engine: ${result.error}`);
          p.reject(new Error(`the engine sent an invalid ${p.type} result: ${result.error}`));
        }
        return true;
      }
      case 'snapshot': {
        this.active.clear();
        for (const r of m.runs) this.active.add(r.id);
        this.latestSnapshot = m.runs;
        this.snapshotWaiter?.resolve();
        this.snapshotWaiter = undefined;
        this.snapshots.fire(m.runs);
        return true;
      }
      case 'event':
        if (m.event.type === 'run' && m.event.status === 'started') this.active.add(m.event.run);
        this.events.fire(m.event);
        return false;
      case 'runEnded': {
        const ended: RunEnded = { runId: m.runId, status: m.status, steps: m.steps };
        this.active.delete(m.runId);
        this.ended.set(m.runId, ended);
        if (this.ended.size > KEEP_ENDED) this.ended.delete(this.ended.keys().next().value!);
        for (const w of this.endWaiters.get(m.runId) ?? []) w.resolve(ended);
        this.endWaiters.delete(m.runId);
        this.ends.fire(ended);
        return false;
      }
    }
  }
}
