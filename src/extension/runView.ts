// The views' model of a run, and the two ways it changes: made from a run's record (recent runs,
// a reload, a snapshot, a run's end) and folded forward by the engine's events (live). Both carry
// the record's own fields, so a view shows the same thing live and after a reload. Pure: no
// `vscode`, tested in plain mocha.
import type { AlternativeSummary, CostSource, EngineEvent } from '../core/engine/types';
import type { RunRecord } from '../core/engine/records/runRecord';
import { timeFactsOf } from '../core/engine/records/timeFacts';
import { TERMINAL, type ReasonCode, type RunStatus, type StepStatus } from '../core/status';

export interface StepView {
  readonly id: string;
  readonly name: string;
  /** The steps it needs, as the run's graph has them. */
  readonly needs?: readonly string[];
  status: StepStatus;
  attempt: number;
  /** Its first start and its end (wall time); format.ts's `stepTimeText` reads these with the two below. */
  startedAt?: number;
  endedAt?: number;
  /** Time spent in its attempts that ended, and the running attempt's start: time spent running. */
  ranMs?: number;
  attemptStartedAt?: number;
  /** A need `--only` did not run: the run that ran it, and the time it spent running there. */
  reused?: { readonly run: string; readonly endedAt?: string; readonly durationMs?: number };
  exitCode?: number | null;
  signal?: string | null;
  /** The record's code (`exit`, `timeout`, …) and sentence; status.ts's `endSentence` reads them. */
  reason?: ReasonCode;
  message?: string;
  /** While it waits for a lock: a `waiting` step before it starts, or a `running` worktree step before its merge-back. */
  waitingFor?: { readonly holder: string; readonly paths: readonly string[] };
  /** The running attempt's last line of output or agent activity. */
  lastLine?: string;
  /** A running agent's last readable line (its words or a tool call). */
  activity?: string;
  worktree?: string;
  /** What its agent spent so far in this run (reported, or estimated from its tokens), and the session it can resume. */
  costUsd?: number;
  costSource?: CostSource;
  sessionId?: string;
  /** Waiting out a retry delay or a rate limit until then (ms since epoch). */
  retryAt?: number;
  /** A best-of step's alternatives as they race and once it ended, and the one that landed. */
  alternatives?: readonly AlternativeSummary[];
  winner?: number;
  /** Why the winner won: `first to pass`, `score 0.93`, `picked`. */
  winnerWhy?: string;
  /** When `braid revert` (Revert Change) took its landed change back out: the views say `reverted`. */
  revertedAt?: string;
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
  /** The run's agents' spending so far, when any said, reported or estimated. */
  costUsd?: number;
  costSource?: CostSource;
  /** Set while the run is held at its budget (or a pool's: `pool`), until a decision. */
  budget?: { readonly spentUsd: number; readonly budgetUsd: number; readonly pool?: string };
}

export function isActive(run: RunView): boolean {
  return run.status === 'running';
}

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

/** A run's record as the views' model. */
export function viewOf(record: RunRecord): RunView {
  const names = new Map(record.graph.steps.map((s) => [s.id, s.name] as const));
  const needs = new Map(record.graph.steps.map((s) => [s.id, s.needs] as const));
  const order = record.graph.steps.map((s) => s.id);
  const steps = new Map<string, StepView>();
  for (const id of order) {
    const r = record.steps[id];
    const { status: _s, ...times } = r ? timeFactsOf(r) : { status: 'pending' };
    steps.set(id, {
      id,
      name: names.get(id) ?? id,
      ...(needs.get(id)?.length ? { needs: needs.get(id) } : {}),
      status: r?.status ?? 'pending',
      attempt: r?.attempts.length ?? 0,
      ...times,
      ...(r?.reused ? { reused: r.reused } : {}),
      ...(r?.exitCode !== undefined ? { exitCode: r.exitCode } : {}),
      ...(r?.signal !== undefined ? { signal: r.signal } : {}),
      ...(r?.reason ? { reason: r.reason } : {}),
      ...(r?.message ? { message: r.message } : {}),
      ...(r?.waitingFor ? { waitingFor: r.waitingFor } : {}),
      ...(r?.worktree ? { worktree: r.worktree } : {}),
      ...(r?.revertedAt ? { revertedAt: r.revertedAt } : {}),
      ...(r?.costUsd !== undefined
        ? { costUsd: r.costUsd, ...(r.costSource ? { costSource: r.costSource } : {}) }
        : {}),
      ...(r?.sessionId ? { sessionId: r.sessionId } : {}),
      ...(r?.retryAt ? { retryAt: Date.parse(r.retryAt) } : {}),
      ...(r?.alternatives ? { alternatives: r.alternatives } : {}),
      ...(r?.winner !== undefined ? { winner: r.winner } : {}),
      ...(r?.winnerWhy !== undefined ? { winnerWhy: r.winnerWhy } : {}),
    });
  }
  const costs = [...steps.values()].map((s) => s.costUsd).filter((c): c is number => c !== undefined);
  return {
    id: record.id,
    workspace: record.workspace,
    planFile: record.planFile,
    planName: record.planName,
    status: record.status,
    createdAt: Date.parse(record.createdAt),
    ...(record.endedAt ? { endedAt: Date.parse(record.endedAt) } : {}),
    order,
    steps,
    ...(costs.length > 0
      ? { costUsd: costs.reduce((a, b) => a + b, 0), ...(record.costSource ? { costSource: record.costSource } : {}) }
      : {}),
  };
}

/** The events about one step. */
export type StepEvent = Extract<EngineEvent, { type: 'step' | 'agent' | 'output' | 'lock' }>;

/**
 * What one step event changes in a step's view. A `step` event carries the step's record fields
 * as they are now: absent means cleared. `lock` events change nothing here (the `step` event
 * before each one carries `waitingFor`); they are for the CLI's lines.
 */
export function applyStepEvent(step: StepView, e: StepEvent, at: number): void {
  switch (e.type) {
    case 'step': {
      // A new attempt, not another report of the running one (a merge-back's lock wait and grant,
      // a best-of step going on to land once picked).
      const resumes = step.status === 'running' || (step.status === 'waiting' && step.reason === 'pick');
      const starts = e.status === 'running' && (!resumes || e.attempt !== step.attempt);
      // The running attempt ended (a retry's next one, a wait, review, the end): its time is spent.
      // Waiting for a pick is the middle of the attempt, as the record has it (runRecorder.ts).
      const pauses = e.status === 'waiting' && e.reason === 'pick';
      if (
        step.status === 'running' &&
        (starts || (e.status !== 'running' && !pauses)) &&
        step.attemptStartedAt !== undefined
      ) {
        step.ranMs = (step.ranMs ?? 0) + Math.max(0, at - step.attemptStartedAt);
        delete step.attemptStartedAt;
      }
      step.status = e.status;
      step.attempt = Math.max(step.attempt, e.attempt);
      if (starts) {
        step.startedAt ??= at;
        step.attemptStartedAt = at;
        delete step.endedAt;
        delete step.lastLine;
        delete step.activity;
        delete step.alternatives;
        delete step.winner;
        delete step.winnerWhy;
        delete step.reused;
      }
      set(step, 'exitCode', e.exitCode);
      set(step, 'signal', e.signal);
      set(step, 'reason', e.reason);
      set(step, 'message', e.message);
      set(step, 'waitingFor', e.waitingFor);
      set(step, 'retryAt', e.retryAt !== undefined ? Date.parse(e.retryAt) : undefined);
      if (e.costUsd !== undefined) {
        step.costUsd = e.costUsd;
        set(step, 'costSource', e.costSource);
      }
      // A best-of step's events carry its alternatives on every change of its race (stepEvents.ts).
      if (e.alternatives) step.alternatives = e.alternatives;
      if (e.winner !== undefined) step.winner = e.winner;
      if (e.winnerWhy !== undefined) step.winnerWhy = e.winnerWhy;
      if (e.reused) {
        // Not run here: the time it spent running where it ran.
        step.reused = e.reused;
        if (e.reused.durationMs !== undefined) step.ranMs = e.reused.durationMs;
      }
      if (TERMINAL.has(e.status)) {
        step.endedAt = at;
        delete step.activity;
      }
      return;
    }
    case 'lock':
      return;
    case 'agent':
      if (e.sessionId) step.sessionId = e.sessionId;
      if (e.costUsd !== undefined) {
        step.costUsd = e.costUsd;
        set(step, 'costSource', e.costSource);
      }
      if (e.activity) {
        step.activity = e.activity;
        step.lastLine = lastLineOf(e.activity) ?? step.lastLine;
      }
      return;
    case 'output': {
      const line = lastLineOf(e.text);
      if (line) step.lastLine = line;
    }
  }
}

function set<K extends keyof StepView>(step: StepView, key: K, value: StepView[K] | undefined): void {
  if (value === undefined) delete step[key];
  else step[key] = value;
}
