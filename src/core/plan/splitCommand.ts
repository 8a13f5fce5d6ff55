// An agent `command` written as one string becomes argv the way a shell would split it, but it is
// never run by a shell: an operator (`|`, `&&`, `>`…) or a comment cannot mean anything here, so
// it is an error rather than a literal argument the user did not intend.
import { parse } from 'shell-quote';

export type SplitResult = { readonly argv: string[] } | { readonly error: string };

// shell-quote reads `${{ prompt }}` as a `${…}` parameter and mangles it, so templates are swapped
// for inert words first and put back into whichever argv element holds them.
const TEMPLATE = /\$\{\{[\s\S]*?\}\}/g;
const placeholder = (i: number): string => `BRAIDTEMPLATE${i}X`;
const PLACEHOLDER = /BRAIDTEMPLATE(\d+)X/g;

/** argv from a list (copied) or from one string split shell-style; an error for operators, comments or an empty command. */
export function splitCommand(command: string | readonly string[]): SplitResult {
  if (typeof command !== 'string') {
    return command.length === 0 ? { error: 'the command is empty' } : { argv: [...command] };
  }
  const templates: string[] = [];
  const masked = command.replace(TEMPLATE, (t) => placeholder(templates.push(t) - 1));
  const restore = (s: string): string => s.replace(PLACEHOLDER, (_, i: string) => templates[Number(i)] ?? '');
  // Keep `$NAME` literal: nothing expands variables in an argv that no shell sees.
  const tokens = parse(masked, (name) => `$${name}`);
  const argv: string[] = [];
  for (const t of tokens) {
    if (typeof t === 'string') argv.push(restore(t));
    else if ('comment' in t)
      return { error: `\`#${t.comment}\` is a shell comment; the command never reaches a shell` };
    else if (t.op === 'glob') argv.push(restore(t.pattern));
    else
      return {
        error: `\`${t.op}\` is a shell operator; the command never reaches a shell (write an argv list, or use a \`run\` step)`,
      };
  }
  if (argv.length === 0 || argv[0] === '') return { error: 'the command is empty' };
  return { argv };
}
