// The events a step's state becomes: lifecycle (`step`) and a running agent's progress (`agent`).
// They carry everything a step's record is folded from (records/stepFold.ts): run.json is these
// events folded, and so is every live view.
import { alternativeId } from '../../plan/alternativeStep';
import type { AttemptState, StepState } from './stepState';
import type { AttemptUsage, EngineEvent } from '../types';
import { TERMINAL } from '../../status';

/** A step's change as its events carry it (the records' ChangeRecord has this shape). */
type EventChange = NonNullable<Extract<EngineEvent, { type: 'step' }>['changes']>;

/** What the isolator kept of a step (or of an alternative, by its id `<step>.alt<i>`): its worktree, its change. */
export interface IsolationFacts {
  keptWorktree(stepId: string): string | undefined;
  changeOf(stepId: string): EventChange | undefined;
}

/** An event before the scheduler stamps its time and run. */
export type EventBody = EngineEvent extends infer E ? (E extends EngineEvent ? Omit<E, 'time' | 'run'> : never) : never;

/** The `step` event of a state change; undefined for `pending`, which is never announced. */
export function stepEvent(st: Readonly<StepState>, facts?: IsolationFacts): EventBody | undefined {
  if (st.status === 'pending') return undefined;
  // Fields assigned in the order the spread form had (it is the `--json` key order), without
  // the throwaway object each conditional spread made.
  const ev: Mutable<Extract<EventBody, { type: 'step' }>> = {
    type: 'step',
    id: st.id,
    status: st.status,
    attempt: st.attempt,
  };
  const o = st.outcome;
  if (o !== undefined) {
    if (o.exitCode !== undefined) ev.exitCode = o.exitCode;
    if (o.signal !== undefined) ev.signal = o.signal;
    if (o.reason !== undefined) ev.reason = o.reason;
    if (o.message !== undefined) ev.message = o.message;
  }
  if (st.waitingFor !== undefined) ev.waitingFor = { holder: st.waitingFor.holder, paths: [...st.waitingFor.paths] };
  if (st.status === 'waiting' && o?.retryAt !== undefined) ev.retryAt = new Date(o.retryAt).toISOString();
  const ended = TERMINAL.has(st.status);
  if (ended && st.costUsd !== undefined) {
    ev.costUsd = st.costUsd;
    if (st.costSource !== undefined) ev.costSource = st.costSource;
  }
  const a = st.current;
  if (a?.endedAt !== undefined && st.status !== 'running') {
    const usage = attemptUsage(a);
    // What only the attempt's final report says: its turns and its session.
    const last = st.lastUsage;
    const full = usage || last?.turns !== undefined || last?.sessionId !== undefined ? { ...usage } : undefined;
    if (full && last?.turns !== undefined) full.turns = last.turns;
    if (full && last?.sessionId !== undefined) full.sessionId = last.sessionId;
    if (full) ev.usage = full;
  }
  if (facts && (ended || st.status === 'review')) {
    // A best-of step's winner waiting in `review` (or conflicted) keeps its tree, and its change, as the step's.
    const winner = st.winner ? alternativeId(st.id, st.winner.index) : undefined;
    const kept =
      facts.keptWorktree(st.id) ??
      (winner !== undefined && st.status !== 'succeeded' ? facts.keptWorktree(winner) : undefined);
    if (kept !== undefined) ev.worktree = kept;
    const change = facts.changeOf(st.id) ?? (winner !== undefined ? facts.changeOf(winner) : undefined);
    if (change) ev.changes = change;
  }
  // A best-of step's alternatives as they race (every change: views follow it live), and at its end.
  if (st.alternatives) {
    ev.alternatives = st.alternatives.map((alt) => {
      const id = alternativeId(st.id, alt.index);
      const kept = ended ? facts?.keptWorktree(id) : undefined;
      const changes = facts?.changeOf(id);
      return { ...alt, ...(kept !== undefined ? { worktree: kept } : {}), ...(changes ? { changes } : {}) };
    });
    if (st.winner) {
      ev.winner = st.winner.index;
      ev.winnerWhy = st.winner.why;
    }
  }
  return ev;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A running agent's progress so far, with the run's total cost when the step reported one. */
export function agentEvent(st: Readonly<StepState>, runCostUsd: number): EventBody {
  const a = st.current;
  return {
    type: 'agent',
    id: st.id,
    attempt: st.attempt,
    ...(st.sessionId !== undefined ? { sessionId: st.sessionId } : {}),
    ...(a?.model !== undefined ? { model: a.model } : {}),
    ...(a?.turns !== undefined ? { turns: a.turns } : {}),
    ...(a?.inputTokens !== undefined ? { inputTokens: a.inputTokens } : {}),
    ...(a?.cachedInputTokens !== undefined ? { cachedInputTokens: a.cachedInputTokens } : {}),
    ...(a?.outputTokens !== undefined ? { outputTokens: a.outputTokens } : {}),
    ...(a?.reasoningTokens !== undefined ? { reasoningTokens: a.reasoningTokens } : {}),
    ...(st.costUsd !== undefined
      ? { costUsd: st.costUsd, ...(st.costSource !== undefined ? { costSource: st.costSource } : {}), runCostUsd }
      : {}),
    ...(a?.costUsd !== undefined
      ? { attemptCostUsd: a.costUsd, ...(a.costSource !== undefined ? { attemptCostSource: a.costSource } : {}) }
      : {}),
    ...(a?.costUnknown !== undefined ? { costUnknown: a.costUnknown } : {}),
    ...(a?.activity !== undefined ? { activity: a.activity } : {}),
  };
}

/** An ended attempt's tokens and cost; undefined for an attempt that reported none (a shell step). */
export function attemptUsage(a: Readonly<AttemptState>): AttemptUsage | undefined {
  const u: { -readonly [K in keyof AttemptUsage]: AttemptUsage[K] } = {};
  if (a.model !== undefined) u.model = a.model;
  if (a.inputTokens !== undefined) u.inputTokens = a.inputTokens;
  if (a.cachedInputTokens !== undefined) u.cachedInputTokens = a.cachedInputTokens;
  if (a.outputTokens !== undefined) u.outputTokens = a.outputTokens;
  if (a.reasoningTokens !== undefined) u.reasoningTokens = a.reasoningTokens;
  if (a.costUsd !== undefined) {
    u.costUsd = a.costUsd;
    if (a.costSource !== undefined) u.costSource = a.costSource;
  }
  if (a.costUnknown !== undefined) u.costUnknown = a.costUnknown;
  return Object.keys(u).length > 0 ? u : undefined;
}
