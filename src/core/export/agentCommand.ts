// An agent step's command on a runner: the agent's argv with each element a shell word (plan
// text and templates through env vars), the prompt built from its parts (a value in a command
// that may run it only ever a variable reference, as locally: promptInput.ts), the CLI's sandbox and
// budget flags, and what the run step's env must hold (keys, parts, stream format).
import { presetTable } from '../agents/presets';
import { codeCommand, PROMPT_ENV, takesText } from '../agents/promptInput';
import { type AgentPermission } from '../agents/permission';
import { stepAgent, stepAgentOptions } from '../agents/stepAgent';
import { classifyRef, parseTemplates } from '../templates';
import type { GraphStep } from '../plan/types';
import type { AgentDef } from '../agents/agentDef';
import { agentSetup, secretEnv, type AgentSetup } from './agentInstall';
import { ghLiteral } from './ghText';
import { uninstalledAgentNote } from './notes';
import { exportUnder, hasTemplates, shellWord, type RefVars } from './refVars';

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ONLY_PROMPT = /^\$\{\{\s*prompt\s*\}\}$/;

export interface AgentCommand {
  /** The command line after `braid_run` (shell words over variables). */
  readonly command: string;
  /** Lines before it: the prompt, the agent's templated env. */
  readonly setup: readonly string[];
  /** The run step's env: keys from secrets, plan text parts, BRAID_AGENT / BRAID_STDIN. */
  readonly env: Readonly<Record<string, string>>;
  readonly install?: AgentSetup;
  readonly notes: readonly string[];
}

/** How `step` runs `named` (compiled at the run's `runPermission`) with the step's own flags and permission; `context` is the plan's. */
export function agentCommand(
  step: GraphStep,
  named: AgentDef,
  context: string | undefined,
  runPermission: AgentPermission,
  vars: RefVars,
): AgentCommand {
  // The step's model, max-turns, permission and tools, as a local run passes them (stepAgent.ts).
  const agent = stepAgent(named, stepAgentOptions(step));
  const permission = step.permission ?? runPermission;
  const env: Record<string, string> = {};
  const setup: string[] = [];
  const notes: string[] = [];
  const install = agentSetup(agent);
  if (install) Object.assign(env, secretEnv(install));
  else {
    const note = uninstalledAgentNote(step.id, agent.name, agent.command[0]!);
    if (note) notes.push(note);
  }
  if (agent.cwd !== undefined)
    notes.push(`${step.id}: agent ${agent.name}'s cwd is not mapped: it runs in the step's directory`);
  if (step.retries > 0 && step.retryContext !== false && agent.context)
    notes.push(
      `${step.id}: a retry on the runner is not told why the attempt before failed (retry-context), nor continues its session`,
    );

  // The prompt as the local run builds it: the plan's context first unless the prompt places it.
  const usesContext = parseTemplates(step.prompt ?? '').refs.some((r) => classifyRef(r.path)?.kind === 'context');
  const lead =
    agent.context && !usesContext && context !== undefined && context.trim() !== ''
      ? [{ literal: `${context.trimEnd()}\n\n` }]
      : [];
  // The prompt's text, in the agent's environment as locally; `${{ prompt }}` of a text agent.
  setup.push(
    `braid_prompt=${shellWord(step.prompt ?? '', 'BRAID_PROMPT', vars, env, lead)}`,
    `export ${PROMPT_ENV}="$braid_prompt"`,
  );
  for (const [k, v] of Object.entries(agent.env)) {
    if (!hasTemplates(v)) env[k] = ghLiteral(v);
    else if (SHELL_NAME.test(k)) setup.push(`export ${k}=${shellWord(v, `BRAID_AGENT_ENV_${k}`, vars, env)}`);
    else notes.push(`${step.id}: agent env ${JSON.stringify(k)} holds a template but is no shell name; not set`);
  }
  const stdinPrompt = agent.stdin === 'prompt';
  if (stdinPrompt) env.BRAID_STDIN = 'prompt';
  const words: string[] = [];
  if (takesText(agent)) {
    agent.command.forEach((el, i) => {
      if (stdinPrompt && ONLY_PROMPT.test(el)) return;
      words.push(!hasTemplates(el) && SAFE_WORD.test(el) ? el : shellWord(el, `BRAID_ARG_${i}`, vars, env));
    });
  } else {
    // A command that may run its prompt gets what it gets locally: the prompt as written and every
    // template a reference to a variable the job exported, each argument whole in the step's env.
    const code = codeCommand(agent, step.prompt ?? '');
    exportUnder(code.vars, vars, setup);
    code.command.forEach((el, i) => {
      if (SAFE_WORD.test(el)) {
        words.push(el);
        return;
      }
      env[`BRAID_ARG_${i}`] = ghLiteral(el);
      words.push(`"\${BRAID_ARG_${i}}"`);
    });
    if (code.stdin !== undefined) {
      env.BRAID_STDIN_SCRIPT = ghLiteral(code.stdin);
      setup.push('braid_prompt="${BRAID_STDIN_SCRIPT}"');
    }
  }
  const family = install?.family;
  const preset = presetTable({ permission: runPermission })[named.name];
  const isPreset = preset !== undefined && preset.command.join('\0') === named.command.join('\0');
  // The CLI's own sandbox where it has one: codex's is in its permission flags; gemini's runs in Docker.
  // Options go before a `--` (after it every word is the prompt), else at the end.
  const option = (...w: string[]): void => {
    const at = words.indexOf('--');
    if (at === -1) words.push(...w);
    else words.splice(at, 0, ...w);
  };
  if (isPreset && family === 'gemini' && permission !== 'full') option('--sandbox');
  if (family === 'claude' && step.maxCostUsd !== undefined) option('--max-budget-usd', String(step.maxCostUsd));
  else if (step.maxCostUsd !== undefined) notes.push(`${step.id}: max-cost-usd has no counterpart for ${agent.name}`);
  // A structured stream: the failure it reports and its final answer (the output) are read with jq.
  if (agent.format !== 'text' && (family === 'claude' || family === 'codex' || family === 'gemini'))
    env.BRAID_AGENT = family;
  return { command: words.join(' '), setup, env, ...(install ? { install } : {}), notes };
}
