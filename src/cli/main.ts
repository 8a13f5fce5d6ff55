// The `braid` command (cli.md): validate, graph, run, status, retry, logs, clean, pick, plan, export.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_PERMISSIONS, type AgentPermission } from '../core/agents/presets';
import { cleanRun } from '../core/engine/isolation/cleanRun';
import { missingAgents } from '../core/engine/steps/missingAgents';
import { runPlan, type RunOutcome } from '../core/engine/runPlan';
import { selectSteps, unknownSteps, type Selection } from '../core/engine/scheduling/selection';
import { pickProblem, writePick } from '../core/engine/records/pickRequest';
import { RunStore } from '../core/engine/records/runStore';
import type { EngineEvent, StepStatus } from '../core/engine/types';
import { compilePlanFile, type CompileOptions } from '../core/plan/compile';
import { toDot, toJson } from '../core/plan/formats';
import { toMermaid } from '../core/plan/mermaid';
import type { Diagnostic, GraphStep } from '../core/plan/types';
import { EXPORT_HELP, exportCommand } from './exportCommand';
import { PLAN_HELP, planCommand } from './planCommand';
import { serve } from './serve';
import { HumanView } from './view';
import { workspaceForCwd, workspaceForPlan } from './workspace';

const HELP = `braid — run a plan of agent and shell steps in parallel

usage:
  braid validate FILE...                       check plans (FILE:LINE:COL: error: MESSAGE)
  braid graph FILE [--format mermaid|json|dot] print the expanded DAG
  braid run FILE [options]                     run a plan
      --concurrency N   most steps at once (overrides the plan)
      --only STEP...    those steps and what they need
      --from STEP       that step and all that depend on it
      --json            events on stdout, one JSON object a line
      --dry-run         print the schedule and the agent commands, run nothing
      --permission P    what agent CLIs may do unasked: read-only, edit (default) or full
      --workspace DIR   where runs are recorded (default: the plan's git root, else its folder)
  braid status [RUN-ID] [--json]               the last (or named) run's steps
  braid retry RUN-ID [STEP...] [--json] [--concurrency N] [--resume] [--permission P]
                                               re-run failed/canceled/skipped steps and what they block
                                               (--resume: agent steps continue their last session)
  braid logs RUN-ID STEP                       a step's log, every attempt (best-of: each alternative's)
  braid clean RUN-ID                           remove a run's kept worktrees and branches
  braid pick RUN-ID STEP N                     land alternative N of a best-of step waiting on pick: review
${PLAN_HELP}${EXPORT_HELP}
exit codes: 0 success · 1 failed steps or problems · 2 usage, invalid plan or missing agent CLI · 130 interrupted
`;

class Usage extends Error {}

const isPermission = (v: string): v is AgentPermission => (AGENT_PERMISSIONS as readonly string[]).includes(v);

const out = (s: string) => process.stdout.write(s);
const err = (s: string) => process.stderr.write(s);

function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.range.start.line + 1}:${d.range.start.column + 1}: ${d.severity}: ${d.message}\n`;
}

async function validate(files: string[]): Promise<number> {
  if (files.length === 0) throw new Usage('validate needs at least one FILE');
  let problems = 0;
  for (const f of files) {
    const r = await compilePlanFile(f, { isGit: true });
    for (const d of r.diagnostics) (d.severity === 'error' ? out : err)(formatDiagnostic(d));
    problems += r.diagnostics.filter((d) => d.severity === 'error').length;
  }
  if (problems === 0) err(`${files.length} plan${files.length > 1 ? 's' : ''} valid\n`);
  return problems > 0 ? 1 : 0;
}

async function graph(file: string | undefined, format: string): Promise<number> {
  if (!file) throw new Usage('graph needs a FILE');
  if (!['mermaid', 'json', 'dot'].includes(format)) throw new Usage(`--format must be mermaid, json or dot, got ${format}`);
  const r = await compilePlanFile(file, { isGit: true });
  if (!r.graph) { for (const d of r.diagnostics) err(formatDiagnostic(d)); return 2; }
  out(format === 'json' ? JSON.stringify(toJson(r.graph), null, 2) + '\n' : format === 'dot' ? toDot(r.graph) : toMermaid(r.graph).text + '\n');
  return 0;
}

function finish(outcome: RunOutcome, json: boolean, view?: HumanView): number {
  if (!outcome.ok) {
    if (outcome.usage) { err(`braid: ${outcome.usage}\n`); return 2; }
    for (const d of outcome.diagnostics) err(formatDiagnostic(d));
    return 2;
  }
  if (!json) view?.summary(outcome.result, Object.keys(outcome.record.steps));
  if (outcome.result.status === 'canceled') return 130;
  return outcome.result.status === 'succeeded' ? 0 : 1;
}

async function run(args: string[], retry = false): Promise<number> {
  const { values, positionals: given } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      concurrency: { type: 'string' }, only: { type: 'string', multiple: true }, from: { type: 'string' },
      json: { type: 'boolean', default: false }, 'dry-run': { type: 'boolean', default: false }, workspace: { type: 'string' },
      resume: { type: 'boolean', default: false }, permission: { type: 'string' },
    },
  });
  const permission = values.permission;
  if (permission !== undefined && !isPermission(permission)) {
    throw new Usage(`--permission must be one of ${AGENT_PERMISSIONS.join(', ')}, got ${permission}`);
  }
  const compile: CompileOptions = { isGit: true, ...(permission ? { permission } : {}) };
  // `retry RUN-ID [STEP...]`: the run id is the first positional, wherever the options stand.
  const retryId = retry ? given[0] : undefined;
  const positionals = retry ? given.slice(1) : given;
  if (retry && !retryId) throw new Usage('retry needs a RUN-ID');
  let concurrency: number | undefined;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Usage(`--concurrency must be an integer ≥ 1, got ${values.concurrency}`);
  }
  let planFile: string;
  let workspace: string;
  let steps: string[] = [];
  if (retryId) {
    workspace = workspaceForCwd(values.workspace);
    const rec = await new RunStore(workspace).load(retryId);
    if (!rec) { err(`braid: unknown run ${retryId}\n`); return 1; }
    planFile = rec.planFile;
    steps = positionals;
  } else {
    if (positionals.length !== 1) throw new Usage('run needs exactly one FILE');
    planFile = resolve(positionals[0]!);
    workspace = workspaceForPlan(planFile, values.workspace);
  }
  // --only accepts `--only a b c` as well as repeated flags.
  const only = values.only ? [...values.only, ...(retryId ? [] : [])] : undefined;
  if (values['dry-run']) {
    const selection: Selection = retryId
      ? { retry: { previous: await retryStatuses(workspace, retryId), ...(steps.length > 0 ? { steps } : {}) } }
      : { ...(only ? { only } : {}), ...(values.from ? { from: values.from } : {}) };
    return dryRun(planFile, workspace, values.json, compile, selection);
  }
  const json = values.json;
  const fancy = !json && process.stdout.isTTY === true && !process.env.NO_COLOR;
  const view = json ? undefined : new HumanView(process.stdout, fancy);
  const ac = new AbortController();
  let interrupted = false;
  const onSignal = () => { if (interrupted) process.exit(130); interrupted = true; err('\nbraid: canceling…\n'); ac.abort(); };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const onEvent = (e: EngineEvent) => (json ? out(JSON.stringify(e) + '\n') : view!.on(e));
  const outcome = await runPlan({
    planFile, workspace, signal: ac.signal, onEvent, compile,
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(only ? { only } : {}), ...(values.from ? { from: values.from } : {}),
    ...(retryId ? { retry: { runId: retryId, steps }, resume: values.resume } : {}),
    // No onBudget: at the plan's max-cost-usd the CLI stops (running steps finish, the rest are canceled).
  });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return interrupted ? (finish(outcome, json, view), 130) : finish(outcome, json, view);
}

async function dryRun(planFile: string, workspace: string, json: boolean, compile: CompileOptions, selection: Selection): Promise<number> {
  const r = await compilePlanFile(planFile, compile);
  if (!r.graph) { for (const d of r.diagnostics) err(formatDiagnostic(d)); return 2; }
  const g = r.graph;
  const named = [...(selection.only ?? []), ...(selection.from ? [selection.from] : []), ...(selection.retry?.steps ?? [])];
  const unknown = unknownSteps(g, named);
  if (unknown.length > 0) throw new Usage(`unknown step${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  // What `run` would refuse, the dry run reports too (and fails the same way).
  const missing = missingAgents(g, selectSteps(g, selection), workspace, process.env);
  for (const d of missing) err(formatDiagnostic(d));
  const code = missing.length > 0 ? 2 : 0;
  if (json) { out(JSON.stringify(toJson(g)) + '\n'); return code; }
  out(`would run ${g.order.length} steps of ${g.plan.name} (concurrency ${g.plan.concurrency ?? 4}), longest paths first:\n`);
  for (const id of g.order) {
    const s = g.steps.get(id)!;
    out(`  ${id}${s.needs.length ? ` after ${s.needs.join(', ')}` : ''}${s.writes.length ? ` · writes ${s.writes.join(' ')}` : ''}\n`);
    if (s.bestOf) out(alternativesLine(s));
  }
  // The agents' commands, so the permission flags a run would pass are visible before it.
  const used = [...new Set(g.order.flatMap((id) => {
    const s = g.steps.get(id)!;
    return [s.agent, ...(s.bestOf?.alternatives.map((a) => a.agent) ?? [])];
  }).filter((a): a is string => a !== undefined))];
  if (used.length > 0) out('agents:\n');
  for (const name of used) out(`  ${name}: ${g.agents[name]!.command.join(' ')}\n`);
  return code;
}

/** `    best-of 3 (pick first, one slot each): 1 · claude, 2 · codex --model o3, 3 · gemini` */
function alternativesLine(s: GraphStep): string {
  const b = s.bestOf!;
  const parts = b.alternatives.map((a) => {
    const what = [a.agent ?? s.agent, a.model !== undefined ? `--model ${a.model}` : undefined, a.prompt !== undefined ? 'own prompt' : undefined,
      ...Object.entries(a.env).map(([k, v]) => `${k}=${v}`)].filter((x) => x !== undefined);
    return what.length > 0 ? `${a.index} · ${what.join(' ')}` : `${a.index}`;
  });
  return `    best-of ${b.alternatives.length} (pick ${b.pick}, one slot each): ${parts.join(', ')}\n`;
}

async function retryStatuses(workspace: string, runId: string): Promise<Map<string, StepStatus>> {
  const rec = await new RunStore(workspace).load(runId);
  return new Map(Object.values(rec?.steps ?? {}).map((s) => [s.id, s.status] as const));
}

async function status(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false }, workspace: { type: 'string' } } });
  const store = new RunStore(workspaceForCwd(values.workspace));
  await store.markInterrupted();
  const id = positionals[0] ?? (await store.latest())?.id;
  const rec = id ? await store.load(id) : undefined;
  if (!rec) { err(id ? `braid: unknown run ${id}\n` : 'braid: no runs here\n'); return 1; }
  if (values.json) { out(JSON.stringify({ id: rec.id, plan: rec.planName, status: rec.status, steps: rec.steps }, null, 2) + '\n'); return 0; }
  out(`run ${rec.id} · ${rec.planName} · ${rec.status}\n`);
  for (const s of Object.values(rec.steps)) out(`  ${s.status.padEnd(11)} ${s.id}${s.attempts.length > 1 ? ` (${s.attempts.length} attempts)` : ''}${s.message ? ` · ${s.message}` : ''}\n`);
  return 0;
}

async function logs(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { workspace: { type: 'string' } } });
  const [runId, step] = positionals;
  if (!runId || !step) throw new Usage('logs needs RUN-ID and STEP');
  const store = new RunStore(workspaceForCwd(values.workspace));
  const rec = await store.load(runId);
  if (!rec) { err(`braid: unknown run ${runId}\n`); return 1; }
  // A best-of step's alternatives log as steps of their own (`<step>.alt<i>`): each in turn.
  const alts = rec.steps[step]?.alternatives;
  const parts = alts ? alts.map((a) => ({ id: `${step}.alt${a.index}`, head: `════ alternative ${a.index} · ${a.status}${rec.steps[step]!.winner === a.index ? ' · won' : ''} ════\n` })) : [{ id: step, head: '' }];
  let shown = 0;
  for (const p of parts) {
    const text = await readFile(store.paths(runId).log(p.id), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    out(p.head + text);
    shown++;
  }
  if (shown === 0) { err(`braid: no log for ${step} in ${runId}\n`); return 1; }
  return 0;
}

async function clean(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { workspace: { type: 'string' } } });
  const [runId] = positionals;
  if (!runId || positionals.length > 1) throw new Usage('clean needs exactly one RUN-ID');
  const r = await cleanRun(workspaceForCwd(values.workspace), runId);
  if (!r.ok) { err(`braid: ${r.message}\n`); return 1; }
  err(r.removed.length === 0 ? `nothing kept for ${runId}\n` : `removed the worktrees and branches of ${r.removed.join(', ')}\n`);
  return 0;
}

async function pick(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { workspace: { type: 'string' } } });
  const [runId, step, which] = positionals;
  const n = Number(which);
  if (!runId || !step || positionals.length !== 3 || !Number.isInteger(n)) throw new Usage('pick needs RUN-ID, STEP and the number N of an alternative');
  const store = new RunStore(workspaceForCwd(values.workspace));
  await store.markInterrupted();
  const rec = await store.load(runId);
  if (!rec) { err(`braid: unknown run ${runId}\n`); return 1; }
  const problem = pickProblem(rec, step, n);
  if (problem) { err(`braid: ${problem}\n`); return 1; }
  await writePick(store.paths(runId).dir, step, n);
  err(`picked alternative ${n} of ${step}; the run lands it\n`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'validate': return await validate(rest);
      case 'graph': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { format: { type: 'string', default: 'mermaid' } } });
        return await graph(positionals[0], values.format);
      }
      case 'run': return await run(rest);
      case 'retry': return await run(rest, true);
      case 'status': return await status(rest);
      case 'logs': return await logs(rest);
      // Internal: the engine process the VS Code extension starts (not in the help).
      case 'serve': return await serve(rest);
      case 'clean': return await clean(rest);
      case 'pick': return await pick(rest);
      case 'plan': return await planCommand(rest);
      case 'export': return await exportCommand(rest);
      case undefined: case '-h': case '--help': case 'help': out(HELP); return cmd ? 0 : 2;
      default: throw new Usage(`unknown command ${cmd}`);
    }
  } catch (e) {
    if (e instanceof Usage || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      err(`braid: ${(e as Error).message}\n\n${HELP}`);
      return 2;
    }
    throw e;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => { err(`braid: internal error: ${(e as Error).stack}\n`); process.exitCode = 70; });
}
