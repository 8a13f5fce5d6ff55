// How an agent CLI gets onto a GitHub runner: pinned, with its API keys from the repository's
// secrets. The npm versions are the ones scripts/setup-agents.sh pins (and the preset flag test
// checks); a test keeps the two in step.
import { agentFamily, type AgentFamily } from '../agents/presets';
import type { AgentDef } from '../agents/agentDef';
import { ghExpr } from './ghText';

export interface AgentSetup {
  readonly family: AgentFamily;
  /** Workflow steps before the agent runs (a toolchain, then the pinned install). */
  readonly steps: readonly Record<string, unknown>[];
  /** Secrets the agent's step reads: env name → secret name. */
  readonly secrets: Readonly<Record<string, string>>;
}

export const AGENT_PACKAGES = {
  claude: '@anthropic-ai/claude-code@2.1.197',
  codex: '@openai/codex@0.171.0',
  gemini: '@google/gemini-cli@0.61.0',
  aider: 'aider-chat==0.86.2',
} as const;

export const ACTIONS = {
  checkout: 'actions/checkout@v4',
  setupNode: 'actions/setup-node@v4',
  setupPython: 'actions/setup-python@v5',
  upload: 'actions/upload-artifact@v4',
  download: 'actions/download-artifact@v4',
} as const;

const secret = (name: string): string => ghExpr(`secrets.${name}`);

const node = { name: 'Set up Node.js', uses: ACTIONS.setupNode, with: { 'node-version': '20' } };

function npmInstall(pkg: string): Record<string, unknown> {
  return { name: `Install ${pkg} (pinned)`, run: `npm install --global --no-fund --no-audit ${pkg}` };
}

/** The set-up an agent needs on a runner; `undefined` for a command Braid cannot install (a custom one). */
export function agentSetup(agent: AgentDef): AgentSetup | undefined {
  const family = agentFamily(agent);
  switch (family) {
    case 'claude':
      return {
        family,
        steps: [node, npmInstall(AGENT_PACKAGES.claude)],
        secrets: { ANTHROPIC_API_KEY: 'ANTHROPIC_API_KEY' },
      };
    case 'codex':
      // codex exec reads CODEX_API_KEY; OPENAI_API_KEY too, for the commands it starts.
      return {
        family,
        steps: [node, npmInstall(AGENT_PACKAGES.codex)],
        secrets: { OPENAI_API_KEY: 'OPENAI_API_KEY', CODEX_API_KEY: 'OPENAI_API_KEY' },
      };
    case 'gemini':
      return {
        family,
        steps: [node, npmInstall(AGENT_PACKAGES.gemini)],
        secrets: { GEMINI_API_KEY: 'GEMINI_API_KEY' },
      };
    case 'aider':
      return {
        family,
        steps: [
          { name: 'Set up Python', uses: ACTIONS.setupPython, with: { 'python-version': '3.12' } },
          {
            name: `Install ${AGENT_PACKAGES.aider} (pinned)`,
            run: `python -m pip install --disable-pip-version-check ${AGENT_PACKAGES.aider}`,
          },
        ],
        secrets: {
          ANTHROPIC_API_KEY: 'ANTHROPIC_API_KEY',
          OPENAI_API_KEY: 'OPENAI_API_KEY',
          GEMINI_API_KEY: 'GEMINI_API_KEY',
        },
      };
    case 'other':
      // `sh -c …` (the shell preset) needs nothing; any other command is the plan's own to provide.
      return agent.command[0] === 'sh' || agent.command[0] === 'bash' ? { family, steps: [], secrets: {} } : undefined;
  }
}

/** The step env that hands an agent its keys. */
export function secretEnv(setup: AgentSetup): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, from] of Object.entries(setup.secrets)) env[name] = secret(from);
  return env;
}

/** Secrets a set of agents reads, sorted, for the workflow's header. */
export function secretNames(setups: Iterable<AgentSetup>): string[] {
  const names = new Set<string>();
  for (const s of setups) for (const from of Object.values(s.secrets)) names.add(from);
  return [...names].sort();
}
