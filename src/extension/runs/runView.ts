// The views' model of a run, and the two ways it changes: made from a run's record (recent runs,
// a reload, a snapshot, a run's end) and folded forward by the engine's events (live). A step's
// view is its record projected (`stepFieldsOf`), and live its record is folded by the recorder's
// own fold (core stepFold.ts), so a view shows the same thing live and after a reload by
// construction. Pure: no `vscode`, tested in plain mocha.
import type { AlternativeSummary, EngineEvent } from '../../core/engine/types';
import type { CostSource } from '../../core/cost/agentUsage';
import type { RunRecord, StepRecord } from '../../core/engine/records/runRecord';
import { foldStep, pendingStep, startedAttempt } from '../../core/engine/records/stepFold';
import { timeFactsOf } from '../../core/engine/records/timeFacts';
import { TERMINAL, type ReasonCode, type RunStatus, type StepStatus } from '../../core/status';

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
  /** The step's record as run.json has it (or will): what the fields above are projected from (absent: a pending step). */
  record?: StepRecord;
}

/** The fields of a step's view that its record says (everything but its name, its needs and its live last line). */
type RecordFields = Omit<StepView, 'id' | 'name' | 'needs' | 'lastLine' | 'activity' | 'record'>;

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
    const r = record.steps[id] ?? pendingStep(id);
    steps.set(id, {
      id,
      name: names.get(id) ?? id,
      ...(needs.get(id)?.length ? { needs: needs.get(id)! } : {}),
      ...stepFieldsOf(r),
      record: r,
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

/** What a step's record says, as its view's fields. */
export function stepFieldsOf(r: StepRecord): RecordFields {
  const { status: _s, ...times } = timeFactsOf(r);
  // A running attempt that answers a conflict says so on the attempt (the step's own reason is
  // its last end's): the view shows it as the step's, as the tree and graph say "resolving".
  const last = r.status === 'running' ? r.attempts.at(-1) : undefined;
  const answering = last?.endedAt === undefined && last?.reason === 'conflict' ? last : undefined;
  return {
    status: r.status,
    attempt: r.attempts.length,
    ...times,
    ...(r.reused ? { reused: r.reused } : {}),
    ...(r.exitCode !== undefined ? { exitCode: r.exitCode } : {}),
    ...(r.signal !== undefined ? { signal: r.signal } : {}),
    ...(r.reason ? { reason: r.reason } : answering ? { reason: answering.reason } : {}),
    ...(r.message ? { message: r.message } : answering?.message ? { message: answering.message } : {}),
    ...(r.waitingFor ? { waitingFor: r.waitingFor } : {}),
    ...(r.worktree ? { worktree: r.worktree } : {}),
    ...(r.revertedAt ? { revertedAt: r.revertedAt } : {}),
    ...(r.costUsd !== undefined ? { costUsd: r.costUsd, ...(r.costSource ? { costSource: r.costSource } : {}) } : {}),
    ...(r.sessionId ? { sessionId: r.sessionId } : {}),
    ...(r.retryAt ? { retryAt: Date.parse(r.retryAt) } : {}),
    ...(r.alternatives ? { alternatives: r.alternatives } : {}),
    ...(r.winner !== undefined ? { winner: r.winner } : {}),
    ...(r.winnerWhy !== undefined ? { winnerWhy: r.winnerWhy } : {}),
  };
}

/** The events about one step. */
export type StepEvent = Extract<EngineEvent, { type: 'step' | 'agent' | 'output' | 'lock' }>;

/**
 * What one step event changes in a step's view: `step` and `agent` events fold its record with
 * the recorder's fold, and the view is that record projected; output and agent activity are the
 * live last line. `lock` events change nothing here (the `step` event before each one carries
 * `waitingFor`); they are for the CLI's lines.
 */
export function applyStepEvent(step: StepView, e: StepEvent): void {
  if (e.type === 'lock') return;
  if (e.type === 'output') {
    const line = lastLineOf(e.text);
    if (line) step.lastLine = line;
    return;
  }
  const prev = step.record;
  const next = foldStep(prev, e);
  step.record = next;
  const fields = stepFieldsOf(next) as Record<string, unknown>;
  const view = step as unknown as Record<string, unknown>;
  for (const k of RECORD_KEYS) {
    if (fields[k] === undefined) delete view[k];
    else view[k] = fields[k];
  }
  if (startedAttempt(prev, next) || TERMINAL.has(next.status)) delete step.activity;
  if (startedAttempt(prev, next)) delete step.lastLine;
  if (e.type === 'agent' && e.activity) {
    step.activity = e.activity;
    const line = lastLineOf(e.activity);
    if (line !== undefined) step.lastLine = line;
  }
}

/** Every field `stepFieldsOf` may set: absent from a record means cleared in the view. */
const RECORD_KEYS: readonly (keyof RecordFields)[] = [
  'status',
  'attempt',
  'startedAt',
  'endedAt',
  'ranMs',
  'attemptStartedAt',
  'reused',
  'exitCode',
  'signal',
  'reason',
  'message',
  'waitingFor',
  'worktree',
  'costUsd',
  'costSource',
  'sessionId',
  'retryAt',
  'alternatives',
  'winner',
  'winnerWhy',
  'revertedAt',
];
