// A user's decision on a step in `review` (approve, reject), or on a `conflict` step (merge: land
// it again). Apart from scheduler.ts because it is the one path the user drives into a run: every
// wrong state is answered as data, and landing is the only await outside dispatch.
import type { Graph } from '../../plan/types';
import type { Clock } from './clock';
import type { StepState } from './stepState';
import type { AttemptResult, StepRunner } from '../types';
import type { StepStatus } from '../../status';

/** What a user decides about a step in `review`, or asks of a `conflict` step (`merge`: land it again). */
export type ReviewDecision = { action: 'approve' } | { action: 'reject'; reason?: string } | { action: 'merge' };
export type ReviewOutcome = { ok: true; status: StepStatus; message?: string } | { ok: false; message: string };

/** What of the scheduler a decision uses. */
export interface ReviewHost {
  readonly runId: string;
  readonly graph: Graph;
  readonly runner: StepRunner;
  readonly clock: Clock;
  /** Aborted when the run is canceled (a landing then stops). */
  readonly runSignal: AbortSignal;
  /** Steps whose approval or merge is landing now: a second decision meanwhile is refused. */
  readonly landing: Set<string>;
  state(id: string): StepState | undefined;
  changed(st: StepState): void;
  /** The step leaves `review` with this end. */
  leaveReview(id: string, r: Partial<Omit<AttemptResult, 'status'>> & { status: StepStatus }): void;
}

/**
 * Carries out a decision on a step in `review` (`approve`: its change lands under its locks, and
 * may still end `conflict`; `reject`: it ends `failed`, reason `rejected`, its dependents
 * skipped), or lands a `conflict` step's change again (`merge`). Wrong states are data.
 */
export async function decideReview(host: ReviewHost, id: string, d: ReviewDecision): Promise<ReviewOutcome> {
  const st = host.state(id);
  if (!st) return { ok: false, message: `run ${host.runId} has no step ${id}` };
  const want = d.action === 'merge' ? 'conflict' : 'review';
  if (host.landing.has(id)) return { ok: false, message: `step ${id} is landing already` };
  if (host.runSignal.aborted)
    return { ok: false, message: `run ${host.runId} is being canceled: try again once it has ended` };
  if (st.status !== want)
    return { ok: false, message: `step ${id} is ${st.status}, not ${want === 'review' ? 'in review' : 'conflict'}` };
  if (d.action === 'reject') {
    host.runner.reject?.(id);
    host.leaveReview(id, {
      status: 'failed',
      reason: 'rejected',
      message: d.reason ? `rejected: ${d.reason}` : 'rejected',
    });
    return { ok: true, status: 'failed' };
  }
  const land = host.runner.land?.bind(host.runner);
  if (!land) return { ok: false, message: `step ${id} has no change to land here` };
  host.landing.add(id);
  let r: AttemptResult | undefined;
  try {
    r = await land(id, host.runSignal);
  } finally {
    host.landing.delete(id);
  }
  if (!r) return { ok: false, message: `step ${id} has no change waiting to land in this run` };
  if (d.action === 'merge') {
    // A terminal step changes no more in the scheduler's eyes; its record and event do.
    if (r.status !== 'succeeded') return { ok: true, status: st.status, message: r.message ?? r.status };
    st.status = 'succeeded';
    const { reason: _r, message: _m, ...kept } = st.outcome ?? {};
    st.outcome = { ...kept, endedAt: host.clock.now() };
    host.changed(st);
    const skipped = host.graph.steps.get(id)!.dependents.filter((dep) => host.state(dep)!.status === 'skipped');
    return {
      ok: true,
      status: 'succeeded',
      ...(skipped.length > 0
        ? { message: `landed; its dependents were skipped (${skipped.join(', ')}): retry the run to run them` }
        : {}),
    };
  }
  const status = r.status === 'review' ? 'succeeded' : r.status;
  host.leaveReview(id, { ...r, status });
  return { ok: true, status, ...(r.message !== undefined && status !== 'succeeded' ? { message: r.message } : {}) };
}
