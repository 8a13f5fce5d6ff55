// What the views show about runs: the records under `.braid/runs` (recent, and after a reload)
// kept current by engine events (live). The one model the tree, the lenses, the status bar, the
// terminals and the graph panel project; it changes only on events, never by polling. No
// `vscode` at run time: it is tested in plain mocha.
import { joinSource } from '../../core/engine/scheduling/costLedger';
import type * as vscode from 'vscode';
import { Emitter } from '../../core/emitter';
import { RunStore } from '../../core/engine/records/runStore';
import type { RunRecord } from '../../core/engine/records/runRecord';
import type { EngineEvent } from '../../core/engine/types';
import { applyStepEvent, isActive, viewOf, type RunView, type StepEvent, type StepView } from './runView';

/** One step changed by one event: the model has applied `event` already. */
export interface StepChange {
  readonly run: RunView;
  readonly step: StepView;
  readonly event: StepEvent;
}

const RECENT = 20;

export class RunsModel implements vscode.Disposable {
  private readonly byId = new Map<string, RunView>();
  private readonly loading = new Map<string, Promise<RunView | undefined>>();
  private readonly changed = new Emitter<RunView | undefined>();
  private readonly stepChanged = new Emitter<StepChange>();
  private readonly replaced = new Emitter<RunView>();
  private readonly started = new Emitter<RunView>();
  /** Fires with the run that changed (undefined: the whole list), after every change. */
  readonly onDidChange = this.changed.on;
  /** Fires with each step an event changed, before `onDidChange` (the graph panel restyles one node). */
  readonly onDidChangeStep = this.stepChanged.on;
  /** Fires when a run's view was made anew from its record (a snapshot, its start, its end): any step may have changed. */
  readonly onDidReplace = this.replaced.on;
  /** Fires when a run starts (a new run, or a retry of one). */
  readonly onDidStart = this.started.on;

  /** Runs, active first, then most recent first. */
  runs(): RunView[] {
    return [...this.byId.values()].sort(
      (a, b) => Number(isActive(b)) - Number(isActive(a)) || b.createdAt - a.createdAt,
    );
  }

  get(runId: string): RunView | undefined {
    return this.byId.get(runId);
  }

  /** The latest run of a plan file, for its code lenses. */
  latestOf(planFile: string): RunView | undefined {
    let best: RunView | undefined;
    for (const r of this.byId.values())
      if (r.planFile === planFile && (!best || r.createdAt > best.createdAt)) best = r;
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

  /** A record as the engine reports it (snapshot after a reload, or a run's start) or as saved (its end). */
  applyRecord(record: RunRecord & { pendingBudget?: { spentUsd: number; budgetUsd: number } }): RunView {
    const view = viewOf(record);
    if (record.pendingBudget) {
      view.budget = record.pendingBudget;
      view.costUsd = record.pendingBudget.spentUsd;
    }
    this.byId.set(view.id, view);
    this.replaced.fire(view);
    this.changed.fire(view);
    return view;
  }

  private tail: Promise<void> = Promise.resolve();

  /** Queues one engine event; events apply one at a time, in the order they came. */
  enqueue(workspace: string, e: EngineEvent): Promise<void> {
    this.tail = this.tail
      .then(() => this.apply(workspace, e))
      .catch((err: Error) => console.error(`braid: event ${e.type} of ${e.run}: ${err.message}`));
    return this.tail;
  }

  /** Resolves once every event queued so far has been applied. */
  settled(): Promise<void> {
    return this.tail;
  }

  /** Applies one engine event; a run it does not know yet is read from its record first. */
  private async apply(workspace: string, e: EngineEvent): Promise<void> {
    const run = this.byId.get(e.run) ?? (await this.load(workspace, e.run));
    if (!run) {
      console.warn(`braid: dropped a ${e.type} event of run ${e.run}: no record of it in ${workspace}`);
      return;
    }
    const at = Date.parse(e.time);
    switch (e.type) {
      case 'run':
        if (e.costUsd !== undefined) {
          run.costUsd = e.costUsd;
          if (e.costSource !== undefined) run.costSource = e.costSource;
        }
        if (e.status === 'started') {
          run.status = 'running';
          this.started.fire(run);
          break;
        }
        run.status = e.status;
        run.endedAt = at;
        delete run.budget;
        // The record is saved before the run's end is announced: durations, worktrees and reasons
        // as recorded, read once (events queued behind this one wait for it).
        if (await this.showEndedRecord(workspace, e.run, e.costUsd, () => this.byId.get(e.run) === run)) return;
        break;
      case 'budget':
        if (e.decision) delete run.budget;
        else
          run.budget = {
            spentUsd: e.spentUsd,
            budgetUsd: e.budgetUsd,
            ...(e.pool !== undefined ? { pool: e.pool } : {}),
          };
        // A pool's spending is not the run's.
        if (e.pool === undefined) run.costUsd = e.spentUsd;
        break;
      default: {
        const step = run.steps.get(e.id);
        if (!step) return;
        applyStepEvent(step, e);
        if (e.type === 'agent' && e.runCostUsd !== undefined) {
          run.costUsd = e.runCostUsd;
          const source = joinSource(run.costSource, e.costSource);
          if (source !== undefined) run.costSource = source;
        }
        this.stepChanged.fire({ run, step, event: e });
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

  /** Shows the run as its record has it, if the record says it ended and `wanted()` still holds once read; true when shown. */
  private async showEndedRecord(
    workspace: string,
    runId: string,
    costUsd: number | undefined,
    wanted: () => boolean,
  ): Promise<boolean> {
    const rec = await new RunStore(workspace).load(runId);
    if (!wanted() || !rec || rec.status === 'running') return false;
    const view = viewOf(rec);
    if (costUsd !== undefined) view.costUsd ??= costUsd;
    this.byId.set(view.id, view);
    this.replaced.fire(view);
    this.changed.fire(view);
    return true;
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
    for (const e of [this.changed, this.stepChanged, this.replaced, this.started]) e.clear();
  }
}
