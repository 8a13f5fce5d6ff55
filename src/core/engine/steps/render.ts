// Turning a step's templates into argv, env and shell scripts at start time. Values only ever
// become argv elements, prompt text or environment variables: never shell source.
import { agentInvocation, promptWithContext } from '../../agents/invocation';
import { agentFamily, type AgentFamily } from '../../agents/presets';
import { RESUME_PROMPT, resumeAgent } from '../../agents/resume';
import type { Graph, GraphStep } from '../../plan/types';
import { classifyRef, parseTemplates, renderTemplate, shellTemplate, type TemplateRef } from '../../plan/templates';
import { shellArgv } from '../../exec/process';
import type { StepStatus } from '../types';

const MODEL_FLAG: ReadonlySet<AgentFamily> = new Set(['claude', 'codex', 'gemini']);

export interface RenderScope {
  readonly graph: Graph;
  readonly step: GraphStep;
  readonly runId: string;
  readonly outputs: ReadonlyMap<string, string>;
  readonly statuses: ReadonlyMap<string, StepStatus>;
  /** The environment the step inherits (the engine's own). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
}

export interface Invocation {
  readonly argv: string[];
  readonly env: Record<string, string>;
  readonly stdin?: string;
  readonly cwd?: string;
  /** The agent session this invocation continues, when it resumes one. */
  readonly resumed?: string;
}

/** The value of one template reference for this step. */
export function lookupRef(scope: RenderScope, env: Readonly<Record<string, string | undefined>>, ref: TemplateRef): string {
  const c = classifyRef(ref.path);
  switch (c?.kind) {
    case 'context': return scope.graph.plan.context ?? '';
    case 'matrix': return scope.step.matrix?.values[c.key!] ?? '';
    case 'env': return env[c.key!] ?? '';
    case 'step-output': return scope.outputs.get(c.key!) ?? '';
    case 'step-status': return scope.statuses.get(c.key!) ?? '';
    case 'plan-name': return scope.graph.plan.name;
    case 'run-id': return scope.runId;
    case 'alternative-index': return String(scope.step.alternative?.index ?? '');
    default: throw new Error(`unresolvable template ${ref.expr} in step ${scope.step.id} (validation should have caught it)`);
  }
}

/** The step's environment: the engine's, the plan's, the step's (templates rendered), and Braid's own. */
export function stepEnv(scope: RenderScope): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(scope.baseEnv)) if (v !== undefined) env[k] = v;
  for (const layer of [scope.graph.plan.env, scope.step.env]) {
    for (const [k, v] of Object.entries(layer)) env[k] = renderTemplate(v, (r) => lookupRef(scope, env, r));
  }
  env.BRAID_RUN_ID = scope.runId;
  env.BRAID_STEP_ID = scope.step.alternative?.of ?? scope.step.id;
  if (scope.step.alternative) env.BRAID_ALTERNATIVE = String(scope.step.alternative.index);
  if (scope.step.model !== undefined) env.BRAID_MODEL = scope.step.model;
  env.BRAID_PLAN_NAME = scope.graph.plan.name;
  return env;
}

/** A shell command with every template turned into an environment-variable reference. */
export function shellInvocation(scope: RenderScope, source: string, env: Record<string, string>): Invocation {
  const { script, vars } = shellTemplate(source);
  const out = { ...env };
  for (const v of vars) if (classifyRef(v.ref.path)?.kind !== 'env') out[v.name] = lookupRef(scope, env, v.ref);
  return { argv: shellArgv(script), env: out };
}

/**
 * How the step runs: a shell script for `run`, the agent's argv for `prompt`. With `resumeSession`
 * and an agent that can resume, the agent continues that session with RESUME_PROMPT instead of
 * starting over (the session already holds the task and the context).
 */
export function stepInvocation(scope: RenderScope, resumeSession?: string): Invocation {
  const env = stepEnv(scope);
  const { step, graph } = scope;
  if (step.kind === 'run') return shellInvocation(scope, step.run ?? '', env);
  const agent = graph.agents[step.agent ?? ''];
  if (!agent) throw new Error(`step ${step.id}: unknown agent ${step.agent}`);
  const render = (t: string) => renderTemplate(t, (r) => lookupRef(scope, env, r));
  const resuming = resumeSession !== undefined ? resumeAgent(agent, resumeSession) : undefined;
  if (resuming) {
    const inv = agentInvocation(resuming, render, RESUME_PROMPT);
    return { ...inv, env: { ...env, ...inv.env }, resumed: resumeSession! };
  }
  const source = step.prompt ?? '';
  const usesContext = parseTemplates(source).refs.some((r) => classifyRef(r.path)?.kind === 'context');
  const prompt = promptWithContext(agent, render(source), graph.plan.context, usesContext);
  const inv = agentInvocation(agent, render, prompt);
  // An alternative's `model`: the three CLIs that take `--model` get it; every agent sees BRAID_MODEL.
  if (step.model !== undefined && MODEL_FLAG.has(agentFamily(agent))) inv.argv.push('--model', step.model);
  return { ...inv, env: { ...env, ...inv.env } };
}
