// How a run and its steps read in the Runs tree (and the pickers and status bar that reuse it):
// projections of the runs model, pure, so they are table-tested in plain mocha.
import { costText } from '../../core/cost/costText';
import { clockTime } from '../../core/engine/scheduling/retry';
import { formatDuration, formatUsd, stepTimeText, type TimeFacts } from '../../core/format';
import { endSentence, shownStatus } from '../../core/status';
import { isActive, type RunView, type StepView } from './runView';

/** "3/10 ▶2" — done of total, and how many are running. */
export function runProgress(run: RunView): string {
  let done = 0;
  let running = 0;
  for (const s of run.steps.values()) {
    if (s.status === 'running') running++;
    else if (s.status !== 'pending' && s.status !== 'waiting') done++;
  }
  return `${done}/${run.steps.size}${running ? ` ▶${running}` : ''}`;
}

/** A run's row: progress (or the given status counts), status and time, cost, a held budget. */
export function runDescription(run: RunView, now = Date.now(), counts?: string): string {
  const active = isActive(run);
  const took = formatDuration((run.endedAt ?? now) - run.createdAt);
  const cost = run.costUsd !== undefined ? ` · ${costText(run.costUsd, run.costSource)}` : '';
  const held = run.budget
    ? ` · ${run.budget.pool !== undefined ? `pool ${run.budget.pool}'s ` : ''}budget reached (${formatUsd(run.budget.spentUsd)} of ${formatUsd(run.budget.budgetUsd)})`
    : '';
  return `${counts ?? runProgress(run)} · ${active ? took : `${run.status} ${took}`}${cost}${held}`;
}

/** What a step waits for, while it waits for a lock: before it starts, or (a worktree step) before its merge-back. */
export function lockNote(step: StepView): string | undefined {
  return step.waitingFor ? `waiting for ${step.waitingFor.holder}: ${step.waitingFor.paths.join(', ')}` : undefined;
}

/** A step's row: a lock wait or retry time, elapsed time, attempt, cost, then its last line or how it ended. */
export function stepDescription(step: StepView, now = Date.now()): string {
  const parts: string[] = [];
  if (shownStatus(step) === 'reverted') parts.push('reverted');
  const lock = lockNote(step);
  if (lock) parts.push(lock);
  if (step.status === 'waiting' && step.retryAt !== undefined) {
    const at = clockTime(step.retryAt);
    parts.push(step.reason === 'rate-limited' ? `rate-limited, retrying at ${at}` : `retrying at ${at}`);
  }
  // Time spent running; the wall time apart when waits between attempts made it longer.
  const time = stepTimeText(step, now);
  if (time !== undefined) parts.push(time.time);
  if (time?.wall !== undefined) parts.push(time.wall);
  if (step.reused) parts.push('reused');
  if (step.attempt > 1) parts.push(`attempt ${step.attempt}`);
  if (step.costUsd !== undefined) parts.push(costText(step.costUsd, step.costSource));
  // An agent with a session but no cost (a model without a price): not "$0", which would be a claim.
  else if (step.sessionId !== undefined && step.status !== 'running') parts.push('cost not reported');
  if (step.status === 'running') {
    // An attempt that answers a conflict (`on-conflict`) says so while it runs.
    if (step.reason === 'conflict' && step.message) parts.push(step.message);
    if (step.lastLine) parts.push(step.lastLine);
  } else if (step.status !== 'succeeded' && step.status !== 'waiting') {
    const end = endSentence(step);
    if (end) parts.push(end);
  }
  return parts.join(' · ');
}

/** An alternative's row under its best-of step: won, or its status, then score, attempts, cost and why. */
export function alternativeDescription(step: StepView, index: number): string {
  const alt = step.alternatives?.find((a) => a.index === index);
  return [step.winner === index ? 'won' : (alt?.status ?? 'pending'), ...alternativeFacts(step, index)].join(' · ');
}

/** What sets an alternative apart beyond its status: score, attempts, cost, and the engine's word on it unless it won. */
export function alternativeFacts(step: StepView, index: number): string[] {
  const alt = step.alternatives?.find((a) => a.index === index);
  const parts: string[] = [];
  if (alt?.score !== undefined) parts.push(`score ${alt.score}`);
  if (alt && alt.attempts > 1) parts.push(`attempt ${alt.attempts}`);
  if (alt?.costUsd !== undefined) parts.push(costText(alt.costUsd, alt.costSource));
  if (step.winner !== index && alt?.message) parts.push(alt.message);
  return parts;
}

/** How long a step has run, as every view shows it: time spent running (format.ts stepTimeText), live while it runs. */
export function stepTime(step: TimeFacts, now = Date.now()): string | undefined {
  return stepTimeText(step, now)?.time;
}
