// Keeps a run's record current at every state change of a step, for the run store to save. A
// change costs O(that step's attempts) whatever the size of the plan; the run's cost is re-summed
// only when a step's cost changed, and only over the steps that have one (agent steps).
import { alternativeId } from '../../plan/alternativeStep';
import type { StepState } from '../scheduling/stepState';
import type { RunRecord, StepRecord } from './runRecord';
import { joinSource } from '../scheduling/costLedger';
import { attemptUsage } from '../scheduling/stepEvents';
import type { CostSource } from '../../cost/agentUsage';
import { TERMINAL } from '../../status';
import type { ChangeRecord } from './changeRecord';

export class RunRecorder {
  private readonly costs = new Map<string, number>();
  private readonly sources = new Map<string, CostSource>();

  /**
   * `before`: how many attempts each step's record held when this run began (a retry keeps earlier
   * ones); `keptWorktree`: the worktree a step's last attempt left for the user, if any.
   */
  constructor(
    private readonly record: RunRecord,
    private readonly save: (record: RunRecord) => void,
    private readonly before: ReadonlyMap<string, number>,
    private readonly keptWorktree: (stepId: string) => string | undefined,
    /** The change the step's last attempt committed, if it made one. */
    private readonly changeOf: (stepId: string) => ChangeRecord | undefined = () => undefined,
  ) {
    for (const s of Object.values(record.steps)) {
      if (s.costUsd !== undefined) this.costs.set(s.id, s.costUsd);
      if (s.costSource !== undefined) this.sources.set(s.id, s.costSource);
    }
    if (this.costs.size > 0) {
      record.costUsd = this.total();
      this.setSource();
    } else {
      delete record.costUsd;
      delete record.costSource;
    }
  }

  /** The scheduler's onState. */
  onState(st: Readonly<StepState>): void {
    const prev = this.record.steps[st.id];
    const rec = toRecord(prev, st, this.before.get(st.id) ?? 0);
    if (st.status === 'running') {
      delete rec.worktree;
      delete rec.changes;
      delete rec.revertedAt;
    } else if (TERMINAL.has(st.status) || st.status === 'review') {
      // A best-of step's winner waiting in `review` (or conflicted) keeps its tree as the step's.
      const winner = st.winner && st.status !== 'succeeded' ? alternativeId(st.id, st.winner.index) : undefined;
      const kept = this.keptWorktree(st.id) ?? (winner !== undefined ? this.keptWorktree(winner) : undefined);
      if (kept !== undefined) rec.worktree = kept;
      else delete rec.worktree;
      // A best-of step's change is its winner's (the alternative that landed, or whose landing conflicted).
      const change =
        this.changeOf(st.id) ?? (st.winner ? this.changeOf(alternativeId(st.id, st.winner.index)) : undefined);
      if (change) {
        rec.changes = change;
        // The attempt that just ended made it: it keeps its own, whatever a later attempt does.
        const last = rec.attempts[rec.attempts.length - 1];
        if (prev?.status === 'running' && last) last.changes = change;
      }
    }
    if (st.alternatives) {
      rec.alternatives = st.alternatives.map((a) => {
        const id = alternativeId(st.id, a.index);
        const kept = TERMINAL.has(st.status) ? this.keptWorktree(id) : undefined;
        const changes = this.changeOf(id);
        return { ...a, ...(kept !== undefined ? { worktree: kept } : {}), ...(changes ? { changes } : {}) };
      });
    }
    if (st.winner) {
      rec.winner = st.winner.index;
      rec.winnerWhy = st.winner.why;
    } else {
      delete rec.winner;
      delete rec.winnerWhy;
    }
    this.record.steps[st.id] = rec;
    if (rec.costUsd !== prev?.costUsd || rec.costSource !== prev?.costSource) {
      if (rec.costUsd !== undefined) this.costs.set(st.id, rec.costUsd);
      else this.costs.delete(st.id);
      if (rec.costSource !== undefined) this.sources.set(st.id, rec.costSource);
      else this.sources.delete(st.id);
      if (this.costs.size > 0) {
        this.record.costUsd = this.total();
        this.setSource();
      }
    }
    this.save(this.record);
  }

  private setSource(): void {
    let s: CostSource | undefined;
    for (const v of this.sources.values()) s = joinSource(s, v);
    if (s !== undefined) this.record.costSource = s;
    else delete this.record.costSource;
  }

  // A sum, not a running total: adding and taking back floats would drift from what a reader adds up.
  private total(): number {
    let t = 0;
    for (const v of this.costs.values()) t += v;
    return t;
  }
}

/**
 * Folds a scheduler state change into the step's record, opening and closing attempts; `before`
 * is how many attempts the record held when this run began (a retry keeps earlier ones).
 */
export function toRecord(prev: StepRecord | undefined, st: Readonly<StepState>, before: number): StepRecord {
  const rec: StepRecord = {
    ...(prev ?? { id: st.id, attempts: [] }),
    id: st.id,
    status: st.status,
    attempts: [...(prev?.attempts ?? [])],
  };
  const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
  // Cost: earlier runs' attempts, plus this run's (the running attempt's so far included).
  const earlier = rec.attempts
    .slice(0, before)
    .reduce<number | undefined>((sum, a) => (a.costUsd !== undefined ? (sum ?? 0) + a.costUsd : sum), undefined);
  if (st.costUsd !== undefined || earlier !== undefined) rec.costUsd = (earlier ?? 0) + (st.costUsd ?? 0);
  const earlierSource = rec.attempts
    .slice(0, before)
    .reduce<CostSource | undefined>((s, a) => joinSource(s, a.costSource), undefined);
  const source = joinSource(earlierSource, st.costSource);
  if (source !== undefined) rec.costSource = source;
  if (st.sessionId !== undefined) rec.sessionId = st.sessionId;
  if (st.status === 'running') {
    // Progress reports (cost, session) come as more `running` states of the same attempt.
    // st.attempt numbers on from the attempts recorded before this run (the scheduler's attemptsBefore).
    if (rec.attempts.length < Math.max(st.attempt, before + st.attempt - (st.attemptBase ?? 0))) {
      // An attempt that answers a conflict is one from its start (reason `conflict`, the files named).
      const answers =
        st.outcome?.reason === 'conflict'
          ? {
              reason: 'conflict' as const,
              ...(st.outcome.message !== undefined ? { message: st.outcome.message } : {}),
            }
          : {};
      rec.attempts.push({
        attempt: rec.attempts.length + 1,
        startedAt: iso(st.current?.startedAt) ?? new Date().toISOString(),
        ...answers,
      });
    }
    if (st.current) rec.startedAt ??= new Date(st.current.startedAt).toISOString();
    delete rec.endedAt;
    delete rec.exitCode;
    delete rec.signal;
    delete rec.reason;
    delete rec.message;
    delete rec.retryAt;
    // A worktree step's merge-back waiting for a lock: noted while it waits.
    if (st.waitingFor) rec.waitingFor = { holder: st.waitingFor.holder, paths: [...st.waitingFor.paths] };
    else delete rec.waitingFor;
    // The running attempt's tokens and cost so far: run.json follows it live.
    const live = st.current ? attemptUsage(st.current) : undefined;
    if (live) rec.attempts[rec.attempts.length - 1] = { ...rec.attempts[rec.attempts.length - 1]!, ...live };
    sumTokens(rec);
    return rec;
  }
  const o = st.outcome ?? {};
  const open = rec.attempts[rec.attempts.length - 1];
  // A best-of step waiting for a pick is in the middle of its attempt: the pick lands it.
  const midAttempt = st.status === 'pending' || (st.status === 'waiting' && o.reason === 'pick');
  if (open && open.endedAt === undefined && !midAttempt) {
    const endedAt = st.current?.endedAt ?? o.endedAt ?? Date.now();
    // A retry delay follows a failed attempt; `review` follows one that succeeded.
    // A conflict waiting for its answer (`on-conflict`) ended `conflict`.
    const outcome =
      st.status === 'waiting'
        ? o.reason === 'conflict'
          ? 'conflict'
          : 'failed'
        : st.status === 'review'
          ? 'succeeded'
          : st.status;
    Object.assign(open, {
      ...(outcome === 'succeeded' || outcome === 'failed' || outcome === 'canceled' || outcome === 'conflict'
        ? { status: outcome }
        : {}),
      endedAt: new Date(endedAt).toISOString(),
      durationMs: endedAt - Date.parse(open.startedAt),
      ...(o.exitCode !== undefined ? { exitCode: o.exitCode } : {}),
      ...(o.signal !== undefined ? { signal: o.signal } : {}),
      ...(o.reason !== undefined ? { reason: o.reason } : {}),
      ...(o.message !== undefined ? { message: o.message } : {}),
      ...(st.lastUsage ?? {}),
    });
  }
  if (st.waitingFor) rec.waitingFor = { holder: st.waitingFor.holder, paths: [...st.waitingFor.paths] };
  else delete rec.waitingFor;
  if (st.status === 'waiting' && o.retryAt !== undefined) rec.retryAt = new Date(o.retryAt).toISOString();
  else delete rec.retryAt;
  if (o.exitCode !== undefined) rec.exitCode = o.exitCode;
  if (o.signal !== undefined) rec.signal = o.signal;
  if (o.reason !== undefined) rec.reason = o.reason;
  if (o.message !== undefined) rec.message = o.message;
  if (o.endedAt !== undefined && st.status !== 'waiting') {
    rec.endedAt = new Date(o.endedAt).toISOString();
    if (rec.startedAt) rec.durationMs = o.endedAt - Date.parse(rec.startedAt);
  }
  sumTokens(rec);
  return rec;
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
