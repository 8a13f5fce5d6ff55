// An ended run after one of its steps' changes landed from the record (`braid approve` of a step a
// canceled run left in review, `braid merge` of a conflict step): what it blocked has not run, and
// says so, and the run's status is true again once every step it holds succeeded.
import type { RunRecord } from '../records/runRecord';
import type { StepStatus } from '../../status';

const NOT_RUN: ReadonlySet<StepStatus> = new Set<StepStatus>(['skipped', 'canceled', 'interrupted', 'pending']);

/** The dependents of `stepId` (directly) that have not run: what `braid retry RUN` (or `--continue`) runs now. */
export function dependentsNotRun(rec: RunRecord, stepId: string): string[] {
  return rec.graph.steps
    .filter(
      (s) =>
        s.needs.includes(stepId) &&
        NOT_RUN.has(rec.steps[s.id]?.status ?? 'pending') &&
        rec.steps[s.id]?.reason !== 'not-selected',
    )
    .map((s) => s.id);
}

/** Marks an ended run `succeeded` when every step it holds now has (steps not selected for it aside). */
export function settleEndedRun(rec: RunRecord): void {
  if (rec.status === 'running' || rec.status === 'succeeded') return;
  const all = Object.values(rec.steps).every(
    (s) => s.status === 'succeeded' || (s.status === 'skipped' && s.reason === 'not-selected'),
  );
  if (all) {
    rec.status = 'succeeded';
    delete rec.reason;
  }
}
