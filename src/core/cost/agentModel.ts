// The model an agent will use when its stream does not say (codex never does): the step's
// `model`, else the one its CLI is configured with. Read from the CLI's own config file in the
// environment the step runs with, never guessed: an unknown model leaves the cost unknown.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentFamily } from '../agents/presets';

/** The model `family` runs with `argv` and `env` when it names none in its stream; undefined when Braid cannot tell. */
export function configuredModel(
  family: AgentFamily,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const flag = flagValue(argv, ['-m', '--model']);
  if (flag !== undefined) return flag;
  if (family !== 'codex') return undefined;
  const home = env.CODEX_HOME ?? join(env.HOME ?? homedir(), '.codex');
  let toml: string;
  try {
    toml = readFileSync(join(home, 'config.toml'), 'utf8');
  } catch {
    return undefined;
  }
  return topLevelModel(toml);
}

/** `model = "…"` before the first table header of a TOML file (codex's top-level model). */
export function topLevelModel(toml: string): string | undefined {
  for (const line of toml.split(/\r?\n/)) {
    if (/^\s*\[/.test(line)) return undefined;
    const m = /^\s*model\s*=\s*(?:"([^"]*)"|'([^']*)')\s*(?:#.*)?$/.exec(line);
    if (m) return m[1] ?? m[2];
  }
  return undefined;
}

function flagValue(argv: readonly string[], names: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break; // the prompt follows: never read a flag from it
    if (names.includes(a) && i + 1 < argv.length) found = argv[++i];
    else for (const n of names) if (n.startsWith('--') && a.startsWith(`${n}=`)) found = a.slice(n.length + 1);
  }
  return found;
}
