// Planning mode: an agent drafts a plan file for a goal, Braid validates it and, if it is invalid,
// gives the agent its problems once. It never runs the plan. Every outcome is data: the caller (the
// CLI, the extension) decides how to show it.
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { presetTable } from '../agents/presets';
import { type AgentPermission } from '../agents/permission';
import type { AgentSummary, ParsedLine } from '../agents/streams/types';
import { findExecutable, notInstalledMessage } from '../agents/which';
import type { ProcessResult, SpawnSpec } from '../exec/process';
import { compilePlanFile, type CompileOptions } from '../plan/compile';
import type { Diagnostic, Graph } from '../plan/types';
import type { AgentDef } from '../agents/agentDef';
import { DEFAULT_MAX_PATHS, workspaceLayout } from './layout';
import { choosePlanningAgent, PLANNING_PRESETS, type PlanningAgentSpec } from './planningAgent';
import { formatDiagnostic } from '../format';
import { fileProblem } from './problems';
import { runPlanningAgent } from './planningRun';
import { draftPrompt, repairPrompt, type AgentInfo, type DraftContext } from './prompt';

/** The most attempts: the first draft and one repair. */
export const MAX_ATTEMPTS = 2;
export const DEFAULT_PLAN_FILE = 'plan.braid.yaml';

/** What a long wait reports, as it happens. */
export type DraftProgress =
  | { readonly kind: 'attempt'; readonly attempt: number; readonly agent: string }
  | { readonly kind: 'output'; readonly attempt: number; readonly line: ParsedLine }
  /** No output for `quietMs`; sent every heartbeat while the agent stays silent. */
  | { readonly kind: 'waiting'; readonly attempt: number; readonly elapsedMs: number; readonly quietMs: number }
  | { readonly kind: 'validated'; readonly attempt: number; readonly errors: number; readonly warnings: number };

export interface DraftPlanOptions {
  readonly goal: string;
  /** The folder the agent works in and whose layout it is shown. */
  readonly workspace: string;
  /** A preset name, a custom command (string or argv), or a resolved agent definition. */
  readonly agent: PlanningAgentSpec;
  /** The plan file, relative to the workspace or absolute; default plan.braid.yaml. An existing file is overwritten: callers ask first. */
  readonly file?: string;
  /** For presets; default `edit`, which lets the agent write the plan file. */
  readonly permission?: AgentPermission;
  /** The agent's environment; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A limit on each attempt; default 20 minutes. */
  readonly timeoutMs?: number;
  readonly idleTimeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: DraftProgress) => void;
  /** How often `waiting` is reported while the agent is silent; default 15 s. */
  readonly heartbeatMs?: number;
  /** Runs one attempt; default runProcess. When given, the agent's executable is not looked up on PATH first. */
  readonly runAgent?: (spec: SpawnSpec) => Promise<ProcessResult>;
  readonly maxLayoutPaths?: number;
  /** How the result is validated; default: isGit from the workspace. */
  readonly compile?: CompileOptions;
}

export interface DraftResult {
  /** The file holds a valid plan. */
  readonly ok: boolean;
  /** The plan file's absolute path. */
  readonly file: string;
  /** The validator's problems (warnings too, when ok), or planning's own (see PlanningCode). */
  readonly diagnostics: readonly Diagnostic[];
  /** Agent runs made: 0 when none could start, at most MAX_ATTEMPTS. */
  readonly attempts: number;
  /** The agent's readable output, every attempt, with a header line each. */
  readonly log: readonly string[];
  /** The prompts given, in order. */
  readonly prompts: readonly string[];
  /** The compiled plan when ok (for showing its graph). */
  readonly graph?: Graph;
  /** The drafting agent's name, once one was chosen. */
  readonly agent?: string;
  /** Summed over attempts, when the agent reports its cost. */
  readonly costUsd?: number;
}

interface Attempt {
  readonly result: ProcessResult;
  readonly summary: AgentSummary;
  readonly stderr: string;
}

const readText = (file: string): Promise<string | undefined> => readFile(file, 'utf8').catch(() => undefined);

function cleanEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** Has an agent draft a plan for `goal`, validates it, and feeds its problems back once. Never runs the plan. */
export async function draftPlan(o: DraftPlanOptions): Promise<DraftResult> {
  if (typeof o.goal !== 'string' || o.goal.trim() === '')
    throw new TypeError(`draftPlan: goal must be a non-empty string, got ${JSON.stringify(o.goal)}`);
  const workspace = resolve(o.workspace);
  const file = resolve(workspace, o.file ?? DEFAULT_PLAN_FILE);
  const env = cleanEnv(o.env ?? process.env);
  const log: string[] = [];
  const prompts: string[] = [];
  let attempts = 0;
  let cost: number | undefined;
  let agentName: string | undefined;
  const done = (ok: boolean, diagnostics: readonly Diagnostic[], graph?: Graph): DraftResult => ({
    ok,
    file,
    diagnostics,
    attempts,
    log,
    prompts,
    ...(graph ? { graph } : {}),
    ...(cost !== undefined ? { costUsd: cost } : {}),
    ...(agentName !== undefined ? { agent: agentName } : {}),
  });

  const choice = choosePlanningAgent(o.agent, {
    cwd: workspace,
    envPath: env.PATH,
    ...(o.permission ? { permission: o.permission } : {}),
  });
  if ('error' in choice) return done(false, [fileProblem(file, 'agent-invalid', choice.error)]);
  const agent = choice.agent;
  agentName = agent.name;
  if (!o.runAgent && !findExecutable(agent.command[0]!, env.PATH, workspace)) {
    return done(false, [fileProblem(file, 'agent-missing', notInstalledMessage(agent.command[0]!))]);
  }

  const layout = await workspaceLayout(workspace, o.maxLayoutPaths ?? DEFAULT_MAX_PATHS);
  const rel = relative(workspace, file);
  const shown = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
  const context: DraftContext = { file: shown, layout, agents: availableAgents(env.PATH, workspace) };
  const compileOpts: CompileOptions = o.compile ?? { isGit: layout.source === 'git' };

  const before = await readText(file);
  let prompt = draftPrompt(o.goal, context);
  let diagnostics: readonly Diagnostic[] = [];
  let written = false;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    prompts.push(prompt);
    attempts = attempt;
    const a = await runAttempt(o, agent, prompt, attempt, { workspace, file, env, log });
    if (a.summary.costUsd !== undefined) cost = (cost ?? 0) + a.summary.costUsd;
    if (a.result.reason === 'canceled')
      return done(false, [fileProblem(file, 'canceled', `planning canceled during attempt ${attempt}`)]);
    const content = await readText(file);
    // A file left as it was before planning began was not written by this agent; once it has
    // written, a repair that changes nothing is judged as it stands.
    const wrote: boolean = content !== undefined && (written || content !== before);
    written ||= wrote;
    if (!wrote) {
      const failed = a.result.reason !== 'exit' || a.result.exitCode !== 0;
      if (failed) return done(false, [fileProblem(file, 'agent-failed', failureMessage(agent, a, shown))]);
      const again = attempt > 1 ? ' again' : '';
      diagnostics = [fileProblem(file, 'not-written', `${agent.name} finished${again} without writing ${shown}`)];
      log.push(`── ${shown}: not written ──`);
      prompt = repairPrompt(o.goal, context, { problems: [] });
      continue;
    }
    const compiled = await compilePlanFile(file, compileOpts);
    diagnostics = compiled.diagnostics;
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    o.onProgress?.({ kind: 'validated', attempt, errors, warnings: diagnostics.length - errors });
    log.push(`── ${shown}: ${compiled.graph ? 'valid' : `${errors} problem${errors === 1 ? '' : 's'}`} ──`);
    if (compiled.graph) return done(true, diagnostics, compiled.graph);
    prompt = repairPrompt(o.goal, context, {
      problems: diagnostics.map((d) => formatDiagnostic(d, workspace)),
      content,
    });
  }
  return done(false, diagnostics);
}

/** The presets a plan may name, and whether each is installed, for the prompt. */
function availableAgents(envPath: string | undefined, cwd: string): AgentInfo[] {
  const table = presetTable();
  return PLANNING_PRESETS.map((name) => {
    const def = table[name]!;
    return {
      name,
      installed: findExecutable(def.command[0]!, envPath, cwd) !== undefined,
      ...(def.pool ? { pool: def.pool } : {}),
    };
  });
}

interface AttemptScope {
  readonly workspace: string;
  readonly file: string;
  readonly env: Record<string, string>;
  readonly log: string[];
}

async function runAttempt(
  o: DraftPlanOptions,
  agent: AgentDef,
  prompt: string,
  attempt: number,
  s: AttemptScope,
): Promise<Attempt> {
  s.log.push(`── attempt ${attempt}: ${agent.name} ──`);
  o.onProgress?.({ kind: 'attempt', attempt, agent: agent.name });
  const run = await runPlanningAgent({
    agent,
    prompt,
    workspace: s.workspace,
    // BRAID_PLAN_FILE lets a custom planning command find the file without parsing the prompt.
    env: { ...s.env, BRAID_PLAN_FILE: s.file },
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.idleTimeoutMs !== undefined ? { idleTimeoutMs: o.idleTimeoutMs } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.heartbeatMs !== undefined ? { heartbeatMs: o.heartbeatMs } : {}),
    ...(o.runAgent ? { runAgent: o.runAgent } : {}),
    onLine: (line) => {
      s.log.push(line.text);
      o.onProgress?.({ kind: 'output', attempt, line });
    },
    ...(o.onProgress
      ? {
          onWaiting: (elapsedMs: number, quietMs: number) =>
            o.onProgress!({ kind: 'waiting', attempt, elapsedMs, quietMs }),
        }
      : {}),
  });
  return { result: run.result, summary: run.summary, stderr: run.stderr };
}

function failureMessage(agent: AgentDef, a: Attempt, shown: string): string {
  const r = a.result;
  const how =
    r.reason === 'exit'
      ? `exited with code ${r.exitCode}`
      : r.reason === 'spawn-failed'
        ? `could not start (${r.message ?? 'spawn failed'})`
        : (r.message ?? r.reason);
  // The agent's own words say most: its reported error, else its last line on stderr.
  const detail = a.summary.errors.at(-1) ?? a.stderr.trim().split('\n').at(-1)?.trim();
  return `${agent.name} ${how} without writing ${shown}${detail ? `: ${detail}` : ''}`;
}
