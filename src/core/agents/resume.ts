// Continuing an agent's earlier session instead of starting over, for the CLIs that can:
// `claude --resume ID -p … -- PROMPT`, `codex exec resume [OPTIONS] -- ID PROMPT` (the syntax of
// `codex exec resume --help`) and `gemini --resume ID --prompt=PROMPT …`. Gemini's help names
// "latest" or an index, but 0.61 takes a session id too; it finds sessions by folder, and a
// retry of a step runs in the same folder (the same worktree path) as its first attempt.
import type { AgentDef } from './agentDef';
import { agentFamily } from './presets';

/** The prompt a resumed session gets when the caller has no better one. */
export const RESUME_PROMPT = 'Continue where you left off and finish the task.';

// An id becomes one argv element after a flag: it must not look like a flag itself, nor hold a
// `${{` that the renderer would expand. Claude's are UUIDs, codex's UUIDs or thread names.
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

const PROMPT = /\$\{\{\s*prompt\s*\}\}/;

// `codex exec` options that `codex exec resume` does not accept (they are fixed by the session),
// with whether each takes a value; the sandbox is carried over as a config override instead.
const CODEX_RESUME_DROPS: Readonly<Record<string, boolean>> = {
  '-C': true,
  '--cd': true,
  '--add-dir': true,
  '-p': true,
  '--profile': true,
  '--local-provider': true,
  '--color': true,
  '--oss': false,
  '--approve-for-me': false,
};

/** Whether `agent`'s CLI can resume a session by id. */
export function canResume(agent: AgentDef): boolean {
  const family = agentFamily(agent);
  return family === 'claude' || family === 'gemini' || (family === 'codex' && agent.command.includes('exec'));
}

/**
 * The agent definition that resumes session `sessionId` of `agent` (render it with
 * agentInvocation and the continuation prompt, as for a first attempt); undefined when the agent
 * cannot resume or the id is not one an agent would print.
 */
export function resumeAgent(agent: AgentDef, sessionId: string): AgentDef | undefined {
  if (!SESSION_ID.test(sessionId) || !canResume(agent)) return undefined;
  const family = agentFamily(agent);
  const command =
    family === 'claude'
      ? claudeResume(agent.command, sessionId)
      : family === 'gemini'
        ? geminiResume(agent.command, sessionId)
        : codexResume(agent, sessionId);
  return command ? { ...agent, command } : undefined;
}

function claudeResume(command: readonly string[], id: string): string[] {
  const kept: string[] = [];
  for (let i = 0; i < command.length; i++) {
    const a = command[i]!;
    // An earlier session choice would contradict the one resumed.
    if (i > 0 && (a === '-c' || a === '--continue' || a === '--fork-session')) continue;
    if (i > 0 && (a === '--resume' || a === '-r' || a === '--session-id')) {
      i++;
      continue;
    }
    if (a.startsWith('--resume=') || a.startsWith('--session-id=')) continue;
    kept.push(a);
  }
  // Before -p: claude's own options, not a wrapper's (`npx claude`, `node cli.js`) ahead of it.
  let at = kept.findIndex((a, i) => i > 0 && (a === '-p' || a === '--print'));
  if (at === -1) at = kept.length;
  return [...kept.slice(0, at), '--resume', id, ...kept.slice(at)];
}

function geminiResume(command: readonly string[], id: string): string[] {
  const kept: string[] = [];
  for (let i = 0; i < command.length; i++) {
    const a = command[i]!;
    if (i > 0 && (a === '--resume' || a === '-r' || a === '--session-id')) {
      i++;
      continue;
    }
    if (a.startsWith('--resume=') || a.startsWith('--session-id=')) continue;
    kept.push(a);
  }
  return [kept[0]!, '--resume', id, ...kept.slice(1)];
}

function codexResume(agent: AgentDef, id: string): string[] | undefined {
  const command = agent.command;
  const exec = command.indexOf('exec');
  if (command[exec + 1] === 'resume') return undefined; // already a resume command: nothing sensible to build
  const options: string[] = [];
  const prompts: string[] = [];
  for (let i = exec + 1; i < command.length; i++) {
    const a = command[i]!;
    if (PROMPT.test(a)) {
      prompts.push(a);
      continue;
    }
    if (a === '--') continue; // placed again before the id
    const [flag, inline] =
      a.startsWith('--') && a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, undefined];
    if (flag === '-s' || flag === '--sandbox') {
      const mode = inline ?? command[++i];
      if (mode !== undefined) options.push('-c', `sandbox_mode="${mode}"`);
      continue;
    }
    const takesValue = CODEX_RESUME_DROPS[flag];
    if (takesValue !== undefined) {
      if (takesValue && inline === undefined) i++;
      continue;
    }
    options.push(a);
  }
  // With the prompt on stdin, `-` tells resume to read it there.
  const prompt = agent.stdin === 'prompt' ? ['-'] : prompts.slice(-1);
  if (prompt.length === 0) return undefined;
  return [...command.slice(0, exec + 1), 'resume', ...options, '--', id, ...prompt];
}
