// `approve | reject | merge | revert` on a run's steps, from anywhere (the CLI, the engine beside a
// window): checked first against the record (unknown run or step, wrong state: nothing is done),
// then carried out by the run's own process while it lives (reviewInbox), else here, under the
// run's review lock so two commands never work on one run at once.
import { join } from 'node:path';
import * as lockfile from 'proper-lockfile';
import { RunStore } from '../records/runStore';
import type { RunRecord } from '../records/runRecord';
import { landFromRecord, rejectInRecord, revertChange, runIsLive, wrongState } from './landRecorded';
import { postToInbox, type ReviewRequest, type StepOutcome } from './reviewInbox';

export type ReviewResult = { ok: true; results: StepOutcome[] } | { ok: false; message: string };

/** Every problem that rules the request out, before anything is done. */
function check(rec: RunRecord, req: ReviewRequest): string | undefined {
  if (req.steps.length === 0) return `name at least one step of run ${rec.id}`;
  const problems = req.steps.map((id) => wrongState(rec, id, req.action)).filter((p): p is string => p !== undefined);
  return problems.length > 0 ? `${problems.join('; ')}; nothing was done` : undefined;
}

/** Carries out the request on the run's steps; an unknown run, step or a wrong state is a message. */
export async function reviewSteps(root: string, runId: string, req: ReviewRequest): Promise<ReviewResult> {
  const store = new RunStore(root);
  await store.markInterrupted();
  const rec = await store.load(runId);
  if (!rec) return { ok: false, message: `unknown run ${runId}` };
  const dir = store.paths(runId).dir;
  if (runIsLive(rec)) {
    // Its process knows the steps' states better than run.json (written a moment later): it checks them.
    const unknown = req.steps.filter((id) => !rec.steps[id]);
    if (unknown.length > 0 || req.steps.length === 0) return { ok: false, message: check(rec, req)! };
    const live = async (): Promise<boolean> => { const now = await store.load(runId); return now !== undefined && runIsLive(now); };
    const posted = await postToInbox(dir, req, live);
    if (posted.ok) return { ok: true, results: posted.results };
    if (posted.reason !== 'gone') return { ok: false, message: posted.message };
    // Gone before it took the request: the run is over, so it is ours to do.
    await store.markInterrupted();
  }
  const problem = check(rec, req);
  if (problem) return { ok: false, message: problem };
  return offline(store, runId, req);
}

async function offline(store: RunStore, runId: string, req: ReviewRequest): Promise<ReviewResult> {
  const dir = store.paths(runId).dir;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dir, { lockfilePath: join(dir, 'review.lock'), realpath: false, stale: 10_000, retries: 0, onCompromised: () => undefined });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw e;
    return { ok: false, message: `another braid command is working on run ${runId}: try again once it is done` };
  }
  try {
    // Read again under the lock: the command before us may have changed it.
    const rec = await store.load(runId);
    if (!rec) return { ok: false, message: `unknown run ${runId}` };
    if (runIsLive(rec)) return { ok: false, message: `run ${runId} was started again meanwhile: try again` };
    const problem = check(rec, req);
    if (problem) return { ok: false, message: problem };
    const results: StepOutcome[] = [];
    for (const id of req.steps) {
      if (req.action === 'reject') results.push(rejectInRecord(rec, id, req.reason));
      else if (req.action === 'revert') results.push(await revertChange(store.root, rec, id));
      else results.push(await landFromRecord(store.root, rec, id));
    }
    const saved = store.save(rec);
    await store.flush();
    await saved;
    return { ok: true, results };
  } finally {
    await release().catch(() => undefined);
  }
}
