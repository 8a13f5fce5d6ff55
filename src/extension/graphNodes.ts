// How a step shows on the graph panel: its node's status and one line beside it, a projection of
// the runs model's step (the same fields the tree reads), posted as the protocol's StatusUpdate.
import { formatUsd } from '../core/format';
import { endSentence } from '../core/status';
import type { StatusUpdate } from '../protocol/webview';
import type { StepView } from './runView';
import { lockNote } from './treeText';

/** The node's status update: a lock wait, a running agent's cost and activity, or how the step ended. */
export function nodeUpdate(step: StepView): StatusUpdate {
  let detail = lockNote(step);
  if (detail === undefined && step.status === 'running') {
    detail = [step.costUsd !== undefined ? formatUsd(step.costUsd) : '', step.activity ?? ''].filter(Boolean).join(' · ').slice(0, 200) || undefined;
  } else detail ??= endSentence(step);
  return {
    stepId: step.id, status: step.status,
    ...(step.attempt > 0 ? { attempt: Math.min(step.attempt, 10_000) } : {}),
    ...(detail ? { detail: detail.slice(0, 4096) } : {}),
  };
}
