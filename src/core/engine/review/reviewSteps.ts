// `approve | reject | merge | revert` on a run's steps, from anywhere (the CLI, the engine beside a
// window): checked first against the record (unknown run or step, wrong state: nothing is done),
// then carried out by the run's own process while it lives (reviewInbox), else here, under the
// run's review lock so two commands never work on one run at once.
import { RunStore } from '../records/runStore';
import { withRunLock } from '../records/runLock';
import type { RunRecord } from '../records/runRecord';
import { landFromRecord, rejectInRecord, revertChange, runIsLive, wrongState } from './landRecorded';
import { postToInbox, type ReviewRequest, type StepOutcome } from './reviewInbox';
import { dependentsNotRun, settleEndedRun } from './afterLanding';
import { claimDecision, decidedMessage, decisionKey, decisionOf, requester, stands } from './decisionClaim';

export type ReviewResult = { ok: true; results: StepOutcome[] } | { ok: false; message: string };

/** Every problem that rules the request out, before anything is done. */
function check(rec: RunRecord, req: ReviewRequest): string | undefined {
  if (req.steps.length === 0) return `name at least one step of run ${rec.id}`;
  const problems = req.steps.map((id) => wrongState(rec, id, req.action)).filter((p): p is string => p !== undefined);
  return problems.length > 0 ? `${problems.join('; ')}; nothing was done` : undefined;
}

/** A decision (approve, reject) already made on a named step's change: who made it, or undefined. */
export async function decidedAlready(runDir: string, rec: RunRecord, req: ReviewRequest): Promise<string | undefined> {
  if (req.action !== 'approve' && req.action !== 'reject') return undefined;
  for (const id of req.steps) {
    const step = rec.steps[id];
    const d = step ? await decisionOf(runDir, decisionKey(step)) : undefined;
    if (d && stands(d, step!.status, req.action)) return decidedMessage(id, d);
  }
  return undefined;
}

/** Carries out the request on the run's steps; an unknown run, step or a wrong state is a message. */
export async function reviewSteps(root: string, runId: string, given: ReviewRequest): Promise<ReviewResult> {
  const req: ReviewRequest = { ...given, by: given.by ?? requester(`braid ${given.action}`) };
  const store = new RunStore(root);
  await store.markInterrupted();
  const rec = await store.load(runId);
  if (!rec) return { ok: false, message: `unknown run ${runId}` };
  const dir = store.paths(runId).dir;
  if (runIsLive(rec)) {
    // Its process knows the steps' states better than run.json (written a moment later): it checks them.
    const unknown = req.steps.filter((id) => !rec.steps[id]);
    if (unknown.length > 0 || req.steps.length === 0) return { ok: false, message: check(rec, req)! };
    const live = async (): Promise<boolean> => {
      const now = await store.load(runId);
      return now !== undefined && runIsLive(now);
    };
    const posted = await postToInbox(dir, req, live);
    if (posted.ok) return { ok: true, results: posted.results };
    if (posted.reason !== 'gone') return { ok: false, message: posted.message };
    // Gone before it took the request: the run is over, so it is ours to do.
    await store.markInterrupted();
  }
  const problem = (await decidedAlready(dir, rec, req)) ?? check(rec, req);
  if (problem) return { ok: false, message: problem };
  return offline(store, runId, req);
}

async function offline(store: RunStore, runId: string, req: ReviewRequest): Promise<ReviewResult> {
  const dir = store.paths(runId).dir;
  const locked = await withRunLock(dir, async (): Promise<ReviewResult> => {
    // Read again under the lock: the command before us may have changed it.
    const rec = await store.load(runId);
    if (!rec) return { ok: false, message: `unknown run ${runId}` };
    if (runIsLive(rec)) return { ok: false, message: `run ${runId} was started again meanwhile: try again` };
    const problem = (await decidedAlready(dir, rec, req)) ?? check(rec, req);
    if (problem) return { ok: false, message: problem };
    const results: StepOutcome[] = [];
    for (const id of req.steps) {
      if (req.action === 'revert') {
        results.push(await revertChange(store.root, rec, id));
        continue;
      }
      if (req.action === 'merge') {
        results.push(withDependents(rec, await landFromRecord(store.root, rec, id)));
        continue;
      }
      // The run's own process may have decided this change before it ended: one decision a change.
      const claim = await claimDecision(dir, decisionKey(rec.steps[id]!), {
        action: req.action,
        by: req.by!,
        at: new Date().toISOString(),
      });
      // A claim that does not stand (its claimant died before recording it) is completed, not taken again.
      if (!claim.ok && stands(claim.decided, rec.steps[id]!.status, req.action)) {
        results.push({ step: id, ok: false, message: decidedMessage(id, claim.decided) });
        continue;
      }
      const o =
        req.action === 'reject'
          ? rejectInRecord(rec, id, req.reason)
          : withDependents(rec, await landFromRecord(store.root, rec, id));
      if (!o.ok && claim.ok) await claim.release(); // nothing was done (its paths locked, its change gone): not decided
      results.push(o);
    }
    settleEndedRun(rec);
    const saved = store.save(rec);
    await store.flush();
    await saved;
    return { ok: true, results };
  });
  return locked.ok
    ? locked.value
    : { ok: false, message: `another braid command is working on run ${runId}: try again once it is done` };
}

/** A change that landed on the ended run: the dependents it blocked, which have not run. */
function withDependents(rec: RunRecord, o: StepOutcome): StepOutcome {
  if (!o.ok || o.status !== 'succeeded') return o;
  const waiting = dependentsNotRun(rec, o.step);
  return waiting.length > 0 ? { ...o, dependents: waiting } : o;
}
