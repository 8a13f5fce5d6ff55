// How a step shows on the graph panel: its node's status and one line beside it, a projection of
// the runs model's step (the same fields the tree reads), posted as the protocol's StatusUpdate.
import { costText } from '../../core/cost/costText';
import { stepTimeText } from '../../core/format';
import { endSentence } from '../../core/status';
import type { StatusUpdate } from '../../protocol/webview';
import type { StepView } from '../runs/runView';
import { lockNote } from '../runs/treeText';
import { bestOfText } from '../runs/bestOfText';

/** The node's status update: a lock wait, a running agent's cost and activity, or how the step ended. */
export function nodeUpdate(step: StepView, now = Date.now()): StatusUpdate {
  let detail = lockNote(step);
  // A best-of step's node: the race so far, or the alternative that won (the Runs tree lists them all).
  if (detail === undefined && (step.winner !== undefined || step.status === 'running')) detail = bestOfText(step);
  if (detail === undefined && step.status === 'running') {
    // An attempt that answers a conflict (`on-conflict`) says so first.
    const resolving = step.reason === 'conflict' ? (step.message ?? '') : '';
    detail =
      [resolving, step.costUsd !== undefined ? costText(step.costUsd, step.costSource) : '', step.activity ?? '']
        .filter(Boolean)
        .join(' · ')
        .slice(0, 200) || undefined;
  } else {
    detail ??= endSentence(step);
    // An agent step keeps its cost on its node once it ended.
    if (step.costUsd !== undefined && step.status !== 'running')
      detail = [costText(step.costUsd, step.costSource), detail].filter(Boolean).join(' · ');
  }
  // Time spent running on the node; the wall time, when waits made it longer, beside the detail.
  const times = stepTimeText(step, now);
  if (times?.wall) detail = detail ? `${detail} · ${times.wall}` : times.wall;
  // An agent step's node shows its cost under its name beside its time, live while it runs.
  // Compact, to fit the node's slot: cents, `≈` for an estimate (the detail and tree say `est.`).
  const cost =
    step.costUsd !== undefined
      ? `${step.costSource === 'estimated' || step.costSource === 'mixed' ? '≈' : ''}$${step.costUsd.toFixed(2)}`
      : undefined;
  const time =
    [times?.time, cost]
      .filter((t) => t !== undefined)
      .join(' · ')
      .slice(0, 64) || undefined;
  return {
    stepId: step.id,
    status: step.status,
    ...(step.attempt > 0 ? { attempt: Math.min(step.attempt, 10_000) } : {}),
    ...(detail ? { detail: detail.slice(0, 4096) } : {}),
    ...(time ? { time } : {}),
  };
}
