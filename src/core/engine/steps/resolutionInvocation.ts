// How a resolution attempt's agent runs (`on-conflict: resolve`, `braid resolve`): the step's own
// agent (or the one `--agent` names), continuing the step's session where its CLI can, with the
// conflict note as the prompt of a resumed session, else after the step's own prompt; and
// BRAID_CONFLICT_FILES, the conflicted paths one a line, in its environment. An agent that may run
// its prompt as code (no `input: text`, e.g. `agent: shell`) runs its script again with that variable set.
import { agentInvocation, promptWithContext } from '../../agents/invocation';
import { conflictNote } from '../../agents/conflictPrompt';
import { resumeAgent } from '../../agents/resume';
import { takesText } from '../../agents/promptInput';
import { stepAgent, stepAgentOptions } from '../../agents/stepAgent';
import type { AgentDef } from '../../agents/agentDef';
import { renderTemplate } from '../../templates';
import type { Resolving } from '../types';
import { lookupRef, stepEnv, stepInvocation, type Invocation, type RenderScope } from './render';

/** The agent a resolution runs: `--agent`'s, else the step's (with the step's flags only then: they were checked against it). */
export function resolutionAgent(scope: RenderScope, resolving: Resolving): AgentDef | undefined {
  const name = resolving.agent ?? scope.step.agent;
  const agent = name === undefined ? undefined : scope.graph.agents[name];
  if (!agent) return undefined;
  return name === scope.step.agent && scope.step.kind === 'prompt'
    ? stepAgent(agent, stepAgentOptions(scope.step))
    : agent;
}

export function resolutionInvocation(scope: RenderScope, resolving: Resolving): Invocation {
  const env = { ...stepEnv(scope), BRAID_CONFLICT_FILES: resolving.files.join('\n') };
  const agent = resolutionAgent(scope, resolving);
  if (!agent) throw new Error(`step ${scope.step.id}: no agent to resolve its conflict with`);
  const own = resolving.agent === undefined || resolving.agent === scope.step.agent;
  // A command that may run its prompt (promptInput.ts) runs its step's own invocation again, with
  // the conflicted files in its environment: the note, made of file and step names, is never its source.
  if (!takesText(agent)) {
    if (!own || scope.step.kind !== 'prompt')
      throw new Error(
        `step ${scope.step.id}: agent ${agent.name} takes no text and cannot resolve another step (resolveRequest.ts refuses it)`,
      );
    const inv = stepInvocation(scope);
    // The note reaches it as a value: after its prompt in BRAID_PROMPT (`[bash, -c, 'mytool "$BRAID_PROMPT"']`).
    const note = conflictNote(resolving.files, resolving.changedBy);
    const prompt: Record<string, string> =
      inv.env.BRAID_PROMPT !== undefined ? { BRAID_PROMPT: `${inv.env.BRAID_PROMPT.trimEnd()}\n\n${note}` } : {};
    return { ...inv, env: { ...inv.env, ...prompt, BRAID_CONFLICT_FILES: env.BRAID_CONFLICT_FILES } };
  }
  const render = (t: string) => renderTemplate(t, (r) => lookupRef(scope, env, r));
  const note = conflictNote(resolving.files, resolving.changedBy);
  const resuming = own && resolving.sessionId !== undefined ? resumeAgent(agent, resolving.sessionId) : undefined;
  if (resuming) {
    const inv = agentInvocation(resuming, render, note);
    return { ...inv, env: { ...env, ...inv.env }, resumed: resolving.sessionId! };
  }
  // A new session does not know the task: the step's prompt first (a `run` step's command, for `--agent`).
  const task =
    scope.step.kind === 'prompt'
      ? promptWithContext(agent, render(scope.step.prompt ?? ''), scope.graph.plan.context, false)
      : `The task was this shell command, run in this folder: ${scope.step.run ?? ''}`;
  const inv = agentInvocation(agent, render, `${task.trimEnd()}\n\n${note}`);
  return { ...inv, env: { ...env, ...inv.env } };
}
