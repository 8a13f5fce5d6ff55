// What follows an attempt that ended `conflict` (`on-conflict`): `resolve`, an attempt that merges
// what landed meanwhile into the step's worktree and runs its agent on the markers; `rerun`, the
// step again on the workspace as it is now; `stop`, the step ends `conflict`. Each answer is an
// attempt of its own, at most `resolve-attempts` of them a run, and never once the run stops.
import type { GraphStep } from '../../plan/types';
import type { AttemptResult, ConflictAttempt } from '../types';

/** The policy a step answers a conflict with: its own, else `resolve` for agent steps and `stop` for `run` steps. */
export function onConflictOf(step: GraphStep): 'resolve' | 'rerun' | 'stop' {
  return step.onConflict ?? (step.kind === 'prompt' ? 'resolve' : 'stop');
}

/** The attempt that answers this conflict, or undefined when the step ends `conflict`. */
export function conflictAnswer(
  step: GraphStep,
  st: { readonly resolutions?: number; readonly sessionId?: string },
  r: AttemptResult,
  going: boolean,
): ConflictAttempt | undefined {
  const mode = onConflictOf(step);
  // A best-of step's landing is its winner's; its alternatives' worktrees are gone by then.
  if (
    mode === 'stop' ||
    !going ||
    r.reason !== 'conflict' ||
    step.isolation !== 'worktree' ||
    step.bestOf ||
    step.alternative
  )
    return undefined;
  if (mode === 'resolve' && step.kind !== 'prompt') return undefined;
  if ((st.resolutions ?? 0) >= (step.resolveAttempts ?? 1)) return undefined;
  return { mode, ...(mode === 'resolve' && st.sessionId !== undefined ? { sessionId: st.sessionId } : {}) };
}

/** What the step's record and events say while the answer waits and runs. */
export function conflictAnswerMessage(a: ConflictAttempt, paths: readonly string[] | undefined): string {
  const where = paths && paths.length > 0 ? ` in ${paths.join(', ')}` : '';
  return a.mode === 'resolve'
    ? `resolving the conflict${where} with its agent`
    : `conflict${where}: running it again on the workspace as it is now`;
}
