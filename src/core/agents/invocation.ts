// How a prompt step becomes a process for an agent that takes its prompt as text (promptInput.ts):
// the agent's argv template, rendered, with the prompt as one argv element (or on stdin). Nothing
// here goes through a shell; a command that may run its prompt gets references instead.
import type { AgentDef } from './agentDef';
import { bareTemplates } from './promptInput';

// `${{ prompt }}` with any spacing, as the template parser trims expressions.
const PROMPT = /\$\{\{\s*prompt\s*\}\}/g;
/** `${{ prompt }}` in an agent's command, with any spacing. */
export const PROMPT_TEMPLATE = PROMPT;
const ONLY_PROMPT = /^\$\{\{\s*prompt\s*\}\}$/;

export interface AgentInvocation {
  argv: string[];
  /** The agent's own env (rendered); the runner lays it over the plan's and the step's. */
  env: Record<string, string>;
  stdin?: string;
  cwd?: string;
}

/** The prompt an agent receives: the plan's context and a blank line first, when the agent takes context and the prompt did not place it itself. */
export function promptWithContext(
  agent: AgentDef,
  prompt: string,
  context: string | undefined,
  promptUsesContext: boolean,
): string {
  if (!agent.context || promptUsesContext || context === undefined || context.trim() === '') return prompt;
  // A YAML `|` block ends in a newline; trim it so exactly one blank line separates the two.
  return `${context.trimEnd()}\n\n${prompt}`;
}

/** The argv, env, stdin and cwd that run `agent` on `fullPrompt`; `render` expands the step's templates in each element. */
export function agentInvocation(
  agent: AgentDef,
  render: (template: string) => string,
  fullPrompt: string,
): AgentInvocation {
  const onStdin = agent.stdin === 'prompt';
  const fill = (template: string): string =>
    // Render the pieces around the prompt, never the prompt itself: its text is final, and a
    // `${{ … }}` written inside it must reach the agent verbatim.
    template.split(PROMPT).map(render).join(fullPrompt);
  const argv: string[] = [];
  // Validation keeps a value from starting an argument where the CLI reads options; a prompt it
  // never saw (a resolution by another agent, a person's message to a resumed session) is held
  // to the same rule here.
  const bare = new Set(bareTemplates(agent).map((b) => b.index));
  agent.command.forEach((element, i) => {
    if (onStdin && ONLY_PROMPT.test(element)) return;
    const arg = fill(element);
    if (bare.has(i) && arg.startsWith('-'))
      throw new Error(
        `agent ${agent.name}: argument ${i} would start with "-" (${JSON.stringify(arg.slice(0, 40))}) where ${agent.name} still reads options; put "--" before it in its command`,
      );
    argv.push(arg);
  });
  if (argv.length === 0 || argv[0] === '') {
    throw new Error(`agent ${agent.name}: command renders to no executable (${JSON.stringify(agent.command)})`);
  }
  const out: AgentInvocation = { argv, ...agentSurroundings(agent, render, fullPrompt) };
  if (onStdin) out.stdin = fullPrompt;
  return out;
}

/** The agent's own env and cwd, rendered: values (an environment and a folder are data, never code), `${{ prompt }}` the prompt's text. */
export function agentSurroundings(
  agent: Pick<AgentDef, 'env' | 'cwd'>,
  render: (template: string) => string,
  fullPrompt: string,
): { env: Record<string, string>; cwd?: string } {
  const fill = (template: string): string => template.split(PROMPT).map(render).join(fullPrompt);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(agent.env)) env[name] = fill(value);
  return { env, ...(agent.cwd !== undefined ? { cwd: fill(agent.cwd) } : {}) };
}
