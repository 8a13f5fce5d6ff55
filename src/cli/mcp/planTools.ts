// The plan tools: validate_plan (text or file → problems with line and column), write_plan (writes
// a plan file only when it is valid) and run_plan (starts a run in the workspace's engine and
// answers with its id at once; the caller polls run_status).
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isGitWorkspace } from '../../core/engine/runPlan';
import { compilePlan, compilePlanFile, type CompileResult } from '../../core/plan/compile';
import type { Graph } from '../../core/plan/types';
import { EngineRequestError } from '../../extension/engine/engineClient';
import { ok, refuse, type Answer } from './answer';
import type { McpContext } from './context';
import { problemLines, problemOf, problemSchema, type Problem } from './problems';

const PLAN_FILE = /\.braid\.(ya?ml|json)$/;
// A plan an agent writes is small; past this it is a mistake or an attack on the disk.
const MAX_PLAN_BYTES = 1024 * 1024;
const stepId = z.string().min(1).max(200);

export const validateInput = {
  text: z
    .string()
    .max(MAX_PLAN_BYTES)
    .optional()
    .describe("The plan's YAML (or JSON) text. Give text or file, not both."),
  file: z.string().min(1).optional().describe('A plan file, relative to the workspace.'),
};
export const validateOutput = {
  valid: z.boolean(),
  file: z.string(),
  steps: z.number().int(),
  problems: z.array(problemSchema),
};

export const writeInput = {
  file: z
    .string()
    .min(1)
    .describe('Where to write it, relative to the workspace; must end in .braid.yaml, .braid.yml or .braid.json.'),
  text: z.string().max(MAX_PLAN_BYTES).describe("The plan's text."),
  overwrite: z.boolean().optional().describe('Replace an existing file (default: refuse).'),
};
export const writeOutput = { file: z.string(), steps: z.number().int(), problems: z.array(problemSchema) };

export const runInput = {
  file: z.string().min(1).describe('The plan file, relative to the workspace.'),
  only: z.array(stepId).optional().describe('Run only these steps and what they need.'),
  from: stepId.optional().describe('Run this step and everything that depends on it.'),
  concurrency: z.number().int().min(1).max(256).optional().describe('Most steps at once (overrides the plan).'),
};
export const runOutput = {
  run: z.string(),
  file: z.string(),
  steps: z.number().int(),
  landsWithoutReview: z.array(z.string()),
};

async function compileAt(ctx: McpContext, abs: string, text?: string): Promise<CompileResult> {
  const opts = { isGit: await isGitWorkspace(ctx.workspace) };
  return text === undefined ? compilePlanFile(abs, opts) : compilePlan(abs, text, opts);
}

const problemsOf = (ctx: McpContext, r: CompileResult): Problem[] => r.diagnostics.map((d) => problemOf(d, ctx.shown));
const outside = (ctx: McpContext, path: string): Answer =>
  refuse(`${path} is outside the workspace ${ctx.workspace}: Braid's MCP tools read and write only inside it`);

export async function validatePlanTool(
  ctx: McpContext,
  a: { text?: string | undefined; file?: string | undefined },
): Promise<Answer> {
  if ((a.text === undefined) === (a.file === undefined))
    return refuse('give the plan as text or as a file, one of the two');
  // Text is checked as if it were a plan file at the workspace's root (relative paths in it resolve there).
  const abs = a.file === undefined ? join(ctx.workspace, 'plan.braid.yaml') : ctx.inside(a.file);
  if (!abs) return outside(ctx, a.file!);
  const r = await compileAt(ctx, abs, a.text);
  const problems = problemsOf(ctx, r);
  return ok({ valid: r.graph !== undefined, file: ctx.shown(abs), steps: r.graph?.order.length ?? 0, problems });
}

export async function writePlanTool(
  ctx: McpContext,
  a: { file: string; text: string; overwrite?: boolean | undefined },
): Promise<Answer> {
  if (!PLAN_FILE.test(a.file))
    return refuse(`write_plan writes plan files only: ${a.file} must end in .braid.yaml, .braid.yml or .braid.json`);
  const abs = ctx.inside(a.file);
  if (!abs) return outside(ctx, a.file);
  const r = await compileAt(ctx, abs, a.text);
  const problems = problemsOf(ctx, r);
  if (!r.graph)
    return refuse(
      `the plan is not valid; nothing was written:\n${problemLines(problems.filter((p) => p.severity === 'error'))}`,
      { file: ctx.shown(abs), problems },
    );
  const existing = await stat(abs).catch(() => undefined);
  if (existing?.isDirectory()) return refuse(`${ctx.shown(abs)} is a folder`);
  if (existing && !a.overwrite) return refuse(`${ctx.shown(abs)} exists; pass overwrite: true to replace it`);
  await mkdir(dirname(abs), { recursive: true });
  // Whole or not at all: an editor or a run reading it never sees half a plan.
  const tmp = `${abs}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, a.text, { flag: 'wx' });
  await rename(tmp, abs);
  return ok({ file: ctx.shown(abs), steps: r.graph.order.length, problems });
}

/** Steps whose change merges into the workspace when they succeed, with no one asked (no `review: true`). */
function landsWithoutReview(g: Graph): string[] {
  return g.order.filter((id) => {
    const s = g.steps.get(id)!;
    return s.isolation === 'worktree' && !s.review;
  });
}

export async function runPlanTool(
  ctx: McpContext,
  a: { file: string; only?: string[] | undefined; from?: string | undefined; concurrency?: number | undefined },
): Promise<Answer> {
  const abs = ctx.inside(a.file);
  if (!abs) return outside(ctx, a.file);
  // Checked here too, so the problems come back located and the engine is not started for nothing.
  const r = await compileAt(ctx, abs);
  if (!r.graph) {
    const problems = problemsOf(ctx, r);
    return refuse(
      `the plan is not valid; no run was started:\n${problemLines(problems.filter((p) => p.severity === 'error'))}`,
      { file: ctx.shown(abs), problems },
    );
  }
  try {
    const { runId } = await (
      await ctx.engine()
    ).run({
      planFile: abs,
      ...(a.only ? { only: a.only } : {}),
      ...(a.from ? { from: a.from } : {}),
      ...(a.concurrency ? { concurrency: a.concurrency } : {}),
    });
    return ok({
      run: runId,
      file: ctx.shown(abs),
      steps: r.graph.order.length,
      landsWithoutReview: landsWithoutReview(r.graph),
    });
  } catch (e) {
    if (!(e instanceof EngineRequestError)) throw e;
    const problems = e.diagnostics.map((d) => problemOf(d, ctx.shown));
    return refuse(`no run was started: ${e.message}`, problems.length > 0 ? { problems } : undefined);
  }
}
