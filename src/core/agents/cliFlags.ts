// What a plan may ask of an agent's CLI beyond the prompt — which model, how many turns, how much
// it may do unasked, which tools it may use without asking — and each CLI's flag for it, in one
// table. The presets take their permission flags from here too. test/contract/agentFlags.test.ts
// checks every flag against the real `--help` of the versions scripts/setup-agents.sh pins.
import type { AgentPermission } from './permission';

/** The CLIs Braid knows flags for. */
export type FlagFamily = 'claude' | 'codex' | 'gemini' | 'aider';

/** One option of a CLI: the spelling Braid passes, and every spelling it replaces. */
export interface CliOption {
  readonly flag: string;
  /** Other spellings of the same option, removed from a command before the step's value is added. */
  readonly aliases?: readonly string[];
}

/** A permission level as argv: the flag and, unless it is a switch, its value; and the environment it needs. */
export interface PermissionArgs {
  readonly flag: string;
  readonly value?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface CliFlags {
  readonly model?: CliOption;
  readonly maxTurns?: CliOption;
  /** Tools allowed without asking: one `flag=TOOL` element per tool (the CLIs add repeated lists up). */
  readonly tools?: CliOption;
  readonly permission?: {
    readonly levels: Readonly<Record<AgentPermission, PermissionArgs>>;
    /** Every option that sets a permission, with whether it takes a value: a step's level replaces them. */
    readonly replaces: Readonly<Record<string, boolean>>;
  };
  /** Why the CLI cannot honour a key it has no flag for (shown in the located error). */
  readonly lacks: Readonly<Partial<Record<StepAgentKey, string>>>;
}

/** The step keys that become CLI flags. */
export type StepAgentKey = 'model' | 'max-turns' | 'permission' | 'tools';

export const CLI_FLAGS: Readonly<Record<FlagFamily, CliFlags>> = {
  // --max-turns is hidden from `claude --help` (claude-code 2.1.197) but parsed: the flags test
  // checks it by the parser's answer instead (an unknown option fails before anything else).
  claude: {
    model: { flag: '--model' },
    maxTurns: { flag: '--max-turns' },
    tools: { flag: '--allowedTools' },
    permission: {
      levels: {
        'read-only': { flag: '--permission-mode', value: 'default' },
        edit: { flag: '--permission-mode', value: 'acceptEdits' },
        // bypassPermissions refuses to run as root unless told the machine is a sandbox, which is
        // what `full` means (containers, CI).
        full: { flag: '--permission-mode', value: 'bypassPermissions', env: { IS_SANDBOX: '1' } },
      },
      replaces: {
        '--permission-mode': true,
        '--dangerously-skip-permissions': false,
        '--allow-dangerously-skip-permissions': false,
      },
    },
    lacks: {},
  },
  codex: {
    model: { flag: '--model', aliases: ['-m'] },
    permission: {
      levels: {
        'read-only': { flag: '--sandbox', value: 'read-only' },
        edit: { flag: '--sandbox', value: 'workspace-write' },
        full: { flag: '--dangerously-bypass-approvals-and-sandbox' },
      },
      replaces: {
        '--sandbox': true,
        '-s': true,
        '--dangerously-bypass-approvals-and-sandbox': false,
        '--full-auto': false,
      },
    },
    lacks: {
      'max-turns': 'codex exec has no turn limit',
      tools: 'codex has no list of allowed tools; its sandbox (`permission`) bounds what its commands may do',
    },
  },
  gemini: {
    model: { flag: '--model', aliases: ['-m'] },
    // Deprecated in favour of policy files, still honoured by 0.61: tools that run without confirmation.
    tools: { flag: '--allowed-tools' },
    permission: {
      levels: {
        'read-only': { flag: '--approval-mode', value: 'default' },
        edit: { flag: '--approval-mode', value: 'auto_edit' },
        full: { flag: '--approval-mode', value: 'yolo' },
      },
      replaces: { '--approval-mode': true, '--yolo': false, '-y': false },
    },
    lacks: { 'max-turns': 'gemini has no flag for it (only `model.maxSessionTurns` in its settings.json)' },
  },
  // aider only edits files (--yes-always is its headless mode): it has no levels to choose from.
  aider: {
    model: { flag: '--model' },
    lacks: {
      'max-turns': 'aider has no turn limit',
      permission: 'aider has no permission levels: Braid cannot narrow or widen what it does',
      tools: 'aider has no list of allowed tools',
    },
  },
};

/** A permission level as the argv elements a preset lists (`--permission-mode acceptEdits`). */
export function permissionArgs(family: 'claude' | 'codex' | 'gemini', permission: AgentPermission): string[] {
  const level = CLI_FLAGS[family].permission!.levels[permission];
  return level.value === undefined ? [level.flag] : [level.flag, level.value];
}

/** The environment a permission level needs (claude `full` as root: IS_SANDBOX=1); empty for most. */
export function permissionEnv(
  family: 'claude' | 'codex' | 'gemini',
  permission: AgentPermission,
): Readonly<Record<string, string>> {
  return CLI_FLAGS[family].permission!.levels[permission].env ?? {};
}
