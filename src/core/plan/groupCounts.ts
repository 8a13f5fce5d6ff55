// What a matrix group's instances amount to, in one short line: `7/10 ✓ · 2 ▶ · 1 ✗`. Pure, so
// the graph's collapsed node, the tree and the code lens say the same thing.
import type { StepStatus } from '../status';

export interface GroupCounts {
  readonly total: number;
  readonly succeeded: number;
  /** Running or waiting (for a lock, a slot, a review). */
  readonly active: number;
  /** Failed, in conflict or interrupted: what needs the user. */
  readonly failed: number;
  /** Canceled or skipped: did not run to an end. */
  readonly stopped: number;
}

export function groupCounts(statuses: readonly StepStatus[]): GroupCounts {
  let succeeded = 0,
    active = 0,
    failed = 0,
    stopped = 0;
  for (const s of statuses) {
    if (s === 'succeeded') succeeded++;
    else if (s === 'running' || s === 'waiting' || s === 'review') active++;
    else if (s === 'failed' || s === 'conflict' || s === 'interrupted') failed++;
    else if (s === 'canceled' || s === 'skipped') stopped++;
  }
  return { total: statuses.length, succeeded, active, failed, stopped };
}

/**
 * `7/10 ✓ · 2 ▶ · 1 ✗ · 1 ⊘`: succeeded of all, then running, failed and canceled/skipped, each
 * only when there are some. `short` (the lens) drops the total: `9 ✓ · 1 ✗`.
 */
export function groupCountsText(c: GroupCounts, short = false): string {
  const parts = [short ? `${c.succeeded} ✓` : `${c.succeeded}/${c.total} ✓`];
  if (c.active > 0) parts.push(`${c.active} ▶`);
  if (c.failed > 0) parts.push(`${c.failed} ✗`);
  if (c.stopped > 0) parts.push(`${c.stopped} ⊘`);
  return parts.join(' · ');
}
