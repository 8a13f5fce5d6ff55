// Which buttons apply, from statuses alone, so the panel never offers what the engine would
// refuse (retrying a running step, cancelling a finished one). No DOM: unit-tested in Node.
import {
  activeStatuses as ACTIVE,
  retryableStatuses as RETRYABLE,
  type StepStatus,
  type WebviewAction,
} from '../src/protocol/webview';

/** A step in `review` holds its run open (its dependents wait for the decision). */
const RUN_OPEN: ReadonlySet<StepStatus> = new Set<StepStatus>([...ACTIVE, 'review']);

/** Buttons for the selected step, in display order (a failed branch can be retried while others run). */
export function stepActions(status: StepStatus, runActive: boolean): WebviewAction[] {
  const out: WebviewAction[] = [];
  if (status === 'review') return ['review-changes', 'approve', 'reject'];
  if (RETRYABLE.has(status)) out.push('retry');
  if (!ACTIVE.has(status) && !runActive) out.push('run-from');
  if (ACTIVE.has(status)) out.push('cancel');
  if (status === 'conflict') out.push('merge-again', 'open-worktree');
  if (status === 'conflict' || status === 'succeeded') out.push('review-changes');
  return out;
}

/** Buttons for a selected alternative of a best-of step: pick it while its step waits, and its change once it passed. */
export function alternativeActions(status: StepStatus, pick: boolean): WebviewAction[] {
  const out: WebviewAction[] = [];
  if (pick) out.push('pick');
  if (status === 'succeeded' || status === 'conflict') out.push('review-changes');
  return out;
}

/** Buttons for the plan and the run shown, in display order. */
export function runActions(statuses: Iterable<StepStatus>, hasRun: boolean): WebviewAction[] {
  let active = false;
  let retryable = false;
  for (const s of statuses) {
    if (RUN_OPEN.has(s)) active = true;
    if (RETRYABLE.has(s)) retryable = true;
  }
  const out: WebviewAction[] = [];
  if (!active) out.push('run-plan');
  if (hasRun && retryable && !active) out.push('retry-failed');
  if (active) out.push('cancel-run');
  return out;
}

/** Whether any step is still running or waiting (a run is in progress). */
export function isRunActive(statuses: Iterable<StepStatus>): boolean {
  for (const s of statuses) if (RUN_OPEN.has(s)) return true;
  return false;
}

export const ACTION_LABELS: Readonly<Record<WebviewAction, string>> = {
  'run-plan': 'Run plan',
  retry: 'Retry',
  'run-from': 'Run from here',
  cancel: 'Cancel',
  'open-worktree': 'Open worktree',
  'review-changes': 'Review changes',
  approve: 'Approve',
  reject: 'Reject',
  'merge-again': 'Merge again',
  pick: 'Pick',
  'retry-failed': 'Retry all failed',
  'cancel-run': 'Cancel run',
};
