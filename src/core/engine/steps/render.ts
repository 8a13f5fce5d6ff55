// Turning a step's templates into argv, env and shell scripts at start time. Values only ever
// become argv elements, prompt text or environment variables: never shell source.
import { agentInvocation, agentSurroundings, promptWithContext } from '../../agents/invocation';
import { codeCommand, PROMPT_ENV, takesText } from '../../agents/promptInput';
import { RESUME_PROMPT, resumeAgent } from '../../agents/resume';
import { retryNote, withRetryNote } from '../../agents/retryPrompt';
import { stepAgent, stepAgentOptions } from '../../agents/stepAgent';
import type { Graph, GraphStep } from '../../plan/types';
import type { AgentDef } from '../../agents/agentDef';
import { ownValue } from '../../plan/dict';
import {
  classifyRef,
  envNameFor,
  parseTemplates,
  renderTemplate,
  shellTemplate,
  type TemplateRef,
} from '../../templates';
import { MAX_ARG_BYTES, spillLargeValues } from './largeValues';
import { shellArgv } from '../../exec/process';
import type { PreviousAttempt } from '../types';
import type { StepStatus } from '../../status';

export interface RenderScope {
  readonly graph: Graph;
  readonly step: GraphStep;
  readonly runId: string;
  readonly outputs: ReadonlyMap<string, string>;
  readonly statuses: ReadonlyMap<string, StepStatus>;
  /** The environment the step inherits (the engine's own). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Writes a value too large for the environment to a file of the run's; returns its path. */
  readonly valueFile?: (name: string, value: string) => string;
  /** A retry: why the attempt before it failed (`${{ attempt.previous.* }}`, the retry note). */
  readonly previous?: PreviousAttempt;
}

export interface Invocation {
  readonly argv: string[];
  readonly env: Record<string, string>;
  readonly stdin?: string;
  readonly cwd?: string;
  /** The agent session this invocation continues, when it resumes one. */
  readonly resumed?: string;
  /** The prompt's text as the agent gets it (a live input channel sends it as the first message: liveInput.ts). */
  readonly prompt?: string;
}

/** The value of one template reference for this step. */
export function lookupRef(
  scope: RenderScope,
  env: Readonly<Record<string, string | undefined>>,
  ref: TemplateRef,
): string {
  const c = classifyRef(ref.path);
  switch (c?.kind) {
    case 'context':
      return scope.graph.plan.context ?? '';
    case 'matrix':
      return ownValue(scope.step.matrix?.values, c.key!) ?? '';
    case 'env':
      return ownValue(env, c.key!) ?? '';
    case 'step-output':
      return scope.outputs.get(c.key!) ?? '';
    case 'step-status':
      return scope.statuses.get(c.key!) ?? '';
    case 'plan-name':
      return scope.graph.plan.name;
    case 'run-id':
      return scope.runId;
    case 'attempt-reason':
      return scope.previous?.reason ?? '';
    case 'attempt-output':
      return scope.previous?.output ?? '';
    case 'alternative-index':
      return String(scope.step.alternative?.index ?? '');
    default:
      throw new Error(`unresolvable template ${ref.expr} in step ${scope.step.id} (validation should have caught it)`);
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
  env.BRAID_PLAN_NAME = scope.graph.plan.name;
  return env;
}

/**
 * A shell command with every template turned into an environment-variable reference, and each
 * need's result under its documented name (`$BRAID_STEPS_<ID>_OUTPUT`, `_STATUS`) whether or not
 * a template names it. Values past exec's space go by file (largeValues.ts) when `valueFile` is given.
 */
export function shellInvocation(scope: RenderScope, source: string, env: Record<string, string>): Invocation {
  const { script, vars } = shellTemplate(source);
  const out = { ...env };
  const movable: string[] = [];
  for (const v of vars) {
    if (classifyRef(v.ref.path)?.kind === 'env') continue;
    out[v.name] = lookupRef(scope, env, v.ref);
    movable.push(v.name);
  }
  const taken = new Set(vars.map((v) => v.name));
  for (const need of scope.step.needs) {
    for (const [name, value] of [
      [envNameFor(['steps', need, 'output']), scope.outputs.get(need)],
      [envNameFor(['steps', need, 'status']), scope.statuses.get(need)],
    ] as const) {
      // Two needs that spell one name (`a-b`, `a_b`) leave it to the first; a template's own name wins.
      if (value === undefined || taken.has(name)) continue;
      taken.add(name);
      out[name] = value;
      movable.push(name);
    }
  }
  const write = scope.valueFile;
  // The read-back lines are POSIX shell; cmd.exe keeps the environment as it is.
  if (!write || process.platform === 'win32') return { argv: shellArgv(script), env: out };
  const fitted = spillLargeValues(script, out, movable, (name, value) => write(name, value));
  return { argv: shellArgv(fitted.script), env: fitted.env };
}

/**
 * How the step runs: a shell script for `run`, the agent's argv for `prompt` (with the step's own
 * flags). With `resumeSession` and an agent that can resume, the agent continues that session
 * instead of starting over (it already holds the task and the context), told why the attempt
 * before failed, else RESUME_PROMPT. A fresh retry gets that note after its prompt, unless the
 * prompt places `${{ attempt.previous.* }}` itself or the step has `retry-context: false`.
 * Values become text only for an agent that takes its prompt as text (promptInput.ts).
 */
export function stepInvocation(scope: RenderScope, resumeSession?: string, said?: string): Invocation {
  const env = stepEnv(scope);
  const { step, graph } = scope;
  if (step.kind === 'run') return shellInvocation(scope, step.run ?? '', env);
  const named = graph.agents[step.agent ?? ''];
  if (!named) throw new Error(`step ${step.id}: unknown agent ${step.agent}`);
  const agent = stepAgent(named, stepAgentOptions(step));
  const render = (t: string) => renderTemplate(t, (r) => lookupRef(scope, env, r));
  // Only to agents that take prose: a `shell` agent's prompt is a script.
  const failed = step.retryContext !== false && agent.context ? scope.previous : undefined;
  const text = takesText(agent);
  // A session is continued with a note made of values: only where the command takes text.
  const resuming = resumeSession !== undefined && text ? resumeAgent(agent, resumeSession) : undefined;
  if (resuming) {
    // `said`: a person's message (`braid say`), the session's next prompt.
    const prompt = said ?? (failed ? retryNote(failed, { resumed: true, isolation: step.isolation }) : RESUME_PROMPT);
    const inv = agentInvocation(resuming, render, prompt);
    return withPrompt(scope, { ...inv, env: { ...env, ...inv.env }, resumed: resumeSession! }, prompt);
  }
  const source = step.prompt ?? '';
  const kinds = parseTemplates(source).refs.map((r) => classifyRef(r.path)?.kind);
  const usesContext = kinds.includes('context');
  // The prompt as text, what a text agent gets and BRAID_PROMPT holds for any agent.
  let prompt = promptWithContext(agent, render(source), graph.plan.context, usesContext);
  if (failed && !kinds.includes('attempt-reason') && !kinds.includes('attempt-output'))
    prompt = withRetryNote(prompt, failed, step.isolation);
  if (said !== undefined) prompt = `${prompt}\n\n${said}`;
  if (!text) return withPrompt(scope, codeInvocation(scope, agent, source, prompt, env), prompt);
  const inv = agentInvocation(agent, render, prompt);
  return withPrompt(scope, { ...inv, env: { ...env, ...inv.env } }, prompt);
}

/**
 * An agent whose command may run its prompt (`input: code`, every agent not said to take text):
 * the command and the prompt as written, each template a `${BRAID_…}` reference whose value is in
 * the environment, so a dependency's output holding `$(…)` stays data whatever reads it. Its own
 * env, cwd and `${{ prompt }}` in them are values (an environment is data).
 */
function codeInvocation(
  scope: RenderScope,
  agent: AgentDef,
  source: string,
  prompt: string,
  env: Record<string, string>,
): Invocation {
  const code = codeCommand(agent, source);
  const render = (t: string) => renderTemplate(t, (r) => lookupRef(scope, env, r));
  const inv = agentSurroundings(agent, render, prompt);
  const out = { ...env, ...inv.env };
  for (const v of code.vars) out[v.name] = lookupRef(scope, out, v.ref);
  if (code.command.length === 0 || code.command[0] === '') {
    throw new Error(`agent ${agent.name}: command renders to no executable (${JSON.stringify(agent.command)})`);
  }
  return {
    argv: code.command,
    env: out,
    ...(code.stdin !== undefined ? { stdin: code.stdin } : {}),
    ...(inv.cwd !== undefined ? { cwd: inv.cwd } : {}),
  };
}

/** The prompt's text in the environment as BRAID_PROMPT; past one string's limit, in a file named by BRAID_PROMPT_FILE. */
function withPrompt(scope: RenderScope, inv: Invocation, prompt: string): Invocation {
  const env = { ...inv.env };
  if (Buffer.byteLength(prompt) + PROMPT_ENV.length + 2 < MAX_ARG_BYTES || !scope.valueFile) env[PROMPT_ENV] = prompt;
  else env[`${PROMPT_ENV}_FILE`] = scope.valueFile(PROMPT_ENV, prompt);
  return { ...inv, env, prompt };
}
