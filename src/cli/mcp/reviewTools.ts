// The review tools: diff (each step's recorded change, bounded), approve and reject (steps in
// `review`), pick (an alternative of a best-of step waiting on `pick: review`). The work is the
// core's, as `braid diff | approve | reject | pick` do it; with --no-land, approve and pick are
// refused, so an agent can run a plan but only a person lands its changes.
import { z } from 'zod';
import { pickProblem, writePick } from '../../core/engine/records/pickRequest';
import { reviewSteps } from '../../core/engine/review/reviewSteps';
import { stepDiff, stepsWithChanges } from '../../core/engine/review/stepDiff';
import { bounded, ok, refuse, type Answer } from './answer';
import type { McpContext } from './context';
import { runId, stepId } from './runTools';

const MAX_DIFF_BYTES = 200 * 1024;

export const diffInput = {
  run: runId,
  steps: z.array(stepId).optional().describe('Default: every step that recorded a change.'),
  stat: z.boolean().optional().describe('Files and counts only (git diff --stat).'),
};
export const diffOutput = {
  run: z.string(),
  truncated: z.boolean(),
  steps: z.array(
    z.object({ step: z.string(), status: z.string(), diff: z.string().optional(), problem: z.string().optional() }),
  ),
};
export const approveInput = {
  run: runId,
  steps: z.array(stepId).min(1).max(1000).describe('Steps in review whose changes land.'),
};
export const rejectInput = {
  ...approveInput,
  steps: z.array(stepId).min(1).max(1000).describe('Steps in review whose changes never land.'),
  reason: z.string().max(2000).optional(),
};
export const reviewOutput = {
  run: z.string(),
  results: z.array(
    z.object({ step: z.string(), ok: z.boolean(), status: z.string().optional(), message: z.string().optional() }),
  ),
};
export const pickInput = {
  run: runId,
  step: stepId,
  alternative: z.number().int().min(1).max(100).describe('The number of a passed alternative.'),
};
export const pickOutput = { run: z.string(), step: z.string(), alternative: z.number().int() };

const noLand = (what: string): Answer =>
  refuse(
    `${what} is turned off: this Braid MCP server was started with --no-land, so a person lands changes (braid approve RUN STEP, braid pick RUN STEP N, or the Runs view in VS Code)`,
  );

export async function diffTool(
  ctx: McpContext,
  a: { run: string; steps?: string[] | undefined; stat?: boolean | undefined },
): Promise<Answer> {
  await ctx.store.markInterrupted();
  const rec = await ctx.store.load(a.run);
  if (!rec) return refuse(`unknown run ${a.run}`);
  const ids = a.steps ?? stepsWithChanges(rec);
  let left = MAX_DIFF_BYTES;
  let truncated = false;
  const steps = [];
  for (const id of ids) {
    const d = await stepDiff(ctx.workspace, rec, id, { stat: a.stat ?? false, color: false });
    const status = rec.steps[id]?.status ?? 'unknown';
    if (!d.ok) {
      steps.push({ step: id, status, problem: d.message });
      continue;
    }
    const b = bounded(d.text, Math.max(left, 0), 'start');
    left -= Buffer.byteLength(b.text);
    truncated ||= b.truncated;
    steps.push({ step: id, status, diff: b.text });
  }
  return ok({ run: rec.id, truncated, steps });
}

export async function reviewTool(
  ctx: McpContext,
  action: 'approve' | 'reject',
  a: { run: string; steps: string[]; reason?: string | undefined },
): Promise<Answer> {
  if (action === 'approve' && ctx.noLand) return noLand('approve');
  const r = await reviewSteps(ctx.workspace, a.run, {
    action,
    steps: a.steps,
    ...(a.reason !== undefined ? { reason: a.reason } : {}),
  });
  if (!r.ok) return refuse(r.message);
  const results: { step: string; ok: boolean; status?: string; message?: string }[] = r.results.map((o) =>
    o.ok
      ? { step: o.step, ok: true, status: o.status, ...(o.message ? { message: o.message } : {}) }
      : { step: o.step, ok: false, message: o.message },
  );
  // An approval whose merge met a conflict did not land: the caller must hear it as a failure.
  const failed = results.filter((o) => !o.ok || (action === 'approve' && o.status !== 'succeeded'));
  if (failed.length > 0)
    return refuse(failed.map((o) => `${o.step}: ${o.message ?? o.status}`).join('; '), { run: a.run, results });
  return ok({ run: a.run, results });
}

export async function pickTool(
  ctx: McpContext,
  a: { run: string; step: string; alternative: number },
): Promise<Answer> {
  if (ctx.noLand) return noLand('pick');
  await ctx.store.markInterrupted();
  const rec = await ctx.store.load(a.run);
  if (!rec) return refuse(`unknown run ${a.run}`);
  const problem = pickProblem(rec, a.step, a.alternative);
  if (problem) return refuse(problem);
  await writePick(ctx.store.paths(rec.id).dir, a.step, a.alternative);
  return ok({ run: rec.id, step: a.step, alternative: a.alternative });
}
