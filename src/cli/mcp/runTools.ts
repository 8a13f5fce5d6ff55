// The run tools: run_status (each step's status, why, attempts and cost, from the run's record),
// step_log (the end of a step's log, bounded), retry and cancel (through the workspace's engine).
import { open } from 'node:fs/promises';
import { z } from 'zod';
import { runIsLive } from '../../core/engine/review/landRecorded';
import type { RunRecord } from '../../core/engine/records/runRecord';
import { endSentence, TERMINAL, type StepStatus } from '../../core/status';
import { EngineRequestError } from '../../extension/engine/engineClient';
import { bounded, ok, refuse, type Answer } from './answer';
import type { McpContext } from './context';

export const runId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'not a run id')
  .describe('A run id, as run_plan answered it.');
export const stepId = z.string().min(1).max(200).describe("A step id (a matrix instance's own id, e.g. build-linux).");

const MAX_LOG_BYTES = 64 * 1024;
const DEFAULT_LOG_LINES = 200;

export const statusInput = { run: runId.optional().describe('The run; default: the newest run in the workspace.') };
const stepSchema = z.object({
  id: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  attempts: z.number().int(),
  costUsd: z.number().optional(),
  durationMs: z.number().optional(),
  changedFiles: z.number().int().optional(),
});
export const statusOutput = {
  run: z.string(),
  plan: z.string(),
  file: z.string(),
  status: z.string(),
  ended: z.boolean(),
  costUsd: z.number().optional(),
  counts: z.record(z.string(), z.number()),
  steps: z.array(stepSchema),
};

export const logInput = {
  run: runId,
  step: stepId,
  lines: z
    .number()
    .int()
    .min(1)
    .max(5000)
    .optional()
    .describe(`How many lines from the end (default ${DEFAULT_LOG_LINES}); at most 64 KiB come back.`),
};
export const logOutput = {
  run: z.string(),
  step: z.string(),
  status: z.string(),
  text: z.string(),
  truncated: z.boolean(),
  bytes: z.number().int(),
};

export const retryInput = {
  run: runId,
  steps: z
    .array(stepId)
    .optional()
    .describe('Steps to run again (default: every failed, canceled, skipped or interrupted one) and what they block.'),
  resume: z.boolean().optional().describe('Agent steps continue their last session instead of starting over.'),
};
export const retryOutput = { run: z.string() };
export const cancelInput = { run: runId, step: stepId.optional().describe('One step; default: the whole run.') };
export const cancelOutput = { run: z.string(), step: z.string().optional(), canceled: z.boolean() };

async function record(ctx: McpContext, id: string | undefined): Promise<RunRecord | Answer> {
  // A run whose process died reads `running` until someone notices: as every reader of runs does.
  await ctx.store.markInterrupted();
  const rec = id === undefined ? await ctx.store.latest() : await ctx.store.load(id);
  if (!rec) return refuse(id === undefined ? 'no runs in this workspace yet' : `unknown run ${id}`);
  return rec;
}
const isAnswer = (x: RunRecord | Answer): x is Answer => 'ok' in x;

export async function runStatusTool(ctx: McpContext, a: { run?: string | undefined }): Promise<Answer> {
  const rec = await record(ctx, a.run);
  if (isAnswer(rec)) return rec;
  const counts: Record<string, number> = {};
  const steps = rec.graph.steps.map(({ id }) => {
    const s = rec.steps[id];
    const status = s?.status ?? 'pending';
    counts[status] = (counts[status] ?? 0) + 1;
    const why = s ? endSentence(s) : undefined;
    return {
      id,
      status,
      ...(s?.reason ? { reason: s.reason } : {}),
      ...(why ? { message: why } : {}),
      attempts: s?.attempts.length ?? 0,
      ...(s?.costUsd !== undefined ? { costUsd: s.costUsd } : {}),
      ...(s?.durationMs !== undefined ? { durationMs: s.durationMs } : {}),
      ...(s?.changes ? { changedFiles: s.changes.files.length } : {}),
    };
  });
  return ok({
    run: rec.id,
    plan: rec.planName,
    file: ctx.shown(rec.planFile),
    status: rec.status,
    ended: rec.status !== 'running',
    ...(rec.costUsd !== undefined ? { costUsd: rec.costUsd } : {}),
    counts,
    steps,
  });
}

/** The last `max` bytes of a file (the whole when smaller), and its size; undefined when it is missing. */
async function tail(path: string, max: number): Promise<{ text: string; size: number } | undefined> {
  const fh = await open(path, 'r').catch(() => undefined);
  if (!fh) return undefined;
  try {
    const { size } = await fh.stat();
    const length = Math.min(size, max);
    const buf = Buffer.alloc(length);
    await fh.read(buf, 0, length, size - length);
    return { text: buf.toString('utf8'), size };
  } finally {
    await fh.close();
  }
}

export async function stepLogTool(
  ctx: McpContext,
  a: { run: string; step: string; lines?: number | undefined },
): Promise<Answer> {
  const rec = await record(ctx, a.run);
  if (isAnswer(rec)) return rec;
  const step = rec.steps[a.step];
  if (!step && !rec.graph.steps.some((s) => s.id === a.step)) return refuse(`run ${rec.id} has no step ${a.step}`);
  let path: string;
  try {
    path = ctx.store.paths(rec.id).log(a.step);
  } catch {
    return refuse(`not a step id: ${a.step}`);
  }
  const t = await tail(path, MAX_LOG_BYTES);
  const status: StepStatus | 'pending' = step?.status ?? 'pending';
  if (!t) return ok({ run: rec.id, step: a.step, status, text: '', truncated: false, bytes: 0 });
  const lines = t.text.split('\n');
  // A log ends with a newline: the empty piece after it is no line.
  if (lines.at(-1) === '') lines.pop();
  const want = a.lines ?? DEFAULT_LOG_LINES;
  const kept = lines.slice(-want).join('\n');
  const b = bounded(kept, MAX_LOG_BYTES, 'end');
  return ok({
    run: rec.id,
    step: a.step,
    status,
    text: b.text,
    truncated: b.truncated || lines.length > want || t.size > MAX_LOG_BYTES,
    bytes: t.size,
  });
}

export async function retryTool(
  ctx: McpContext,
  a: { run: string; steps?: string[] | undefined; resume?: boolean | undefined },
): Promise<Answer> {
  const rec = await record(ctx, a.run);
  if (isAnswer(rec)) return rec;
  try {
    const { runId: id } = await (
      await ctx.engine()
    ).retry({ runId: rec.id, ...(a.steps ? { steps: a.steps } : {}), ...(a.resume ? { resume: true } : {}) });
    return ok({ run: id });
  } catch (e) {
    if (e instanceof EngineRequestError) return refuse(`run ${rec.id} was not retried: ${e.message}`);
    throw e;
  }
}

export async function cancelTool(ctx: McpContext, a: { run: string; step?: string | undefined }): Promise<Answer> {
  const rec = await record(ctx, a.run);
  if (isAnswer(rec)) return rec;
  if (a.step !== undefined) {
    const s = rec.steps[a.step];
    if (!s) return refuse(`run ${rec.id} has no step ${a.step}`);
    if (TERMINAL.has(s.status)) return refuse(`step ${a.step} is ${s.status}: nothing to cancel`);
  }
  if (!runIsLive(rec)) return refuse(`run ${rec.id} is ${rec.status}: nothing to cancel`);
  const engine = await ctx.engine();
  const { active } = await engine.listRuns();
  if (!active.includes(rec.id)) {
    // Run by a `braid run` in a terminal: its own Ctrl-C cancels it, and no one else's signal should.
    return refuse(
      `run ${rec.id} is run by another braid process (pid ${rec.host.pid}, a \`braid run\`): cancel it there`,
    );
  }
  try {
    if (a.step === undefined) await engine.cancelRun(rec.id);
    else await engine.cancelStep(rec.id, a.step);
  } catch (e) {
    if (e instanceof EngineRequestError) return refuse(`run ${rec.id}: ${e.message}`);
    throw e;
  }
  return ok({ run: rec.id, ...(a.step !== undefined ? { step: a.step } : {}), canceled: true });
}
