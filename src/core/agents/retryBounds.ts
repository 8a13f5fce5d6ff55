// Bounding the agent CLIs' own retry loops, so a rate limit reaches Braid in seconds and Braid's
// pool-wide back-off (which knows every step sharing the provider) decides when to try again.
// Left alone, on a persistent 429 claude retries 10 times over ~3 minutes (honouring
// retry-after), gemini makes 10 attempts over ~4 minutes, codex reconnects 5 times with 4
// request retries each. What each CLI offers:
// - claude: the CLAUDE_CODE_MAX_RETRIES variable.
// - gemini: the `general.maxAttempts` setting. It has no flag or variable, so Braid writes a
//   settings file of its own and names it in GEMINI_CLI_SYSTEM_SETTINGS_PATH. Gemini ignores a
//   settings file below a folder others can write (such as /tmp), so the file lives in the
//   user's home (HOME/.cache/braid), and a system settings file the user has is left alone.
// - codex: `request_max_retries` / `stream_max_retries` of the model provider, which `-c` can
//   set only for a provider defined in config.toml (the built-in `openai` cannot be
//   overridden), so they are set for the configured provider when it is one of the user's.
// A variable or setting the user set already wins.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentFamily } from './presets';

/** Retries each CLI may still make itself on a failed request (transient network errors). */
export const AGENT_RETRIES = { claude: 0, geminiAttempts: 1, codex: 0 } as const;

const GEMINI_SYSTEM_SETTINGS = '/etc/gemini-cli/settings.json';

export interface BoundedInvocation {
  readonly argv: string[];
  readonly env: Record<string, string>;
}

/** `argv` and `env` of an agent attempt with its CLI's own retries bounded. */
export async function boundRetries(
  family: AgentFamily,
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<BoundedInvocation> {
  if (family === 'claude') {
    return {
      argv: [...argv],
      env:
        env.CLAUDE_CODE_MAX_RETRIES !== undefined
          ? { ...env }
          : { ...env, CLAUDE_CODE_MAX_RETRIES: String(AGENT_RETRIES.claude) },
    };
  }
  if (family === 'gemini') return { argv: [...argv], env: await geminiEnv(env) };
  if (family === 'codex') return { argv: await codexArgv(argv, env), env: { ...env } };
  return { argv: [...argv], env: { ...env } };
}

async function geminiEnv(env: Readonly<Record<string, string>>): Promise<Record<string, string>> {
  if (env.GEMINI_CLI_SYSTEM_SETTINGS_PATH !== undefined || !env.HOME || existsSync(GEMINI_SYSTEM_SETTINGS))
    return { ...env };
  const dir = join(env.HOME, '.cache', 'braid');
  const file = join(dir, 'gemini-system-settings.json');
  const text = JSON.stringify({ general: { maxAttempts: AGENT_RETRIES.geminiAttempts } }, null, 2) + '\n';
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const now = await readFile(file, 'utf8').catch(() => undefined);
    if (now !== text) await writeFile(file, text, { mode: 0o600 });
  } catch {
    return { ...env }; // an unwritable home: gemini keeps its own retries
  }
  return { ...env, GEMINI_CLI_SYSTEM_SETTINGS_PATH: file };
}

async function codexArgv(argv: readonly string[], env: Readonly<Record<string, string>>): Promise<string[]> {
  const exec = argv.indexOf('exec');
  if (exec === -1) return [...argv];
  const home = env.CODEX_HOME ?? (env.HOME ? join(env.HOME, '.codex') : undefined);
  if (!home) return [...argv];
  const provider = codexProvider(await readFile(join(home, 'config.toml'), 'utf8').catch(() => ''), argv);
  if (!provider) return [...argv];
  const set = (key: string) => ['-c', `model_providers.${provider}.${key}=${AGENT_RETRIES.codex}`];
  return [
    ...argv.slice(0, exec + 1),
    ...set('request_max_retries'),
    ...set('stream_max_retries'),
    ...argv.slice(exec + 1),
  ];
}

/** The provider codex will use when config.toml defines it as a table of its own (never a built-in). */
export function codexProvider(configToml: string, argv: readonly string[] = []): string | undefined {
  // A `-c model_provider=…` on the command line wins over the file.
  let id: string | undefined;
  for (let i = 0; i < argv.length - 1; i++) {
    if (argv[i] === '-c' || argv[i] === '--config') {
      const m = /^model_provider\s*=\s*"?([A-Za-z0-9_-]+)"?$/.exec(argv[i + 1]!);
      if (m) id = m[1];
    }
  }
  if (id === undefined) {
    const top = configToml.split(/^\s*\[/m)[0] ?? '';
    id = /^\s*model_provider\s*=\s*"([A-Za-z0-9_-]+)"\s*$/m.exec(top)?.[1];
  }
  if (id === undefined) return undefined;
  const table = new RegExp(`^\\s*\\[model_providers\\.(?:"${id}"|${id})\\]\\s*$`, 'm');
  return table.test(configToml) ? id : undefined;
}
