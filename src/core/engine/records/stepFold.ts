// The one fold of a step's state: a step's record and one engine event make the step's next
// record. The run's recorder folds the engine's events with it into run.json, and every live view
// (the extension's runs model, its terminals, the CLI's lines) folds the same events with it, so a
// view shows what run.json will say, by construction. Pure: no clock, no files; an event carries
// its own time (the run's clock), its attempt's usage, and what the isolator kept (worktree, change).
import { joinSource } from '../scheduling/costLedger';
import type { EngineEvent } from '../types';
import type { CostSource } from '../../cost/agentUsage';
import { TERMINAL } from '../../status';
import type { AttemptRecord, StepRecord } from './runRecord';

/** The events that change a step's record: its state (`step`) and a running agent's progress (`agent`). */
export type StepFoldEvent = Extract<EngineEvent, { type: 'step' | 'agent' }>;

/** A step's record before anything happened to it. */
export function pendingStep(id: string): StepRecord {
  return { id, status: 'pending', attempts: [] };
}

/**
 * The open attempt goes on through this state: a best-of step waiting for a pick is in the middle
 * of its attempt (the pick lands it), as a step not yet announced (`pending`) is.
 */
export function continuesAttempt(e: { readonly status: string; readonly reason?: string }): boolean {
  return e.status === 'pending' || (e.status === 'waiting' && e.reason === 'pick');
}

/** The step's next record after `e`; `prev` is left as it was. */
export function foldStep(prev: StepRecord | undefined, e: StepFoldEvent): StepRecord {
  const rec: StepRecord = { ...(prev ?? pendingStep(e.id)), id: e.id, attempts: [...(prev?.attempts ?? [])] };
  if (e.type === 'agent') foldProgress(rec, e);
  else if (e.reused) foldReused(rec, e);
  else if (e.status === 'running') foldRunning(rec, e);
  else foldStopped(rec, e, prev?.status === 'running');
  sumCost(rec);
  sumTokens(rec);
  return rec;
}

/** Whether the record `next` opened an attempt that `prev` did not have (a start, a retry's next). */
export function startedAttempt(prev: StepRecord | undefined, next: StepRecord): boolean {
  return next.attempts.length > (prev?.attempts.length ?? 0);
}

type StepEvent = Extract<EngineEvent, { type: 'step' }>;

function foldRunning(rec: StepRecord, e: StepEvent): void {
  rec.status = 'running';
  // Progress and lock waits come as more `running` events of the same attempt; `attempt` numbers on
  // from the attempts recorded before this run (a retry keeps earlier ones).
  if (rec.attempts.length < e.attempt) {
    // A new attempt: the last one's race and a reuse marker are not its (its event says anew).
    delete rec.alternatives;
    delete rec.winner;
    delete rec.winnerWhy;
    delete rec.reused;
    rec.attempts.push({
      attempt: rec.attempts.length + 1,
      startedAt: e.time,
      // An attempt that answers a conflict is one from its start (reason `conflict`, the files named).
      ...(e.reason === 'conflict'
        ? { reason: 'conflict' as const, ...(e.message !== undefined ? { message: e.message } : {}) }
        : {}),
    });
  }
  rec.startedAt ??= e.time;
  for (const k of ['endedAt', 'exitCode', 'signal', 'reason', 'message', 'retryAt'] as const) delete rec[k];
  // What the last attempt left is not this one's.
  delete rec.worktree;
  delete rec.changes;
  delete rec.revertedAt;
  // A worktree step's merge-back waiting for a lock: noted while it waits.
  setWaiting(rec, e);
  foldAlternatives(rec, e);
}

function foldStopped(rec: StepRecord, e: StepEvent, wasRunning: boolean): void {
  rec.status = e.status;
  const open = rec.attempts.at(-1);
  if (open && open.endedAt === undefined && !continuesAttempt(e)) {
    const at = Date.parse(e.time);
    // A retry delay follows a failed attempt, `review` one that succeeded; a conflict waiting for
    // its answer (`on-conflict`) ended `conflict`.
    const outcome =
      e.status === 'waiting'
        ? e.reason === 'conflict'
          ? 'conflict'
          : 'failed'
        : e.status === 'review'
          ? 'succeeded'
          : e.status;
    const closed: AttemptRecord = {
      ...open,
      ...(outcome === 'succeeded' || outcome === 'failed' || outcome === 'canceled' || outcome === 'conflict'
        ? { status: outcome }
        : {}),
      endedAt: e.time,
      durationMs: at - Date.parse(open.startedAt),
      ...(e.exitCode !== undefined ? { exitCode: e.exitCode } : {}),
      ...(e.signal !== undefined ? { signal: e.signal } : {}),
      ...(e.reason !== undefined ? { reason: e.reason } : {}),
      ...(e.message !== undefined ? { message: e.message } : {}),
      ...(e.usage ?? {}),
    };
    rec.attempts[rec.attempts.length - 1] = closed;
  }
  setWaiting(rec, e);
  if (e.status === 'waiting' && e.retryAt !== undefined) rec.retryAt = e.retryAt;
  else delete rec.retryAt;
  if (e.exitCode !== undefined) rec.exitCode = e.exitCode;
  if (e.signal !== undefined) rec.signal = e.signal;
  if (e.reason !== undefined) rec.reason = e.reason;
  if (e.message !== undefined) rec.message = e.message;
  if (e.usage?.sessionId !== undefined) rec.sessionId = e.usage.sessionId;
  const ended = TERMINAL.has(e.status) || e.status === 'review';
  if (ended) {
    rec.endedAt = e.time;
    if (rec.startedAt) rec.durationMs = Date.parse(e.time) - Date.parse(rec.startedAt);
    // A step's kept worktree and its change (a best-of step's: its winner's).
    if (e.worktree !== undefined) rec.worktree = e.worktree;
    else delete rec.worktree;
    if (e.changes) {
      rec.changes = e.changes;
      // The attempt that just ended made it: it keeps its own, whatever a later attempt does.
      const last = rec.attempts.at(-1);
      if (wasRunning && last) rec.attempts[rec.attempts.length - 1] = { ...last, changes: e.changes };
    }
  }
  foldAlternatives(rec, e);
}

function setWaiting(rec: StepRecord, e: StepEvent): void {
  if (e.waitingFor) rec.waitingFor = { holder: e.waitingFor.holder, paths: [...e.waitingFor.paths] };
  else delete rec.waitingFor;
}

function foldAlternatives(rec: StepRecord, e: StepEvent): void {
  if (e.alternatives) rec.alternatives = e.alternatives.map((a) => ({ ...a }));
  if (e.winner !== undefined) {
    rec.winner = e.winner;
    if (e.winnerWhy !== undefined) rec.winnerWhy = e.winnerWhy;
  } else {
    delete rec.winner;
    delete rec.winnerWhy;
  }
}

/** A need `--only` did not run: it stands as the run that ran it left it (no attempt, no time of its own here). */
function foldReused(rec: StepRecord, e: StepEvent): void {
  rec.status = e.status;
  if (e.reused) rec.reused = { ...e.reused };
  if (e.exitCode !== undefined) rec.exitCode = e.exitCode;
  if (e.message !== undefined) rec.message = e.message;
}

/** A running agent's progress: its session, and the running attempt's usage so far (run.json follows it live). */
function foldProgress(rec: StepRecord, e: Extract<EngineEvent, { type: 'agent' }>): void {
  if (e.sessionId !== undefined) rec.sessionId = e.sessionId;
  const open = rec.attempts.at(-1);
  if (!open || open.endedAt !== undefined || open.attempt !== e.attempt) return; // a late report
  const live: Partial<AttemptRecord> = {};
  if (e.model !== undefined) live.model = e.model;
  if (e.turns !== undefined) live.turns = e.turns;
  if (e.inputTokens !== undefined) live.inputTokens = e.inputTokens;
  if (e.cachedInputTokens !== undefined) live.cachedInputTokens = e.cachedInputTokens;
  if (e.outputTokens !== undefined) live.outputTokens = e.outputTokens;
  if (e.reasoningTokens !== undefined) live.reasoningTokens = e.reasoningTokens;
  if (e.attemptCostUsd !== undefined) {
    live.costUsd = e.attemptCostUsd;
    if (e.attemptCostSource !== undefined) live.costSource = e.attemptCostSource;
  }
  if (e.costUnknown !== undefined) live.costUnknown = e.costUnknown;
  rec.attempts[rec.attempts.length - 1] = { ...open, ...live };
}

/** The step's cost: every attempt's of every run (the running one's so far), and whether reported or estimated. */
function sumCost(rec: StepRecord): void {
  let sum: number | undefined;
  let source: CostSource | undefined;
  for (const a of rec.attempts) {
    if (a.costUsd !== undefined) sum = (sum ?? 0) + a.costUsd;
    source = joinSource(source, a.costSource);
  }
  // A record from before attempts kept their own cost keeps the step's.
  if (sum !== undefined) rec.costUsd = sum;
  if (source !== undefined) rec.costSource = source;
}

const TOKENS = ['inputTokens', 'cachedInputTokens', 'outputTokens', 'reasoningTokens'] as const;

/** The step's tokens: its attempts' added up (absent when no attempt counted any). */
function sumTokens(rec: StepRecord): void {
  for (const k of TOKENS) {
    let sum: number | undefined;
    for (const a of rec.attempts) if (a[k] !== undefined) sum = (sum ?? 0) + a[k];
    if (sum !== undefined) rec[k] = sum;
    else delete rec[k];
  }
}
