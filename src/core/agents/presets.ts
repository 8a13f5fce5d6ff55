// The agent presets, in one table. Flags follow each CLI's documented headless mode; a test
// checks them against the real `--help` of the published CLIs.
import type { AgentDef } from '../plan/types';

const preset = (d: Omit<AgentDef, 'env' | 'context'> & Partial<Pick<AgentDef, 'env' | 'context'>>): AgentDef =>
  ({ env: {}, context: true, ...d });

export const PRESETS: Readonly<Record<string, AgentDef>> = {
  claude: preset({
    name: 'claude',
    command: ['claude', '-p', '${{ prompt }}', '--output-format', 'stream-json', '--verbose'],
    pool: 'anthropic',
    format: 'claude-stream-json',
  }),
  codex: preset({ name: 'codex', command: ['codex', 'exec', '--json', '${{ prompt }}'], pool: 'openai', format: 'codex-json' }),
  gemini: preset({ name: 'gemini', command: ['gemini', '-p', '${{ prompt }}'], pool: 'google', format: 'text' }),
  aider: preset({ name: 'aider', command: ['aider', '--yes-always', '--message', '${{ prompt }}'], format: 'text' }),
  shell: preset({ name: 'shell', command: ['sh', '-c', '${{ prompt }}'], context: false, format: 'text' }),
};

export const DEFAULT_AGENT = 'claude';

/** Install hints for a preset whose command is missing on the user's machine. */
export const INSTALL_HINTS: Readonly<Record<string, string>> = {
  claude: 'npm install -g @anthropic-ai/claude-code',
  codex: 'npm install -g @openai/codex',
  gemini: 'npm install -g @google/gemini-cli',
  aider: 'python -m pip install aider-install && aider-install',
};
