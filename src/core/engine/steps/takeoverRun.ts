// What a takeover runs (takeover.ts): the CLI handed to a person, or the agent continued with a
// person's message. Both continue the attempt's session where its CLI can; a CLI that cannot gets
// a fresh session told the step's prompt and what happened so far.
import { interactiveCommand } from '../../agents/interactive';
import { stepAgent, stepAgentOptions } from '../../agents/stepAgent';
import type { AgentDef } from '../../agents/agentDef';
import { renderTemplate } from '../../templates';
import { lookupRef, stepEnv, stepInvocation, type Invocation, type RenderScope } from './render';
import type { Handover } from './takeover';

// What of the stopped agent's readable output a fresh session is told.
const SO_FAR_CHARS = 4000;

/** The run of `session` continued with `message` as its next prompt (a fresh run of the step's prompt and the message, where it cannot). */
export function saidInvocation(scope: RenderScope, session: string | undefined, message: string): Invocation {
  return stepInvocation(scope, session, message);
}

/** The CLI a person gets for the attempt in `cwd`: the step's agent, interactive, continuing `session`. */
export function handoverOf(
  scope: RenderScope,
  named: AgentDef,
  session: string | undefined,
  cwd: string,
  soFar: string,
): Handover {
  const agent = stepAgent(named, stepAgentOptions(scope.step));
  const fresh = freshPrompt(scope, soFar);
  const cmd = interactiveCommand(agent, session, fresh);
  // Only the definition's fixed values: a rendered one may hold a need's output.
  const env = Object.fromEntries(Object.entries(agent.env).filter(([, v]) => !v.includes('${{')));
  if (cmd.argv !== undefined)
    return {
      cwd,
      env,
      argv: cmd.argv,
      ...(cmd.resumed !== undefined ? { resumed: cmd.resumed } : {}),
      ...(cmd.why !== undefined ? { why: cmd.why } : {}),
    };
  // No interactive form Braid knows: the step's own command, with the fresh prompt.
  const inv = stepInvocation(scope, undefined, soFarNote(soFar));
  return { cwd, env, argv: inv.argv, why: cmd.why };
}

function freshPrompt(scope: RenderScope, soFar: string): string {
  const env = stepEnv(scope);
  const prompt = renderTemplate(scope.step.prompt ?? '', (r) => lookupRef(scope, env, r));
  return `${prompt}\n\n${soFarNote(soFar)}`;
}

function soFarNote(soFar: string): string {
  const tail = soFar.trim().slice(-SO_FAR_CHARS);
  return tail === ''
    ? 'An earlier session worked on this task in this folder; what it changed is here. Continue it with the person at the keyboard.'
    : `An earlier session worked on this task in this folder and was stopped; what it changed is here. The end of what it said:\n${tail}\n\nContinue it with the person at the keyboard.`;
}
