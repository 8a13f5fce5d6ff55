// A private home for the real agent CLIs in the contract suite: its own HOME (0700, so gemini
// trusts the settings in it), each CLI's config pointing at the loopback model server, telemetry
// and update checks off, and the PATH that finds the pinned CLIs of scripts/setup-agents.sh.
//
//   const home = await agentHome(server.url);   // home.env: the environment for `braid run`
//   … ; await home.dispose();
import { statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
export const AGENTS_CACHE = process.env.BRAID_AGENTS_CACHE ?? join(ROOT, '.vscode-test', 'agents');
export const AGENTS_BIN = join(AGENTS_CACHE, 'node_modules', '.bin');
/**
 * Where the private homes go. Not under /tmp, nor anywhere below a world-writable folder: codex
 * refuses to set up its helpers in a temporary folder and gemini ignores settings below a
 * world-writable one. The checkout itself may be anywhere (CI clones it into a temporary folder),
 * so the homes live in the user's own cache unless BRAID_CONTRACT_HOMES names a place.
 */
const HOMES = process.env.BRAID_CONTRACT_HOMES ?? join(homedir(), '.cache', 'braid-contract', 'homes');

/** The provider id codex's config names the model server by (what `-c model_providers.<id>.…` takes). */
export const CODEX_PROVIDER = 'braidtest';
export const GEMINI_MODEL = 'gemini-2.5-flash';
/** A model codex has metadata for (an unknown one gets a notice and fewer tools). */
export const CODEX_MODEL = 'gpt-5.5';

export interface AgentHome {
  readonly dir: string;
  /** The whole environment for a run: no variable of the test's own process leaks in but PATH's system part. */
  readonly env: Record<string, string>;
  dispose(): Promise<void>;
}

export interface AgentHomeOptions {
  /** Extra gemini settings (merged at the top level). */
  readonly geminiSettings?: Record<string, unknown>;
}

export async function agentHome(modelUrl: string, options: AgentHomeOptions = {}): Promise<AgentHome> {
  await mkdir(HOMES, { recursive: true, mode: 0o700 });
  const insecure = worldWritableAncestor(HOMES);
  if (insecure)
    throw new Error(
      `the contract suite's agent homes (${HOMES}) sit below ${insecure}, which anyone may write: codex and gemini refuse that; set BRAID_CONTRACT_HOMES`,
    );
  const dir = await mkdtemp(join(HOMES, 'home-'));
  await chmod(dir, 0o700);
  const home = join(dir, 'home');
  const codexHome = join(home, '.codex');
  await mkdir(codexHome, { recursive: true, mode: 0o700 });
  await put(
    join(codexHome, 'config.toml'),
    [
      `model = "${CODEX_MODEL}"`,
      `model_provider = "${CODEX_PROVIDER}"`,
      'check_for_update_on_startup = false',
      '',
      // The pinned codex's catalog offers gpt-5.5 users its successor once, in the TUI ("Try new
      // model / Use existing model"), and writes the answer here; a person who had used codex
      // before `braid attach` has answered it already (`codex exec` never asks).
      '[notice.model_migrations]',
      `"${CODEX_MODEL}" = "gpt-6-sol"`,
      '',
      '[analytics]',
      'enabled = false',
      '',
      `[model_providers.${CODEX_PROVIDER}]`,
      'name = "Braid contract tests"',
      `base_url = "${modelUrl}/v1"`,
      'wire_api = "responses"',
      'env_key = "BRAID_TEST_OPENAI_KEY"',
      '',
    ].join('\n'),
  );
  await put(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify(
      {
        security: { auth: { selectedType: 'gemini-api-key' } },
        // An explicit model: the default `auto` router makes calls of its own and retries them.
        model: { name: GEMINI_MODEL },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        ...options.geminiSettings,
      },
      null,
      2,
    ),
  );
  // Claude: onboarding done, so headless runs never stop at a first-run screen.
  await put(
    join(home, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, bypassPermissionsModeAccepted: true }),
  );
  const env: Record<string, string> = {
    PATH: `${AGENTS_BIN}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    TMPDIR: tmpdir(),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    // A home may sit inside some git checkout: git must not take that for the workspace's repository.
    GIT_CEILING_DIRECTORIES: HOMES,
    // claude
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-ant-braid-contract-test',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // codex
    CODEX_HOME: codexHome,
    BRAID_TEST_OPENAI_KEY: 'sk-braid-contract-test',
    // gemini
    GEMINI_API_KEY: 'braid-contract-test',
    GOOGLE_GEMINI_BASE_URL: modelUrl,
    GEMINI_CLI_NO_RELAUNCH: 'true',
  };
  return { dir, env, dispose: () => rm(dir, { recursive: true, force: true }) };
}

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, text, { mode: 0o600 });
}

/** The nearest folder above `dir` that anyone may write to (not sticky-safe for the CLIs), if any. */
function worldWritableAncestor(dir: string): string | undefined {
  for (let d = dirname(dir); ; d = dirname(d)) {
    try {
      if ((statSync(d).mode & 0o002) !== 0) return d;
    } catch {
      /* not there yet */
    }
    if (dirname(d) === d) return undefined;
  }
}
