// Plan file → validated, expanded Graph, as a composition of phases: load (YAML with ranges) →
// schema (zod: types and located issues) → expand (matrix, needs globs) → validate (graph checks)
// → templates and concurrency warnings → Graph (critical path). Every problem comes back at once,
// located; a Graph only when there is no error.
import { close, open, read, readFile, stat, type Stats } from 'node:fs';
import type { AgentPermission } from '../agents/permission';
import type { AgentOverrides } from './agentTable';
import { checkAgentInputs } from './agentInputChecks';
import { candidates, warnConcurrency } from './concurrencyWarnings';
import { modelPlan } from './expand';
import { buildGraph, planNameOf } from './graph';
import { loadPlan, type LoadedPlan } from './load';
import { reachability, slowReach } from './reachability';
import { joinDiagnostics, reporter, tidy } from './reporter';
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
  /**
   * Check with zod's interpreter, not the parsers it generates per schema (`new Function`): a
   * process that checks one plan and exits (the CLI) pays ~3 ms to generate code it runs once; one
   * that checks plans again and again (the language service, the engine) keeps them.
   */
  jitless?: boolean;
}
export interface CompileResult {
  graph?: Graph;
  diagnostics: Diagnostic[];
}

/**
 * Largest plan file read, in bytes. A 10,000-step plan (MAX_PLAN_STEPS) with long prompts is about
 * 5 MB; validation runs as the user types, and time and memory grow with the text.
 */
export const MAX_PLAN_BYTES = 5_000_000;

/** The problem for text past MAX_PLAN_BYTES: at the line where the limit is crossed. */
function tooLarge(file: string, text: string, bytes: number): Diagnostic {
  // The cap counts UTF-8 bytes: the text up to it (a character cut in two ends it).
  const upTo = Buffer.from(text.slice(0, MAX_PLAN_BYTES + 1), 'utf8')
    .subarray(0, MAX_PLAN_BYTES)
    .toString('utf8');
  const lines = upTo.split('\n');
  const line = lines.length - 1,
    column = Math.max(0, lines[line]!.replace(/\uFFFD$/, '').length);
  const mb = (n: number) => `${(n / 1_000_000).toFixed(1)} MB`;
  return {
    file,
    severity: 'error',
    code: 'plan-size',
    range: { start: { line, column }, end: { line, column } },
    message: `the plan is ${mb(bytes)}; a plan file may be at most ${mb(MAX_PLAN_BYTES)} (this is where it passes that)`,
  };
}

// node:fs's callbacks rather than node:fs/promises: loading that module was ~4 ms of the
// `braid validate` start, which needs nothing else from it (issue 35, docs/decisions/cli-start.md).
const call = <T>(f: (done: (e: Error | null, v?: T) => void) => void): Promise<T> =>
  new Promise((ok, fail) => f((e, v) => (e ? fail(e) : ok(v as T))));

/**
 * compilePlanFile's options: `isGit` may be a promise of it, awaited once the file is read, parsed
 * and checked against the schema (`braid validate` asks git meanwhile).
 */
export type FileCompileOptions = Omit<CompileOptions, 'isGit'> & { isGit?: boolean | Promise<boolean> };

/** Reads and compiles a plan file; an unreadable file is a diagnostic. */
export async function compilePlanFile(path: string, opts: FileCompileOptions = {}): Promise<CompileResult> {
  let text: string;
  try {
    // A file far past the cap is not read whole: the problem needs only the text up to the cap.
    const { size } = await call<Stats>((done) => stat(path, done));
    if (size > MAX_PLAN_BYTES) {
      const fd = await call<number>((done) => open(path, 'r', done));
      try {
        const buf = Buffer.alloc(MAX_PLAN_BYTES + 4);
        const bytesRead = await call<number>((done) => read(fd, buf, 0, buf.length, 0, done));
        return { diagnostics: [tooLarge(path, buf.subarray(0, bytesRead).toString('utf8'), size)] };
      } finally {
        await call<undefined>((done) => close(fd, done));
      }
    }
    text = await call<string>((done) => readFile(path, 'utf8', done));
  } catch (e) {
    return {
      diagnostics: [
        {
          file: path,
          range: { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } },
          severity: 'error',
          code: 'unreadable',
          message: `cannot read plan: ${(e as Error).message}`,
        },
      ],
    };
  }
  const checked = checkPlan(path, text, opts.jitless === true);
  if ('done' in checked) return checked.done;
  const { isGit, ...rest } = opts;
  const git = await isGit;
  return expandPlan(path, checked, { ...rest, ...(git !== undefined ? { isGit: git } : {}) });
}

/** Validates and expands a plan's text. */
export function compilePlan(file: string, text: string, opts: CompileOptions = {}): CompileResult {
  const checked = checkPlan(file, text, opts.jitless === true);
  return 'done' in checked ? checked.done : expandPlan(file, checked, opts);
}

/** The phases that need no options but `jitless`: size, YAML, schema (or the result, when that ends it). */
function checkPlan(
  file: string,
  text: string,
  jitless: boolean,
): { done: CompileResult } | { lp: LoadedPlan; schema: ReturnType<typeof checkSchema> } {
  // Bytes are at least the characters and at most three times as many (UTF-16 to UTF-8).
  if (text.length * 3 > MAX_PLAN_BYTES) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_PLAN_BYTES) return { done: { diagnostics: [tooLarge(file, text, bytes)] } };
  }
  const lp = loadPlan(file, text);
  if (lp.value === undefined && lp.diagnostics.some((d) => d.severity === 'error'))
    return { done: { diagnostics: tidy(lp.diagnostics) } };
  return { lp, schema: checkSchema(lp, jitless) };
}

/** The rest: expansion, graph and template checks, warnings, the Graph. */
function expandPlan(
  file: string,
  { lp, schema }: { lp: LoadedPlan; schema: ReturnType<typeof checkSchema> },
  opts: CompileOptions,
): CompileResult {
  const diags = joinDiagnostics(lp.diagnostics, schema.diagnostics);
  const report = reporter(lp, diags);
  const model = modelPlan(schema.plan, planNameOf(file, schema.plan.top.name), opts);
  const { order } = validateGraph(model, opts, report);
  const queries = checkTemplates(model, report);
  checkAgentInputs(model, report);
  checkNotify(schema.plan.top.notify, report);
  if (order) {
    const pairs = candidates(model, schema.plan.top.concurrency);
    // Only the steps some check will ask about get a bit in the index, so it stays small.
    const asked = [
      ...queries.map((q) => q.ancestor),
      ...pairs.writers.map((s) => s.id),
      ...pairs.unlocked.map((s) => s.id),
    ];
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
