// Plan file → validated, expanded Graph, as a composition of phases: load (YAML with ranges) →
// schema (zod: types and located issues) → expand (matrix, needs globs) → validate (graph checks)
// → templates and concurrency warnings → Graph (critical path). Every problem comes back at once,
// located; a Graph only when there is no error.
import { readFile } from 'node:fs/promises';
import type { AgentPermission } from '../agents/permission';
import type { AgentOverrides } from './agentTable';
import { checkAgentInputs } from './agentInputChecks';
import { candidates, warnConcurrency } from './concurrencyWarnings';
import { modelPlan } from './expand';
import { buildGraph, planNameOf } from './graph';
import { loadPlan } from './load';
import { reachability, slowReach } from './reachability';
import { reporter, tidy } from './reporter';
import { checkNotify } from './notifyChecks';
import { checkSchema } from './schemaCheck';
import { checkStepRefs, checkTemplates } from './templateChecks';
import type { Diagnostic, Graph, Isolation } from './types';
import { validateGraph } from './validate';

export { planJsonSchema, planSchema } from './schema';

export interface CompileOptions {
  isGit?: boolean;
  agentOverrides?: AgentOverrides;
  defaultIsolation?: Isolation;
  /**
   * What the presets' CLIs may do unasked (their permission flags); default `edit`. A command
   * replaced by a setting or the plan's `agents:` carries its own flags instead.
   */
  permission?: AgentPermission;
}
export interface CompileResult { graph?: Graph; diagnostics: Diagnostic[] }

/** Reads and compiles a plan file; an unreadable file is a diagnostic. */
export async function compilePlanFile(path: string, opts?: CompileOptions): Promise<CompileResult> {
  let text: string;
  try { text = await readFile(path, 'utf8'); } catch (e) {
    return { diagnostics: [{ file: path, range: { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } }, severity: 'error', code: 'unreadable', message: `cannot read plan: ${(e as Error).message}` }] };
  }
  return compilePlan(path, text, opts);
}

/** Validates and expands a plan's text. */
export function compilePlan(file: string, text: string, opts: CompileOptions = {}): CompileResult {
  const lp = loadPlan(file, text);
  if (lp.value === undefined && lp.diagnostics.some((d) => d.severity === 'error')) return { diagnostics: tidy(lp.diagnostics) };
  const schema = checkSchema(lp);
  const diags = [...lp.diagnostics, ...schema.diagnostics];
  const report = reporter(lp, diags);
  const model = modelPlan(schema.plan, planNameOf(file, schema.plan.top.name), opts);
  const { order } = validateGraph(model, opts, report);
  const queries = checkTemplates(model, report);
  checkAgentInputs(model, report);
  checkNotify(schema.plan.top.notify, report);
  if (order) {
    const pairs = candidates(model, schema.plan.top.concurrency);
    // Only the steps some check will ask about get a bit in the index, so it stays small.
    const asked = [...queries.map((q) => q.ancestor), ...pairs.writers.map((s) => s.id), ...pairs.unlocked.map((s) => s.id)];
    const reach = reachability(order, model.needs, asked);
    checkStepRefs(queries, reach);
    warnConcurrency(pairs, reach, report);
  } else {
    // A cycle is already an error; the template references are still worth checking, by search.
    checkStepRefs(queries, slowReach(model.needs));
  }
  const diagnostics = tidy(diags);
  if (!order || !schema.plan.complete || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  return { graph: buildGraph(lp, model, order), diagnostics };
}
