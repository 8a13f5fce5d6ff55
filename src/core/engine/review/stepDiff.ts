// `braid diff`: a recorded change as a unified diff (or its --stat), headed by its step, for landed,
// `review` and `conflict` steps alike: the change commit against its base, whatever the workspace holds.
import { git } from '../../exec/git';
import type { RunRecord } from '../records/runStore';

export type StepDiff = { step: string; ok: true; text: string } | { step: string; ok: false; message: string };

/** The steps `braid diff` shows by default: every one whose record holds a change with files. */
export function stepsWithChanges(rec: RunRecord): string[] {
  return rec.graph.steps.map((s) => s.id).filter((id) => (rec.steps[id]?.changes?.files.length ?? 0) > 0);
}

/** One step's recorded change as git prints it. */
export async function stepDiff(root: string, rec: RunRecord, stepId: string, o: { stat?: boolean; color?: boolean } = {}): Promise<StepDiff> {
  const step = rec.steps[stepId];
  if (!step) return { step: stepId, ok: false, message: `run ${rec.id} has no step ${stepId}` };
  const change = step.changes;
  if (!change) return { step: stepId, ok: false, message: `step ${stepId} (${step.status}) has no recorded change` };
  if (change.files.length === 0) return { step: stepId, ok: true, text: '' };
  const r = await git(['diff', o.stat ? '--stat' : '--patch', '-M', '--no-ext-diff', `--color=${o.color ? 'always' : 'never'}`, change.base, change.commit], { cwd: root });
  if (r.code !== 0) return { step: stepId, ok: false, message: `the change of ${stepId} is gone from the repository (was the run cleaned?)` };
  return { step: stepId, ok: true, text: r.stdout };
}
