// How an agent's command takes its prompt, by a rule that needs no knowledge of shells: values
// (needs' outputs, matrix values, the context) become text only in an agent whose definition says
// its command reads the prompt as text (`input: text`: the claude, codex, gemini and aider
// presets). Any other command may run what it is given (`sh -c`, `timeout 600 sh -c`, `python3
// -c`, `git -c alias.x=!…`: no list of them is ever complete), so there every template stays an
// environment-variable reference, `${BRAID_…}`, with the value in the command's environment, as in
// a `run` step. The prompt's text is always in the environment too, as BRAID_PROMPT.
import type { AgentDef } from './agentDef';
import { parseTemplates, shellTemplate, type TemplateRef } from '../templates';

const PROMPT = /\$\{\{\s*prompt\s*\}\}/g;
const ONLY_PROMPT = /^\$\{\{\s*prompt\s*\}\}$/;
// `--name=${{ … }}`: an option's value, whole. Any other text around a template makes one
// argument of the value and the text, which is how code is written (`print('${{ prompt }}')`).
const OPTION_VALUE = /^--?[A-Za-z0-9][A-Za-z0-9_.-]*=$/;

/** The environment variable that always holds the prompt's text. */
export const PROMPT_ENV = 'BRAID_PROMPT';

/** Whether the agent's command reads its prompt (and its templates' values) as text. */
export const takesText = (agent: Pick<AgentDef, 'input'>): boolean => agent.input === 'text';

/**
 * A code agent's command with every template a reference: each `${{ prompt }}` becomes the
 * prompt as written, whose templates then become `${NAME}` like every other template in the
 * command; `stdin` is that prompt for an agent that reads it on stdin. `vars` are the names to set
 * (NAME = the template's value), named once across all of them so two never share a name.
 */
export function codeCommand(
  agent: Pick<AgentDef, 'command' | 'stdin'>,
  source: string,
): {
  command: string[];
  stdin?: string;
  vars: { name: string; ref: TemplateRef }[];
} {
  const onStdin = agent.stdin === 'prompt';
  const elements = agent.command.filter((a) => !(onStdin && ONLY_PROMPT.test(a)));
  // Argv elements hold no NUL, so one pass over them all names every template once.
  const pieces = elements.map((a) => a.split(PROMPT).join(source));
  if (onStdin) pieces.push(source);
  const { script, vars } = shellTemplate(pieces.join('\0'));
  const out = script.split('\0');
  const stdin = onStdin ? out.pop()! : undefined;
  return { command: out, vars, ...(stdin !== undefined ? { stdin } : {}) };
}

/** The templates a text agent's argument would splice into longer text (refused: promptInput's rule). */
export function splicedTemplates(element: string): TemplateRef[] {
  const { refs } = parseTemplates(element);
  if (refs.length === 1) {
    const [r] = refs;
    if (r!.end === element.length && (r!.start === 0 || OPTION_VALUE.test(element.slice(0, r!.start)))) return [];
  }
  return refs;
}

/** The located error's text for a spliced template: what to write instead. */
export function splicedMessage(ref: TemplateRef): string {
  const shown = `\${{ ${ref.expr} }}`;
  const whole =
    ref.expr === 'prompt'
      ? `pass it as a whole argument ("${shown}"), or let a shell read it from the environment, where the prompt always is: [bash, -c, 'mytool "$${PROMPT_ENV}"']`
      : `pass it as a whole argument ("${shown}") or as an option's value ("--name=${shown}")`;
  return `${shown} inside a longer argument: its value would become part of text this command may run as code; ${whole}`;
}
