// `braid diff`: a recorded change as a unified diff (or its --stat), headed by its step, for landed,
// `review` and `conflict` steps alike, and for each alternative of a best-of step: the change commit
// against its base, whatever the workspace holds.
import { git } from '../../exec/git';
import type { ChangeRecord } from '../records/changeRecord';
import type { RunRecord, StepRecord } from '../records/runRecord';

export type StepDiff = { step: string; ok: true; text: string } | { step: string; ok: false; message: string };

/** The steps `braid diff` shows by default: every one whose record holds a change with files. */
export function stepsWithChanges(rec: RunRecord): string[] {
  return rec.graph.steps.map((s) => s.id).filter((id) => (rec.steps[id]?.changes?.files.length ?? 0) > 0);
}

/** One step's recorded change as git prints it; with `alternative`, that alternative's of a best-of step. */
export async function stepDiff(
  root: string,
  rec: RunRecord,
  stepId: string,
  o: { stat?: boolean; color?: boolean; alternative?: number } = {},
): Promise<StepDiff> {
  const step = rec.steps[stepId];
  if (!step) return { step: stepId, ok: false, message: `run ${rec.id} has no step ${stepId}` };
  const found =
    o.alternative === undefined
      ? { change: step.changes, what: `step ${stepId} (${step.status})` }
      : alternativeChange(step, o.alternative);
  if ('message' in found) return { step: stepId, ok: false, message: found.message };
  const change = found.change;
  if (!change) return { step: stepId, ok: false, message: `${found.what} has no recorded change` };
  if (change.files.length === 0) return { step: stepId, ok: true, text: '' };
  const r = await git(
    [
      'diff',
      o.stat ? '--stat' : '--patch',
      '-M',
      '--no-ext-diff',
      `--color=${o.color ? 'always' : 'never'}`,
      change.base,
      change.commit,
    ],
    { cwd: root },
  );
  if (r.code !== 0)
    return {
      step: stepId,
      ok: false,
      message: `the change of ${found.what} is gone from the repository (was the run cleaned?)`,
    };
  return { step: stepId, ok: true, text: r.stdout };
}

function alternativeChange(
  step: StepRecord,
  n: number,
): { change: ChangeRecord | undefined; what: string } | { message: string } {
  const alts = step.alternatives;
  if (!alts) return { message: `step ${step.id} has no alternatives` };
  const alt = alts.find((a) => a.index === n);
  if (!alt) return { message: `step ${step.id} has alternatives 1 to ${alts.length}, not ${n}` };
  return { change: alt.changes, what: `alternative ${n} of ${step.id} (${alt.status})` };
}
