// How the alternatives of a best-of step read where the user picks one, and which steps wait for
// a pick: projections of the run's record, pure, tested in plain mocha.
import type { ChangeRecord } from '../../core/engine/records/changeRecord';
import type { AlternativeRecord, RunRecord } from '../../core/engine/records/runRecord';
import { formatUsd } from '../../core/format';
import { waitsForPick } from '../../core/engine/records/pickRequest';

/** The engine's word on a passed alternative of a `pick: review` step (scheduling/alternatives.ts). */
const WAITS_FOR_PICK = 'passed; waiting for the pick';

type StepFacts = Parameters<typeof waitsForPick>[0];

/**
 * Whether the user may pick this alternative now: it passed, none landed, and its step waits for
 * the pick or still races (an early pick is taken when the wait begins: pickRequest.ts).
 */
export function pickable(step: StepFacts, alt: { readonly status: string; readonly message?: string }): boolean {
  return (
    (step.status === 'running' || waitsForPick(step)) &&
    step.winner === undefined &&
    alt.status === 'succeeded' &&
    alt.message === WAITS_FOR_PICK
  );
}

/** A `pick: review` step's race is over and it waits for the user: every alternative ended, some may be picked. */
export function awaitsPick(
  step: StepFacts & { readonly alternatives?: readonly { readonly status: string; readonly message?: string }[] },
): boolean {
  const alts = step.alternatives ?? [];
  return (
    alts.some((a) => pickable(step, a)) &&
    (waitsForPick(step) ||
      alts.every((a) => a.status !== 'pending' && a.status !== 'running' && a.status !== 'waiting'))
  );
}

/** The steps of a run waiting for the user's pick (`pick: review`, a passed alternative, none landed). */
export function waitingForPick(rec: RunRecord): string[] {
  return Object.values(rec.steps)
    .filter((s) => s.alternatives?.some((a) => pickable(s, a)))
    .map((s) => s.id);
}

/** "alternative 2" · "score 0.9 · $0.12 · attempt 2" · "3 files · +12 −4": what sets one apart at a glance. */
export function pickItemText(
  a: AlternativeRecord,
  change: ChangeRecord | undefined,
): { label: string; description: string; detail: string } {
  const description = [
    a.score !== undefined ? `score ${a.score}` : '',
    a.costUsd !== undefined ? formatUsd(a.costUsd) : '',
    a.attempts > 1 ? `attempt ${a.attempts}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  let detail = 'no change recorded';
  if (change) {
    const added = change.files.reduce((n, f) => n + f.added, 0);
    const removed = change.files.reduce((n, f) => n + f.removed, 0);
    const n = change.files.length;
    detail =
      n === 0
        ? 'changed nothing'
        : `${n} file${n === 1 ? '' : 's'} · +${added} −${removed} · ${change.files
            .slice(0, 3)
            .map((f) => f.path)
            .join(', ')}${n > 3 ? ', …' : ''}`;
  }
  return { label: `alternative ${a.index}`, description, detail };
}
