// What the views show about runs: the records under `.braid/runs` (recent, and after a reload)
// kept current by engine events (live). One model feeds the tree, the lenses, the status bar,
// the terminals and the graph panel; it changes only on events, never by polling.
import * as vscode from 'vscode';
import { RunStore, type RunRecord } from '../core/engine/records/runStore';
import { TERMINAL, type AlternativeSummary, type EngineEvent, type RunStatus, type StepStatus } from '../core/engine/types';

export interface StepView {
  readonly id: string;
  readonly name: string;
  status: StepStatus;
  attempt: number;
  startedAt?: number;
  endedAt?: number;
  durationMs?: number;
  exitCode?: number | null;
  reason?: string;
  message?: string;
  waitingFor?: { readonly holder: string; readonly paths: readonly string[] };
  lastLine?: string;
  worktree?: string;
  /** What its agent reported: cost so far in this run, and the session it can resume. */
  costUsd?: number;
  sessionId?: string;
  /** Waiting out a retry delay or a rate limit until then (ms since epoch). */
  retryAt?: number;
  /** A best-of step's alternatives once it ended, and the one that landed. */
  alternatives?: readonly AlternativeSummary[];
  winner?: number;
}

export interface RunView {
  readonly id: string;
  readonly workspace: string;
  readonly planFile: string;
  readonly planName: string;
  status: RunStatus;
  readonly createdAt: number;
  endedAt?: number;
  readonly order: readonly string[];
  readonly steps: Map<string, StepView>;
  /** The run's agents' spending so far, when any reported a cost. */
  costUsd?: number;
  /** Set while the run is held at its budget, until a decision. */
  budget?: { readonly spentUsd: number; readonly budgetUsd: number };
}

export function isActive(run: RunView): boolean {
  return run.status === 'running';
}

const RECENT = 20;
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07/g;

/** The last non-blank line of an output chunk, without colours, short enough for a tree row. */
export function lastLineOf(text: string): string | undefined {
  const lines = text.replace(ANSI, '').split(/\r?\n|\r/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line) return line.length > 120 ? `${line.slice(0, 119)}…` : line;
  }
  return undefined;
}

export function viewOf(record: RunRecord): RunView {
  const names = new Map(record.graph.steps.map((s) => [s.id, s.name] as const));
  const order = record.graph.steps.map((s) => s.id);
  const steps = new Map<string, StepView>();
  for (const id of order) {
    const r = record.steps[id];
    const started = r?.startedAt ? Date.parse(r.startedAt) : undefined;
    const ended = r?.endedAt ? Date.parse(r.endedAt) : undefined;
    steps.set(id, {
      id, name: names.get(id) ?? id, status: r?.status ?? 'pending', attempt: r?.attempts.length ?? 0,
      ...(started !== undefined ? { startedAt: started } : {}),
      ...(ended !== undefined ? { endedAt: ended } : {}),
      ...(r?.durationMs !== undefined ? { durationMs: r.durationMs } : {}),
      ...(r?.exitCode !== undefined ? { exitCode: r.exitCode } : {}),
      ...(r?.reason ? { reason: r.reason } : {}),
      ...(r?.message ? { message: r.message } : {}),
      ...(r?.waitingFor ? { waitingFor: r.waitingFor } : {}),
      ...(r?.worktree ? { worktree: r.worktree } : {}),
      ...(r?.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
      ...(r?.sessionId ? { sessionId: r.sessionId } : {}),
      ...(r?.alternatives ? { alternatives: r.alternatives } : {}),
      ...(r?.winner !== undefined ? { winner: r.winner } : {}),
    });
  }
  const costs = [...steps.values()].map((s) => s.costUsd).filter((c): c is number => c !== undefined);
  return {
    id: record.id, workspace: record.workspace, planFile: record.planFile, planName: record.planName,
    status: record.status, createdAt: Date.parse(record.createdAt),
    ...(record.endedAt ? { endedAt: Date.parse(record.endedAt) } : {}), order, steps,
    ...(costs.length > 0 ? { costUsd: costs.reduce((a, b) => a + b, 0) } : {}),
  };
}

type StepEvent = Exclude<EngineEvent, { type: 'run' } | { type: 'budget' }>;

/** What one step event changes in a step's view. */
export function applyStepEvent(step: StepView, e: StepEvent, at: number): void {
  switch (e.type) {
    case 'step':
      step.status = e.status;
      step.attempt = Math.max(step.attempt, e.attempt);
      if (e.status === 'running') { step.startedAt = at; delete step.endedAt; delete step.durationMs; delete step.reason; delete step.lastLine; }
      if (e.status !== 'waiting') { delete step.waitingFor; delete step.retryAt; }
      if (e.retryAt) step.retryAt = Date.parse(e.retryAt);
      if (e.reason) step.reason = e.reason;
      if (e.costUsd !== undefined) step.costUsd = e.costUsd;
      if (e.alternatives) step.alternatives = e.alternatives;
      if (e.winner !== undefined) step.winner = e.winner;
      if (TERMINAL.has(e.status)) {
        step.endedAt = at;
        if (step.startedAt !== undefined) step.durationMs = at - step.startedAt;
        if (e.exitCode !== undefined) step.exitCode = e.exitCode;
      }
      return;
    case 'lock':
      step.status = 'waiting';
      step.waitingFor = { holder: e.waitingFor, paths: e.paths };
      return;
    case 'agent':
      if (e.sessionId) step.sessionId = e.sessionId;
      if (e.costUsd !== undefined) step.costUsd = e.costUsd;
      if (e.activity) step.lastLine = lastLineOf(e.activity) ?? step.lastLine;
      return;
    case 'output': {
      const line = lastLineOf(e.text);
      if (line) step.lastLine = line;
    }
  }
}

export class RunsModel implements vscode.Disposable {
  private readonly byId = new Map<string, RunView>();
  private readonly loading = new Map<string, Promise<RunView | undefined>>();
  private readonly changed = new vscode.EventEmitter<RunView | undefined>();
  /** Fires with the run that changed (undefined: the whole list). */
  readonly onDidChange = this.changed.event;

  /** Runs, active first, then most recent first. */
  runs(): RunView[] {
    return [...this.byId.values()].sort((a, b) => Number(isActive(b)) - Number(isActive(a)) || b.createdAt - a.createdAt);
  }

  get(runId: string): RunView | undefined {
    return this.byId.get(runId);
  }

  /** The latest run of a plan file, for its code lenses. */
  latestOf(planFile: string): RunView | undefined {
    let best: RunView | undefined;
    for (const r of this.byId.values()) if (r.planFile === planFile && (!best || r.createdAt > best.createdAt)) best = r;
    return best;
  }

  /** Reads the recent runs of these workspaces from their records (start, reload). */
  async loadRecords(workspaces: readonly string[]): Promise<void> {
    for (const ws of workspaces) {
      const store = new RunStore(ws);
      const recent = (await store.list()).slice(0, RECENT);
      for (const s of recent) {
        if (this.byId.get(s.id) && isActive(this.byId.get(s.id)!)) continue; // live events know better
        const rec = await store.load(s.id);
        if (rec) this.byId.set(rec.id, viewOf(rec));
      }
    }
    this.changed.fire(undefined);
  }

  /** A record as the engine reports it (snapshot after a reload, or a run's start). */
  applyRecord(record: RunRecord & { pendingBudget?: { spentUsd: number; budgetUsd: number } }): RunView {
    const view = viewOf(record);
    if (record.pendingBudget) { view.budget = record.pendingBudget; view.costUsd = record.pendingBudget.spentUsd; }
    this.byId.set(view.id, view);
    this.changed.fire(view);
    return view;
  }

  private tail: Promise<void> = Promise.resolve();

  /** Queues one engine event; events apply one at a time, in the order they came. */
  enqueue(workspace: string, e: EngineEvent): Promise<void> {
    this.tail = this.tail.then(() => this.apply(workspace, e)).catch((err: Error) => console.error(`braid: event ${e.type} of ${e.run}: ${err.message}`));
    return this.tail;
  }

  /** Resolves once every event queued so far has been applied. */
  settled(): Promise<void> {
    return this.tail;
  }

  /** Applies one engine event; a run it does not know yet is read from its record first. */
  private async apply(workspace: string, e: EngineEvent): Promise<void> {
    const run = this.byId.get(e.run) ?? (await this.load(workspace, e.run));
    if (!run) { console.warn(`braid: dropped a ${e.type} event of run ${e.run}: no record of it in ${workspace}`); return; }
    const at = Date.parse(e.time);
    switch (e.type) {
      case 'run':
        if (e.costUsd !== undefined) run.costUsd = e.costUsd;
        if (e.status === 'started') { run.status = 'running'; break; }
        run.status = e.status;
        run.endedAt = at;
        delete run.budget;
        // Durations, worktrees and reasons as recorded; the end event can come before the record's
        // last write lands, so a record that still says `running` is read again shortly.
        void this.readEnded(workspace, e.run, e.costUsd);
        break;
      case 'budget':
        if (e.decision) delete run.budget;
        else run.budget = { spentUsd: e.spentUsd, budgetUsd: e.budgetUsd };
        run.costUsd = e.spentUsd;
        break;
      default: {
        const step = run.steps.get(e.id);
        if (!step) return;
        applyStepEvent(step, e, at);
        if (e.type === 'agent' && e.runCostUsd !== undefined) run.costUsd = e.runCostUsd;
      }
    }
    this.changed.fire(run);
  }

  /**
   * The run ended (its end came from the engine, or from its record after a dropped connection):
   * once the queued events are applied, a view that still shows it going missed its last events,
   * and is read from the record instead, so no finished run stays "running" in the views.
   */
  async ensureEnded(workspace: string, runId: string): Promise<void> {
    await this.settled();
    const live = this.byId.get(runId);
    if (!live || !isActive(live)) return;
    await this.showEndedRecord(workspace, runId, live.costUsd, () => this.byId.get(runId) === live && isActive(live));
  }

  private readEnded(workspace: string, runId: string, costUsd: number | undefined): Promise<void> {
    // A retry started meanwhile: its events lead.
    return this.showEndedRecord(workspace, runId, costUsd, () => this.byId.get(runId)?.status !== 'running');
  }

  /**
   * Shows the run as its record has it once the record says it ended; the end can be announced
   * before the record's last write lands, so it is read a few times. Stops when `wanted()` no longer holds.
   */
  private async showEndedRecord(workspace: string, runId: string, costUsd: number | undefined, wanted: () => boolean): Promise<void> {
    for (let i = 0; i < 20; i++) {
      const rec = await new RunStore(workspace).load(runId);
      if (!wanted()) return;
      if (rec && rec.status !== 'running') {
        const view = this.applyRecord(rec);
        view.costUsd ??= costUsd;
        return;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  private load(workspace: string, runId: string): Promise<RunView | undefined> {
    let p = this.loading.get(runId);
    if (!p) {
      p = new RunStore(workspace).load(runId).then((rec) => (rec ? this.applyRecord(rec) : undefined));
      this.loading.set(runId, p);
      void p.finally(() => this.loading.delete(runId));
    }
    return p;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
