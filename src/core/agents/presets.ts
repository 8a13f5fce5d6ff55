// The agent presets, in one table. Flags follow each CLI's documented headless mode; a test
// (test/contract/agentFlags.test.ts) checks every one against the real `--help` of the CLI versions
// scripts/setup-agents.sh pins.
import { AGENT_PERMISSIONS, DEFAULT_PERMISSION, type AgentPermission } from './permission';
import type { AgentDef } from './agentDef';
import { permissionArgs, permissionEnv } from './cliFlags'; // the permission flags, in the table of every CLI flag a step may ask for

export interface PresetOptions {
  readonly permission?: AgentPermission;
}

const preset = (d: Omit<AgentDef, 'env' | 'context'> & Partial<Pick<AgentDef, 'env' | 'context'>>): AgentDef =>
  Object.freeze({ env: {}, context: true, ...d });

/** The presets with `options` applied (plans compile with the user's `permission`: a setting, `--permission`). */
export function presetTable(options: PresetOptions = {}): Readonly<Record<string, AgentDef>> {
  const permission = options.permission ?? DEFAULT_PERMISSION;
  if (!AGENT_PERMISSIONS.includes(permission))
    throw new Error(`presetTable: unknown permission ${JSON.stringify(permission)}`);
  // The four agent CLIs read their prompt as text (`input: text`): it is their task, never their
  // code. `shell` runs its prompt, so its templates stay environment-variable references.
  // The prompt is always one argv element that no CLI can read as an option (a YAML bullet list
  // starts with `-`; a prompt may be exactly `--help`): after `--` for claude and codex, glued to
  // its flag for gemini and aider.
  return Object.freeze({
    claude: preset({
      name: 'claude',
      // The prompt last, after `--`: a prompt that starts with `-` (a YAML bullet list) is never read as an option.
      command: [
        'claude',
        '-p',
        '--output-format',
        'stream-json',
        '--verbose',
        ...permissionArgs('claude', permission),
        '--',
        '${{ prompt }}',
      ],
      env: permissionEnv('claude', permission),
      pool: 'anthropic',
      format: 'claude-stream-json',
      input: 'text',
    }),
    // --skip-git-repo-check: Braid runs agents in non-git workspaces too; the worktree and the
    // step's write set are its boundary, not codex's trusted-directory check.
    codex: preset({
      name: 'codex',
      // --skip-git-repo-check: Braid's worktree and write set are the boundary, and plans may run outside git.
      command: [
        'codex',
        'exec',
        '--json',
        '--skip-git-repo-check',
        ...permissionArgs('codex', permission),
        '--',
        '${{ prompt }}',
      ],
      pool: 'openai',
      format: 'codex-json',
      input: 'text',
    }),
    // --skip-trust: a step's worktree is a new folder gemini has never been told to trust, and
    // headless it exits rather than ask; Braid runs only in a workspace VS Code trusts.
    gemini: preset({
      name: 'gemini',
      command: [
        'gemini',
        '--prompt=${{ prompt }}',
        '--output-format',
        'stream-json',
        ...permissionArgs('gemini', permission),
        '--skip-trust',
      ],
      pool: 'google',
      format: 'gemini-json',
      input: 'text',
    }),
    // aider has no permission levels: it only edits files, and --yes-always is its headless mode.
    aider: preset({
      name: 'aider',
      // Glued to its flag: argparse refuses a separate value that looks like an option (`--x=…`).
      command: ['aider', '--yes-always', '--message=${{ prompt }}'],
      format: 'text',
      input: 'text',
    }),
    shell: preset({
      name: 'shell',
      command: ['sh', '-c', '${{ prompt }}'],
      context: false,
      format: 'text',
      input: 'code',
    }),
  });
}

export const PRESETS: Readonly<Record<string, AgentDef>> = presetTable();

export const DEFAULT_AGENT = 'claude';

/** Install hints for a preset whose command is missing on the user's machine. */
export const INSTALL_HINTS: Readonly<Record<string, string>> = {
  claude: 'npm install -g @anthropic-ai/claude-code',
  codex: 'npm install -g @openai/codex',
  gemini: 'npm install -g @google/gemini-cli',
  aider: 'python -m pip install aider-install && aider-install',
};

/** Which CLI an agent runs, for what differs between them (rate-limit messages, resuming). */
export type AgentFamily = 'claude' | 'codex' | 'gemini' | 'aider' | 'other';

/** The CLI behind `agent`: from its output format, else its executable's name (a custom `aider` command). */
export function agentFamily(agent: AgentDef): AgentFamily {
  switch (agent.format) {
    case 'claude-stream-json':
      return 'claude';
    case 'codex-json':
      return 'codex';
    case 'gemini-json':
      return 'gemini';
    case 'text':
      break;
  }
  const exe = (agent.command[0] ?? '')
    .split(/[\\/]/)
    .pop()!
    .replace(/\.(cmd|exe|bat|js|mjs)$/i, '')
    .toLowerCase();
  return exe === 'claude' || exe === 'codex' || exe === 'gemini' || exe === 'aider' ? exe : 'other';
}
