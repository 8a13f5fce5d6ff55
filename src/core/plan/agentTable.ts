// The agents a plan can use: the presets, then the user's settings (partial overrides of presets),
// then the plan's `agents:` (which win, since the plan is the source of truth for its run).
import { presetTable } from '../agents/presets';
import { type AgentPermission } from '../agents/permission';
import type { AgentDoc } from './schema';
import { dict } from './dict';
import { splitCommand } from './splitCommand';
import type { AgentDef } from '../agents/agentDef';

export type AgentOverrides = Readonly<
  Record<string, { command?: readonly string[] | string; env?: Record<string, string> }>
>;

export interface AgentTable {
  readonly agents: Readonly<Record<string, AgentDef>>;
  /** Every name a step may use, including plan agents whose definition is broken (reported elsewhere). */
  readonly known: ReadonlySet<string>;
  /** Settings that could not be applied (a command with shell operators): not located in the plan. */
  readonly problems: readonly string[];
}

// A replaced command keeps the structured output format only if it still asks for it; otherwise
// its stdout would be parsed as events it never prints. Each CLI's own spellings (`--help` of the
// pinned versions): as two elements or `--flag=value`, the last one given winning, as in their
// option parsers.
interface FormatFlag {
  readonly names: readonly string[];
  /** The values this format's parser reads; none: a boolean flag. */
  readonly values?: readonly string[];
}
const FORMAT_FLAGS: Partial<Record<AgentDef['format'], FormatFlag>> = {
  // Not `json`: one result object (with --verbose, an array of every message), not event lines.
  'claude-stream-json': { names: ['--output-format'], values: ['stream-json'] },
  'codex-json': { names: ['--json'] },
  // The gemini parser reads both its event lines and the single object `json` prints.
  'gemini-json': { names: ['--output-format', '-o'], values: ['stream-json', 'json'] },
};

/** The format `argv` still asks for: `base`'s structured one when its flag is there, else text. */
export function formatFor(base: AgentDef | undefined, argv: readonly string[]): AgentDef['format'] {
  if (!base) return 'text';
  const spec = FORMAT_FLAGS[base.format];
  if (!spec) return base.format;
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const name = eq === -1 ? a : a.slice(0, eq);
    if (!spec.names.includes(name)) continue;
    if (!spec.values) {
      if (eq === -1) value = a;
      continue;
    }
    value = eq === -1 ? argv[++i] : a.slice(eq + 1);
  }
  if (value === undefined) return 'text';
  return !spec.values || spec.values.includes(value) ? base.format : 'text';
}

export interface AgentTableOptions {
  readonly overrides?: AgentOverrides;
  /** What the presets may do unasked (presets.ts); default `edit`. */
  readonly permission?: AgentPermission;
}

/** Presets (with the permission asked for), then settings overrides, then the plan's agent definitions merged over them. */
export function agentTable(
  planAgents: Readonly<Record<string, AgentDoc | undefined>>,
  opts: AgentTableOptions = {},
): AgentTable {
  const agents = dict(presetTable(opts.permission ? { permission: opts.permission } : {}));
  const overrides = opts.overrides ?? {};
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
    agents[name] = { ...base, command, format: formatFor(base, command), env: dict({ ...base.env, ...(o.env ?? {}) }) };
  }
  for (const [name, a] of Object.entries(planAgents)) {
    if (!a) continue;
    const base = agents[name];
    const [cwd, stdin, pool] = [a.cwd ?? base?.cwd, a.stdin ?? base?.stdin, a.pool ?? base?.pool];
    const def: AgentDef = {
      name,
      command: a.command,
      env: dict({ ...(base?.env ?? {}), ...(a.env ?? {}) }),
      context: a.context ?? base?.context ?? true,
      format: formatFor(base, a.command),
      ...(cwd ? { cwd } : {}),
      ...(stdin ? { stdin } : {}),
      ...(pool ? { pool } : {}),
      // Never inherited: a replaced command may be anything, so only the plan's word makes it text.
      ...(a.input ? { input: a.input } : {}),
    };
    agents[name] = Object.freeze(def);
  }
  const known = new Set([...Object.keys(agents), ...Object.keys(planAgents)]);
  return { agents: Object.freeze(agents), known, problems };
}
