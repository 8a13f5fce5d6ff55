// Which agent drafts the plan: a preset by name, a custom command, or an agent definition the
// caller already resolved (the extension's settings). The `shell` preset is refused: it would run
// the planning prompt as a script.
import { basename } from 'node:path';
import { didYouMean } from '../plan/didYouMean';
import { splitCommand } from '../plan/splitCommand';
import type { AgentDef } from '../agents/agentDef';
import { presetTable } from '../agents/presets';
import { type AgentPermission } from '../agents/permission';
import { findExecutable } from '../agents/which';

/** A preset name (`claude`), a command (`"mytool --flag"` or an argv list), or a resolved agent. */
export type PlanningAgentSpec = string | readonly string[] | AgentDef;

/** The presets that can draft a plan (every agent preset; not `shell`). */
export const PLANNING_PRESETS: readonly string[] = ['claude', 'codex', 'gemini', 'aider'];

const PROMPT = /\$\{\{\s*prompt\s*\}\}/;

export type AgentChoice = { readonly agent: AgentDef } | { readonly error: string };

export interface ChoiceOptions {
  readonly permission?: AgentPermission;
  /** For telling a one-word custom command from a misspelt preset. */
  readonly cwd: string;
  readonly envPath?: string | undefined;
}

const INTERPRETERS = new Set(['node', 'python', 'python3', 'sh', 'bash', 'npx', 'deno', 'bun']);
const bare = (p: string): string => basename(p).replace(/\.(cmd|exe|bat|js|mjs|cjs|py|sh)$/i, '');

// `node tools/planner.mjs` is the planner, not node: name it by its script.
function agentName(argv: readonly string[]): string {
  const [exe, script] = argv;
  const first = bare(exe ?? '');
  if (INTERPRETERS.has(first.toLowerCase()) && script !== undefined && !script.startsWith('-') && !PROMPT.test(script))
    return bare(script) || first;
  return first || 'agent';
}

/** A custom agent from an argv: the prompt goes where `${{ prompt }}` is, else on stdin. */
export function customAgent(argv: readonly string[]): AgentDef {
  const name = agentName(argv);
  const usesPrompt = argv.some((a) => PROMPT.test(a));
  return Object.freeze({
    name,
    command: [...argv],
    env: {},
    context: false,
    format: 'text' as const,
    ...(usesPrompt ? {} : { stdin: 'prompt' as const }),
  });
}

/** The agent definition for `spec`, or why there is none (as a sentence for the user). */
export function choosePlanningAgent(spec: PlanningAgentSpec, o: ChoiceOptions): AgentChoice {
  if (typeof spec === 'object' && !Array.isArray(spec)) {
    const def = spec as AgentDef;
    return def.command.length === 0 ? { error: `agent ${def.name}: the command is empty` } : { agent: def };
  }
  if (Array.isArray(spec)) {
    return spec.length === 0 || spec[0] === '' ? { error: 'the agent command is empty' } : { agent: customAgent(spec) };
  }
  const text = spec.trim();
  if (text === 'shell')
    return {
      error:
        'the shell preset runs its prompt as a script; choose an agent (claude, codex, gemini, aider) or a command',
    };
  if (PLANNING_PRESETS.includes(text))
    return { agent: presetTable(o.permission ? { permission: o.permission } : {})[text]! };
  const split = splitCommand(text);
  if ('error' in split) return { error: `agent command: ${split.error}` };
  if (split.argv.length === 0) return { error: 'the agent command is empty' };
  // One bare word that is neither a preset nor on PATH is far likelier a typo than a command.
  const [exe] = split.argv;
  if (split.argv.length === 1 && !/[\\/]/.test(exe!) && !findExecutable(exe!, o.envPath, o.cwd)) {
    return {
      error: `unknown agent ${exe}${didYouMean(exe!, PLANNING_PRESETS)} (presets: ${PLANNING_PRESETS.join(', ')}; or give a command)`,
    };
  }
  return { agent: customAgent(split.argv) };
}
