// One engine process per workspace, beside the window: connected lazily on the first run (or at
// start when a run is live, to reattach after a reload), its events fed into the runs model and
// the step terminals. The extension host never spawns a step itself.
import * as vscode from 'vscode';
import type { EngineEvent } from '../../core/engine/types';
import { RunStore } from '../../core/engine/records/runStore';
import type { LiveRunRecord, RequestParams, ResultOf, RunEnded } from '../../protocol/engine';
import { connectEngine, type EngineClient } from './engineClient';

/**
 * What the engines feed: the one model of runs (runs/runsModel.ts), handed in by the wiring. Named
 * here as a port so the engine room sits below the rooms that read runs and start them through it.
 */
export interface RunsSink {
  applyRecord(record: LiveRunRecord): unknown;
  enqueue(workspace: string, e: EngineEvent): Promise<void>;
  ensureEnded(workspace: string, runId: string): Promise<void>;
  /** Reads these workspaces' records again (a run no engine runs). */
  loadRecords(workspaces: readonly string[]): Promise<void>;
  get(runId: string): { readonly workspace: string } | undefined;
}

export interface EnginesDeps {
  readonly cliPath: string;
  /** The one model of runs: every event goes into it first. */
  readonly runs: RunsSink;
  /** Each event once the runs model has applied it (terminals and tasks follow raw events). */
  readonly onEvent: (workspace: string, e: EngineEvent) => void;
  /** After each snapshot is applied (every connection): the views adopt runs already going. */
  readonly onSnapshot?: (workspace: string, records: readonly LiveRunRecord[]) => void;
  readonly log: vscode.OutputChannel;
}

export class Engines implements vscode.Disposable {
  private readonly clients = new Map<string, Promise<EngineClient>>();
  private readonly workspaceOfRun = new Map<string, string>();

  constructor(private readonly deps: EnginesDeps) {}

  /** The engine of a workspace, started if needed. */
  client(workspace: string): Promise<EngineClient> {
    let c = this.clients.get(workspace);
    if (!c) {
      c = this.connect(workspace);
      this.clients.set(workspace, c);
      c.catch(() => this.clients.delete(workspace));
    }
    return c;
  }

  private async connect(workspace: string): Promise<EngineClient> {
    const client = await connectEngine({ workspace, cliPath: this.deps.cliPath });
    this.deps.log.appendLine(`engine for ${workspace} connected`);
    client.onSnapshot((records: readonly LiveRunRecord[]) => {
      for (const r of records) {
        this.workspaceOfRun.set(r.id, workspace);
        this.deps.runs.applyRecord(r);
      }
      this.deps.onSnapshot?.(workspace, records);
    });
    client.onEvent((e: EngineEvent) => {
      this.workspaceOfRun.set(e.run, workspace);
      void this.deps.runs.enqueue(workspace, e).then(() => this.deps.onEvent(workspace, e));
    });
    client.onDisconnect(() => {
      this.deps.log.appendLine(`engine for ${workspace} disconnected`);
      this.clients.delete(workspace);
    });
    return client;
  }

  async run(workspace: string, params: RequestParams<'run'>): Promise<string> {
    const { runId } = await (await this.client(workspace)).request('run', params);
    this.workspaceOfRun.set(runId, workspace);
    return runId;
  }

  async retry(workspace: string, params: RequestParams<'retry'>): Promise<string> {
    const { runId } = await (await this.client(workspace)).request('retry', params);
    this.workspaceOfRun.set(runId, workspace);
    return runId;
  }

  /**
   * Resolves when the run ends, across a dropped connection (a reload, a restarted engine): it
   * follows the run on a new connection, or reads the end from the record if it ended meanwhile.
   */
  async whenEnded(runId: string): Promise<RunEnded> {
    const workspace = (): string | undefined => this.workspaceOfRun.get(runId) ?? this.deps.runs.get(runId)?.workspace;
    const settle = (ended: RunEnded): RunEnded => {
      const ws = workspace();
      if (ws) void this.deps.runs.ensureEnded(ws, runId);
      return ended;
    };
    for (let attempt = 0; ; attempt++) {
      try {
        return settle(await (await this.clientOfRun(runId)).whenEnded(runId));
      } catch (err) {
        const ws = workspace();
        const rec = ws ? await new RunStore(ws).load(runId) : undefined;
        if (rec && rec.status !== 'running') {
          return settle({
            runId,
            status: rec.status === 'interrupted' ? 'failed' : rec.status,
            steps: Object.fromEntries(Object.entries(rec.steps).map(([id, s]) => [id, s.status])),
          });
        }
        if (attempt >= 5) throw err;
        await new Promise((res) => setTimeout(res, 200 * (attempt + 1)));
      }
    }
  }

  /** Answers a run held at its budget; false when it was no longer waiting (another window, a timeout). */
  async budgetDecision(runId: string, decision: 'continue' | 'stop'): Promise<boolean> {
    return (await (await this.clientOfRun(runId)).budgetDecision(runId, decision)).accepted;
  }

  async cancelRun(runId: string): Promise<void> {
    await (await this.clientOfRun(runId)).request('cancelRun', { runId });
  }

  async cancelStep(runId: string, stepId: string): Promise<void> {
    await (await this.clientOfRun(runId)).request('cancelStep', { runId, stepId });
  }

  /** Approve, reject, merge again or revert steps of a run (ended or not): each step's outcome. */
  async review(runId: string, params: Omit<RequestParams<'review'>, 'runId'>): Promise<ResultOf<'review'>['results']> {
    return (await (await this.clientOfRun(runId)).request('review', { runId, ...params })).results;
  }

  private clientOfRun(runId: string): Promise<EngineClient> {
    const ws = this.workspaceOfRun.get(runId) ?? this.deps.runs.get(runId)?.workspace;
    if (!ws) throw new Error(`no engine knows run ${runId}`);
    return this.client(ws);
  }

  dispose(): void {
    // The engines keep running: a run survives the window. Only our connections close.
    for (const c of this.clients.values())
      void c.then(
        (client) => client.dispose(),
        () => undefined,
      );
    this.clients.clear();
  }
}
