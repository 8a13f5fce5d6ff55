// How a best-of step's race reads in one line, the same in the lens, the graph node's detail and
// the tree: its alternatives' counts while they race, who is waiting for the user's pick, and
// the winner once there is one. Pure, tested in plain mocha.
import { groupCounts, groupCountsText } from '../../core/plan/groupCounts';
import { STEP_STATUSES, type StepStatus } from '../../core/status';
import { awaitsPick, pickable } from './pickText';
import type { StepView } from './runView';

const asStatus = (s: string): StepStatus =>
  (STEP_STATUSES as readonly string[]).includes(s) ? (s as StepStatus) : 'pending';

/**
 * "alternative 2 of 3 won (first to pass)"; "2 of 3 passed, waiting for your pick"; while racing,
 * "alternatives 0/3 ✓ · 2 ▶ · 1 ✗"; undefined for a step that is not best-of (or not run yet).
 */
export function bestOfText(
  step: Pick<StepView, 'status' | 'alternatives' | 'winner' | 'winnerWhy'>,
): string | undefined {
  const alts = step.alternatives;
  if (!alts || alts.length === 0) return undefined;
  const n = alts.length;
  if (step.winner !== undefined)
    return `alternative ${step.winner} of ${n} won${step.winnerWhy ? ` (${step.winnerWhy})` : ''}`;
  if (awaitsPick(step)) return `${alts.filter((a) => pickable(step, a)).length} of ${n} passed, waiting for your pick`;
  return `alternatives ${groupCountsText(groupCounts(alts.map((a) => asStatus(a.status))))}`;
}
