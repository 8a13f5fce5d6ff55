// Review decisions carried out from a run's record, where no live process holds the run: approve
// (its change lands now), reject, merge again (a `conflict` step), and revert (a landed change taken
// back out). Each is a merge-back of the recorded change commit, under the step's path locks
// (`.braid/locks`, shared with every other run), all or nothing. `revertChange` serves live runs too.
import { hostname } from 'node:os';
import { pidAlive } from '../../exec/pidAlive';
import { mergeBack } from '../isolation/mergeBack';
import { recoverInterruptedMerges } from '../isolation/applyChanges';
import { hasCommit, type ChangeRecord } from '../records/changeRecord';
import { removeWorktree, worktreeBranch, worktreePath } from '../isolation/worktree';
import { LockDir } from '../locks/lockDir';
import type { RunRecord, StepRecord } from '../records/runRecord';
import type { ReasonCode } from '../../status';
import type { ReviewAction, StepOutcome } from './reviewInbox';

/** The status each action starts from. */
export const ACTION_NEEDS: Readonly<Record<ReviewAction, string>> = {
  approve: 'review',
  reject: 'review',
  merge: 'conflict',
  revert: 'succeeded',
};

/** Why the step's state rules the action out, or undefined when it may go ahead. */
export function wrongState(rec: RunRecord, stepId: string, action: ReviewAction): string | undefined {
  const step = rec.steps[stepId];
  if (!step) return `run ${rec.id} has no step ${stepId}`;
  const want = ACTION_NEEDS[action];
  if (step.status !== want) {
    const what = want === 'review' ? 'in review' : want;
    return `step ${stepId} is ${step.status}, not ${what}: nothing to ${action}`;
  }
  if (action === 'revert') {
    if (!step.changes || step.changes.files.length === 0)
      return `step ${stepId} landed no recorded change: nothing to revert`;
    if (step.revertedAt !== undefined) return `step ${stepId}'s change was reverted already (${step.revertedAt})`;
  }
  if ((action === 'approve' || action === 'merge') && !step.changes)
    return `step ${stepId} has no recorded change to land`;
  return undefined;
}

function writesOf(rec: RunRecord, stepId: string): string[] {
  const step = rec.graph.steps.find((s) => s.id === stepId);
  return step && step.writes.length > 0 ? [...step.writes] : ['**'];
}

type Landing =
  | { ok: true }
  | { ok: false; kind: 'conflict' | 'out-of-set' | 'missing' | 'locked'; message: string; paths?: string[] };

/** Merges base → result into the workspace under the step's path locks. */
async function mergeLocked(
  root: string,
  runId: string,
  stepId: string,
  writes: string[],
  base: string,
  result: string,
): Promise<Landing> {
  if (!(await hasCommit(root, base)) || !(await hasCommit(root, result))) {
    return {
      ok: false,
      kind: 'missing',
      message: `the recorded change of ${stepId} is gone from the repository (was the run cleaned?)`,
    };
  }
  const locks = new LockDir(root);
  const got = await locks.tryAcquire({ run: runId, step: stepId }, writes, []);
  if (!got.ok)
    return {
      ok: false,
      kind: 'locked',
      message: `${got.paths[0]} is locked by ${got.holder}: try again once it is done`,
    };
  try {
    // A merge-back a crash interrupted is rolled back first, as at any run's start.
    await recoverInterruptedMerges(root);
    const m = await mergeBack({ root, base, result, writes });
    return m.ok ? { ok: true } : { ok: false, kind: m.kind, message: m.message, paths: m.paths };
  } finally {
    await got.release();
  }
}

/** Approve or merge again, from the record: the recorded change lands (or the step ends `conflict`). */
export async function landFromRecord(root: string, rec: RunRecord, stepId: string): Promise<StepOutcome> {
  const step = rec.steps[stepId]!;
  const change = step.changes!;
  const m = await mergeLocked(root, rec.id, stepId, writesOf(rec, stepId), change.base, change.commit);
  const now = new Date().toISOString();
  if (!m.ok) {
    if (m.kind === 'missing' || m.kind === 'locked') return { step: stepId, ok: false, message: m.message };
    setEnd(step, m.kind === 'conflict' ? 'conflict' : 'failed', now, m.kind, m.message);
    return { step: stepId, ok: true, status: step.status, message: m.message };
  }
  setEnd(step, 'succeeded', now);
  await removeWorktree({ root, path: worktreePath(root, rec.id, stepId), branch: worktreeBranch(rec.id, stepId) });
  delete step.worktree;
  return { step: stepId, ok: true, status: 'succeeded' };
}

/** Reject, from the record: the step ends `failed` (reason `rejected`); its worktree stays. */
export function rejectInRecord(rec: RunRecord, stepId: string, reason: string | undefined): StepOutcome {
  setEnd(
    rec.steps[stepId]!,
    'failed',
    new Date().toISOString(),
    'rejected',
    reason ? `rejected: ${reason}` : 'rejected',
  );
  return { step: stepId, ok: true, status: 'failed' };
}

/**
 * Takes a landed change back out of the workspace (the reverse merge-back, atomic): where edits
 * made since touch the same lines, nothing changes and the files are named. Marks the record.
 */
export async function revertChange(root: string, rec: RunRecord, stepId: string): Promise<StepOutcome> {
  const step = rec.steps[stepId]!;
  const change: ChangeRecord = step.changes!;
  const m = await mergeLocked(root, rec.id, stepId, ['**'], change.commit, change.base);
  if (!m.ok) {
    if (m.kind !== 'conflict') return { step: stepId, ok: false, message: m.message };
    return {
      step: stepId,
      ok: false,
      message: `nothing was reverted: edits made since ${stepId}'s change landed touch the same lines in ${(m.paths ?? []).join(', ')}`,
    };
  }
  step.revertedAt = new Date().toISOString();
  return { step: stepId, ok: true, status: step.status, message: 'reverted' };
}

function setEnd(
  step: StepRecord,
  status: StepRecord['status'],
  endedAt: string,
  reason?: ReasonCode,
  message?: string,
): void {
  step.status = status;
  step.endedAt = endedAt;
  if (step.startedAt) step.durationMs = Date.parse(endedAt) - Date.parse(step.startedAt);
  if (reason !== undefined) step.reason = reason;
  else delete step.reason;
  if (message !== undefined) step.message = message;
  else delete step.message;
}

/** Whether the run's own process is alive on this host (then it must carry the request out). */
export function runIsLive(rec: RunRecord): boolean {
  return rec.status === 'running' && rec.host.hostname === hostname() && pidAlive(rec.host.pid, rec.host.procStart);
}
