// Which step a person may step into (`braid attach`, `braid say`, and the extension's Continue in
// Terminal and Send to Step), and how: the one verdict both faces ask before they post to a live
// run's takeover folder or retry an ended run's step. Pure over the run's record; whether the run's
// process is alive is the caller's to say (runIsLive reads the host).
import type { StepStatus } from '../status';
import { worktreePath } from './isolation/worktree';
import type { RunRecord } from './records/runRecord';
import { takesPeople } from './steps/takeover';

export type TakeoverKind = 'attach' | 'say';

/**
 * The statuses an ended run's step may be attached in (its attempt retried as the person's
 * session). A live run's step is taken over only while it runs: the run's process owns the rest.
 */
export const ATTACH_ENDED: ReadonlySet<StepStatus> = new Set<StepStatus>([
  'failed',
  'conflict',
  'review',
  'canceled',
  'interrupted',
]);

export type TakeoverTarget =
  | {
      readonly ok: true;
      /** `live`: the run's process takes the request; `retry`: the ended run's step is retried here. */
      readonly how: 'live' | 'retry';
      /** Where the step's work is: its kept worktree, or the running attempt's (worktree steps). */
      readonly worktree?: string;
    }
  | { readonly ok: false; readonly message: string };

/**
 * Whether `stepId` of `rec` can be taken over as `kind`, and how; else the sentence why not.
 * `seen`: the step's status as a live view folded it from the run's events, which run.json follows
 * a moment later (a step just failed may still read `running` there).
 */
export function takeoverTarget(
  rec: RunRecord,
  stepId: string,
  kind: TakeoverKind,
  live: boolean,
  seen?: StepStatus,
): TakeoverTarget {
  const step = rec.graph.steps.find((s) => s.id === stepId);
  const state = rec.steps[stepId];
  if (!step || !state) return no(`run ${rec.id} has no step ${stepId}`);
  if (step.kind !== 'prompt') return no(`${stepId} is a shell step: only an agent step has a session to take over`);
  const agent = rec.graph.agents[step.agent ?? ''];
  if (!agent) return no(`${stepId}'s agent ${step.agent ?? '(none)'} is not in run ${rec.id}'s record`);
  if (!takesPeople(agent))
    return no(
      `${stepId}'s agent ${agent.name} runs its prompt as a shell script: a message or a session cannot be handed to it`,
    );
  const status = seen ?? state.status;
  if (kind === 'say') {
    if (!live) return no(`run ${rec.id} is not running: say reaches a running step (attach continues an ended one)`);
  } else if (live && status !== 'running') {
    // A live run's process takes over a step only while its agent runs; a step it has done with
    // (failed, conflict, in review) is retried once the run has ended, as `braid retry` would.
    return no(
      ATTACH_ENDED.has(status)
        ? `${stepId} is ${status} in run ${rec.id}, which is still going: a live run's step is taken over while it runs; attach continues this one once the run has ended${status === 'review' ? ` (meanwhile braid reject ${rec.id} ${stepId} ends it failed, its worktree kept)` : ''}`
        : `${stepId} is ${status}: attach takes a running, failed, conflict or review step`,
    );
  } else if (!live && !ATTACH_ENDED.has(status)) {
    return no(`${stepId} is ${status}: attach takes a running, failed, conflict or review step`);
  }
  const worktree =
    state.worktree ?? (step.isolation === 'worktree' ? worktreePath(rec.workspace, rec.id, stepId) : undefined);
  return { ok: true, how: live ? 'live' : 'retry', ...(worktree !== undefined ? { worktree } : {}) };
}

const no = (message: string): TakeoverTarget => ({ ok: false, message });
