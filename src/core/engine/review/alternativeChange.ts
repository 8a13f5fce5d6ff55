// One alternative's change, for a look before (or after) the pick: the record's own
// (`alternatives[i].changes`, the shape of a step's `changes`), else read back from the ref its
// commit was kept under (`refs/braid/runs/<run>/<step>.alt<i>`, parent: the alternative's base),
// which records written before alternatives kept their changes still have.
import { git } from '../../exec/git';
import { changedFiles, changeRef, type ChangeRecord } from '../records/changeRecord';
import type { RunRecord } from '../records/runRecord';
import { alternativeId } from '../../plan/alternativeStep';

export type AlternativeChange = { ok: true; change: ChangeRecord } | { ok: false; message: string };

/** The change alternative `index` of `stepId` committed, or why there is none to show. */
export async function alternativeChange(
  root: string,
  rec: RunRecord,
  stepId: string,
  index: number,
): Promise<AlternativeChange> {
  const step = rec.steps[stepId];
  const alt = step?.alternatives?.find((a) => a.index === index);
  if (!step || !alt) return { ok: false, message: `run ${rec.id} has no alternative ${index} of ${stepId}` };
  if (alt.changes) return { ok: true, change: alt.changes };
  const ref = changeRef(rec.id, alternativeId(stepId, index));
  const r = await git(['rev-parse', `${ref}^{commit}`, `${ref}^1^{commit}`], { cwd: root });
  const [commit, base] = r.stdout.split('\n');
  if (r.code !== 0 || !commit || !base) {
    const why =
      alt.status === 'running' || alt.status === 'pending' || alt.status === 'waiting'
        ? `it is ${alt.status}; its change is kept once it passes`
        : `it is ${alt.status} and kept no change`;
    return { ok: false, message: `alternative ${index} of ${stepId} has no change to show (${why})` };
  }
  return { ok: true, change: { commit, base, files: await changedFiles(root, base, commit) } };
}
