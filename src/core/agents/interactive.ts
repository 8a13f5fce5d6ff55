// A step's agent CLI opened for a person (`braid attach`): the step's own command without what
// makes it headless, continuing the step's session where the CLI can (`claude --resume ID`,
// `codex resume ID`, `gemini --resume ID`, the forms their `--help` gives), else a fresh session
// told the step's prompt and what happened so far. The permission, model and tool flags the step
// ran with stay, so the person's session may do what the step's could, no more.
//
// Codex's TUI (0.16x on) is by default a client of a shared background server that keeps a turn
// running after the person quits ("Any running work continues"): the worktree would go on changing
// after Braid took it as the attempt. `--no-daemon` runs the session in the CLI's own process, so
// leaving the CLI ends its work.
import type { AgentDef } from './agentDef';
import { agentFamily } from './presets';
import { canResume } from './resume';

export interface InteractiveCommand {
  readonly argv: string[];
  /** The session it continues; absent for a fresh session. */
  readonly resumed?: string;
  /** Why it could not continue the session (said to the person before the CLI opens). */
  readonly why?: string;
}

// Same shape as resume.ts's: one argv element, never a flag, never a template.
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const PROMPT = /\$\{\{\s*prompt\s*\}\}/;
const NO_DAEMON = '--no-daemon';

// Headless-only options of each CLI, with whether each takes a value.
const HEADLESS: Readonly<Record<'claude' | 'codex' | 'gemini', Readonly<Record<string, boolean>>>> = {
  claude: {
    '-p': false,
    '--print': false,
    '--output-format': true,
    '--input-format': true,
    '--verbose': false,
    '--include-partial-messages': false,
    '--replay-user-messages': false,
    '--max-turns': true,
    '--max-budget-usd': true,
    '-c': false,
    '--continue': false,
    '-r': true,
    '--resume': true,
    '--session-id': true,
    '--fork-session': false,
  },
  codex: {
    exec: false,
    '--json': false,
    '--skip-git-repo-check': false,
    '-o': true,
    '--output-last-message': true,
    '--output-schema': true,
    '--color': true,
    '--experimental-json': false,
  },
  gemini: {
    '-p': true,
    '--prompt': true,
    '--output-format': true,
    '-o': true,
    '-r': true,
    '--resume': true,
    '--session-id': true,
    '-i': true,
    '--prompt-interactive': true,
  },
};

/**
 * The interactive command for `agent` (the step's agent, its step flags applied), continuing
 * `sessionId` where its CLI can; else undefined argv for an agent Braid has no interactive form
 * of (the caller runs its usual command with `freshPrompt`), with `why`.
 */
export function interactiveCommand(
  agent: AgentDef,
  sessionId: string | undefined,
  freshPrompt: string,
): InteractiveCommand | { argv?: undefined; why: string } {
  const family = agentFamily(agent);
  if (family !== 'claude' && family !== 'codex' && family !== 'gemini') {
    return {
      why: `${agent.name} cannot continue a session: a fresh one starts with the step's prompt and what happened so far`,
    };
  }
  const kept = strip(agent.command, HEADLESS[family]);
  const resumable = sessionId !== undefined && SESSION_ID.test(sessionId) && (family !== 'codex' || canResume(agent));
  if (resumable) {
    if (family === 'codex')
      return { argv: [kept[0]!, 'resume', NO_DAEMON, ...kept.slice(1), '--', sessionId], resumed: sessionId };
    return { argv: [...kept, '--resume', sessionId], resumed: sessionId };
  }
  const why =
    sessionId === undefined
      ? `the step's ${family} session was never reported, so it cannot be continued: a fresh session starts with the step's prompt and what happened so far`
      : `the step's session id ${JSON.stringify(sessionId)} cannot be passed on: a fresh session starts with the step's prompt and what happened so far`;
  // The prompt as one element after `--` (claude, codex) or glued to its flag (gemini): never read as an option.
  if (family === 'gemini') return { argv: [...kept, `--prompt-interactive=${freshPrompt}`], why };
  if (family === 'codex') return { argv: [...kept, NO_DAEMON, '--', freshPrompt], why };
  return { argv: [...kept, '--', freshPrompt], why };
}

/** `command` without the options in `drop` (and their values), the prompt template and `--`. */
function strip(command: readonly string[], drop: Readonly<Record<string, boolean>>): string[] {
  const out = [command[0]!];
  for (let i = 1; i < command.length; i++) {
    const a = command[i]!;
    if (a === '--' || PROMPT.test(a)) continue;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const takesValue = drop[flag];
    if (takesValue === undefined) {
      out.push(a);
      continue;
    }
    if (takesValue && eq < 0) i++;
  }
  return out;
}

// What tells a CLI that nobody is at the terminal, whatever the TTY says: gemini turns headless on
// CI=true or GITHUB_ACTIONS=true, and ink (claude's and codex's TUIs) draws only the last frame when
// `is-in-ci` holds (CI, CONTINUOUS_INTEGRATION or any CI_* set). A handover is for a person.
const NOBODY_THERE = /^(?:CI|CONTINUOUS_INTEGRATION|GITHUB_ACTIONS|CI_.*)$/;

/** The environment of a handed-over CLI: `base` without the CI markers, then the step's `own`. */
export function personEnv(base: NodeJS.ProcessEnv, own: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (!NOBODY_THERE.test(k)) env[k] = v;
  return { ...env, ...own };
}
