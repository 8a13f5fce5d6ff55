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

/**
 * A text agent's whole-argument templates that a program would read as options: a value that
 * starts with `-` (`--exec=touch x`) is an option wherever the program still reads them. An
 * argument is out of their reach only after `--` (with nothing but such arguments between), or as
 * an option's own `--name=` value; an element after `--message` may be that option's value or a
 * positional one, which only the program knows, so it counts as bare. Each bare one: its index,
 * and the option before it (to show as `--name=${{ … }}`). `${{ prompt }}` is bare only as a
 * place: what starts the prompt decides (promptStartProblem); a stdin agent's is not in argv.
 */
export function bareTemplates(
  agent: Pick<AgentDef, 'command' | 'stdin'>,
): { index: number; ref: TemplateRef; option?: string }[] {
  const out: { index: number; ref: TemplateRef; option?: string }[] = [];
  let guarded = false;
  agent.command.forEach((el, index) => {
    if (agent.stdin === 'prompt' && ONLY_PROMPT.test(el)) return;
    const { refs } = parseTemplates(el);
    const whole = refs.length === 1 && refs[0]!.start === 0 && refs[0]!.end === el.length;
    if (!whole) {
      guarded = el === '--';
      return;
    }
    if (guarded) return;
    const before = agent.command[index - 1];
    const option = before !== undefined && /^--?[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(before) ? before : undefined;
    out.push({ index, ref: refs[0]!, ...(option ? { option } : {}) });
  });
  return out;
}

const OPTION_EXAMPLE = '--exec=touch x';

/** The located error's text for a bare value template (bareTemplates): what to write instead. */
export function bareMessage(ref: TemplateRef, option?: string): string {
  const shown = `\${{ ${ref.expr} }}`;
  const safe = option
    ? `"${option}=${shown}" (one argument), or "--" before it if it is not ${option}'s value`
    : `"--" before it ([mytool, --, "${shown}"]) or an option's value ("--name=${shown}")`;
  return `${shown} is a whole argument where the command still reads options: a value starting with "-" (${OPTION_EXAMPLE}) would be read as one; write ${safe}`;
}

/**
 * Why a prompt cannot go to a text agent that takes it as a bare argument (`lead`: the text it
 * starts with; `fromContext`: that is the plan's context, put in front): a value first (a
 * template), or a `-`. Undefined when plain text other than `-` starts it.
 */
export function promptStartProblem(
  lead: string,
  agentName: string,
  fromContext = false,
): { ref?: TemplateRef; message: string } | undefined {
  const first = parseTemplates(lead).refs[0];
  const what = fromContext ? 'the plan context, put before the prompt,' : 'the prompt';
  const fix = `start ${fromContext ? 'the context' : 'the prompt'} with text, or put "--" before "\${{ prompt }}" in ${agentName}'s command ([mytool, --, "\${{ prompt }}"])`;
  const reads = `${agentName} takes the prompt as a whole argument where it still reads options`;
  if (first && first.start === 0)
    return {
      ref: first,
      message: `${what} starts with \${{ ${first.expr} }}, and ${reads}: a value starting with "-" (${OPTION_EXAMPLE}) would be read as one; ${fix}`,
    };
  if (lead.startsWith('-'))
    return { message: `${what} starts with "-", and ${reads}: it would be read as one; ${fix}` };
  return undefined;
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
