// The agents a plan can use: the presets, then the user's settings (partial overrides of presets),
// then the plan's `agents:` (which win, since the plan is the source of truth for its run).
import { PRESETS } from '../agents/presets';
import type { AgentDoc } from './schema';
import { splitCommand } from './splitCommand';
import type { AgentDef } from './types';

export type AgentOverrides = Readonly<Record<string, { command?: readonly string[] | string; env?: Record<string, string> }>>;

export interface AgentTable {
  readonly agents: Readonly<Record<string, AgentDef>>;
  /** Every name a step may use, including plan agents whose definition is broken (reported elsewhere). */
  readonly known: ReadonlySet<string>;
  /** Settings that could not be applied (a command with shell operators): not located in the plan. */
  readonly problems: readonly string[];
}

// A replaced command keeps the structured output format only if it still asks for it; otherwise
// its stdout would be parsed as events it never prints.
const FORMAT_FLAG: Partial<Record<AgentDef['format'], string>> = {
  'claude-stream-json': 'stream-json',
  'codex-json': '--json',
  'gemini-json': 'json',
};
const formatFor = (base: AgentDef | undefined, argv: readonly string[]): AgentDef['format'] => {
  if (!base) return 'text';
  const flag = FORMAT_FLAG[base.format];
  return flag === undefined || argv.includes(flag) ? base.format : 'text';
};

/** Presets, then settings overrides, then the plan's agent definitions merged over them. */
export function agentTable(planAgents: Readonly<Record<string, AgentDoc | undefined>>, overrides: AgentOverrides = {}): AgentTable {
  const agents: Record<string, AgentDef> = { ...PRESETS };
  const problems: string[] = [];
  for (const [name, o] of Object.entries(overrides)) {
    const base = agents[name];
    if (!base) continue;
    let command = base.command;
    if (o.command !== undefined) {
      const split = splitCommand(o.command);
      if ('error' in split) problems.push(`settings: agent ${name}: command: ${split.error}`);
      else command = split.argv;
    }
    agents[name] = { ...base, command, format: formatFor(base, command), env: { ...base.env, ...(o.env ?? {}) } };
  }
  for (const [name, a] of Object.entries(planAgents)) {
    if (!a) continue;
    const base = agents[name];
    const def: AgentDef = {
      name,
      command: a.command,
      env: { ...(base?.env ?? {}), ...(a.env ?? {}) },
      context: a.context ?? base?.context ?? true,
      format: formatFor(base, a.command),
      ...(a.cwd ?? base?.cwd ? { cwd: a.cwd ?? base?.cwd } : {}),
      ...(a.stdin ?? base?.stdin ? { stdin: a.stdin ?? base?.stdin } : {}),
      ...(a.pool ?? base?.pool ? { pool: a.pool ?? base?.pool } : {}),
    };
    agents[name] = Object.freeze(def);
  }
  const known = new Set([...Object.keys(agents), ...Object.keys(planAgents)]);
  return { agents: Object.freeze(agents), known, problems };
}
