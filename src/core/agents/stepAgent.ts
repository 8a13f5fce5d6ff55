// A step's own asks of its agent — `model`, `max-turns`, `permission`, `tools` — turned into the
// agent's CLI flags (cliFlags.ts), or refused where the CLI has no way to honour them. Flags are
// added as single `--flag=value` elements right after the CLI's name (after `exec` for codex), so
// no value can take the next element for its own and no prompt position matters.
import { CLI_FLAGS, type CliFlags, type CliOption, type FlagFamily, type StepAgentKey } from './cliFlags';
import { agentFamily } from './presets';
import { type AgentPermission } from './permission';
import type { AgentDef } from './agentDef';

export interface StepAgentOptions {
  readonly model?: string;
  readonly maxTurns?: number;
  readonly permission?: AgentPermission;
  readonly tools?: readonly string[];
}

export interface StepAgentProblem {
  readonly key: StepAgentKey;
  /** Which entry of `tools`, when the problem is one tool's. */
  readonly index?: number;
  readonly message: string;
}

const PROMPT = /\$\{\{\s*prompt\s*\}\}/;
const CONTROL = /[\0-\x1f\x7f]/;

const flagsOf = (agent: AgentDef): CliFlags | undefined => {
  const family = agentFamily(agent);
  return family === 'other' ? undefined : CLI_FLAGS[family satisfies FlagFamily];
};

/** What a compiled step (or anything with its four keys) asks of its agent's CLI: those keys alone. */
export function stepAgentOptions(step: StepAgentOptions): StepAgentOptions {
  return {
    ...(step.model !== undefined ? { model: step.model } : {}),
    ...(step.maxTurns !== undefined ? { maxTurns: step.maxTurns } : {}),
    ...(step.permission !== undefined ? { permission: step.permission } : {}),
    ...(step.tools !== undefined ? { tools: step.tools } : {}),
  };
}

/** The keys of `o` that `agent`'s CLI cannot honour, each with why; empty when every one becomes a flag. */
export function stepAgentProblems(agent: AgentDef, o: StepAgentOptions): StepAgentProblem[] {
  const flags = flagsOf(agent);
  const asked: [StepAgentKey, boolean][] = [
    ['model', o.model !== undefined],
    ['max-turns', o.maxTurns !== undefined],
    ['permission', o.permission !== undefined],
    ['tools', o.tools !== undefined],
  ];
  const out: StepAgentProblem[] = [];
  for (const [key, given] of asked) {
    if (!given) continue;
    if (!flags) {
      const exe = agent.command[0] ?? '';
      out.push({
        key,
        message: `agent \`${agent.name}\` (\`${exe}\`) is not a CLI Braid knows a flag for; put the flag in its \`command\``,
      });
    } else if (!optionFor(flags, key)) {
      out.push({
        key,
        message: `agent \`${agent.name}\` cannot honour it: ${flags.lacks[key] ?? 'its CLI has no flag for it'}`,
      });
    }
  }
  if (o.model !== undefined) {
    if (o.model.includes('${{'))
      out.push({ key: 'model', message: 'takes only `${{ matrix.<key> }}` and `${{ plan.name }}` templates' });
    else if (CONTROL.test(o.model)) out.push({ key: 'model', message: 'a model name cannot hold control characters' });
  }
  o.tools?.forEach((tool, index) => {
    if (tool.trim() === '') out.push({ key: 'tools', index, message: 'a tool name cannot be empty' });
    else if (tool.includes('${{') || CONTROL.test(tool))
      out.push({ key: 'tools', index, message: `\`${tool}\` is not a tool name (no templates or control characters)` });
    // gemini splits each value at commas, so one tool would become several.
    else if (agentFamily(agent) === 'gemini' && tool.includes(','))
      out.push({ key: 'tools', index, message: `gemini would split \`${tool}\` at its comma; one tool per entry` });
  });
  return out;
}

function optionFor(flags: CliFlags, key: StepAgentKey): boolean {
  switch (key) {
    case 'model':
      return flags.model !== undefined;
    case 'max-turns':
      return flags.maxTurns !== undefined;
    case 'permission':
      return flags.permission !== undefined;
    case 'tools':
      return flags.tools !== undefined;
  }
}

/** `agent` with `o` as flags; throws where stepAgentProblems would have refused (validation runs it first). */
export function stepAgent(agent: AgentDef, o: StepAgentOptions): AgentDef {
  if (o.model === undefined && o.maxTurns === undefined && o.permission === undefined && o.tools === undefined)
    return agent;
  const problems = stepAgentProblems(agent, o);
  if (problems.length > 0) throw new Error(`agent ${agent.name}: ${problems[0]!.key}: ${problems[0]!.message}`);
  const flags = flagsOf(agent)!;
  const at = headEnd(agent);
  let rest = agent.command.slice(at);
  const added: string[] = [];
  if (o.model !== undefined) {
    rest = without(rest, optionNames(flags.model!), true);
    added.push(`${flags.model!.flag}=${o.model}`);
  }
  if (o.maxTurns !== undefined) {
    rest = without(rest, optionNames(flags.maxTurns!), true);
    added.push(`${flags.maxTurns!.flag}=${o.maxTurns}`);
  }
  if (o.permission !== undefined) {
    const { levels, replaces } = flags.permission!;
    for (const [name, takesValue] of Object.entries(replaces)) rest = without(rest, [name], takesValue);
    const level = levels[o.permission];
    added.push(level.value === undefined ? level.flag : `${level.flag}=${level.value}`);
  }
  // Added to whatever the command already allows: each CLI gathers repeated lists into one.
  for (const tool of o.tools ?? []) added.push(`${flags.tools!.flag}=${tool}`);
  const env = o.permission !== undefined ? flags.permission!.levels[o.permission].env : undefined;
  return {
    ...agent,
    command: [...agent.command.slice(0, at), ...added, ...rest],
    ...(env ? { env: { ...agent.env, ...env } } : {}),
  };
}

const optionNames = (o: CliOption): string[] => [o.flag, ...(o.aliases ?? [])];

/**
 * Where the CLI's own options start: after `exec` for codex, else after the element naming the
 * CLI (`npx claude`), else before the first option (`node cli.js -p`), else after the executable.
 */
function headEnd(agent: AgentDef): number {
  const c = agent.command;
  const family = agentFamily(agent);
  if (family === 'codex') {
    const exec = c.indexOf('exec');
    if (exec > 0) return exec + 1;
  }
  const named = c.findIndex(
    (a) =>
      a
        .split(/[\\/]/)
        .pop()!
        .replace(/\.(cmd|exe|bat|js|mjs)$/i, '')
        .toLowerCase() === family,
  );
  if (named >= 0) return named + 1;
  const option = c.findIndex((a, i) => i > 0 && a.startsWith('-'));
  return option > 0 ? option : Math.min(1, c.length);
}

/** `args` without the options named `names` (as `--x v`, `--x=v` or a bare switch), up to a `--`. */
function without(args: readonly string[], names: readonly string[], takesValue: boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (PROMPT.test(a)) {
      out.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    if (!names.includes(name)) {
      out.push(a);
      continue;
    }
    if (takesValue && name === a && i + 1 < args.length && !PROMPT.test(args[i + 1]!)) i++;
  }
  return out;
}
