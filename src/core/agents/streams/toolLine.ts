// One readable line per tool call, `→ Bash: npm test`, whichever agent made it: the argument a
// person would want to see (the command, the file, the pattern), on one line, cut to fit.
import { obj, str, type JsonObject } from './lineStream';

const WIDTH = 160;

// The argument that says what a call does, by the tool names the CLIs use (claude's Bash/Read,
// gemini's run_shell_command/read_file, MCP tools' usual names).
const KEYS = [
  'command',
  'file_path',
  'absolute_path',
  'path',
  'notebook_path',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
  'dir_path',
  'paths',
];

/** `→ name: summary of input` on one line. */
export function toolLine(name: string, input: unknown): string {
  const what = summarize(obj(input));
  return what === '' ? `→ ${name}` : `→ ${name}: ${what}`;
}

/** A single line, cut to the log's width with an ellipsis. */
export function oneLine(text: string, width = WIDTH): string {
  const flat = text
    .replace(/\s*\n\s*/g, ' ⏎ ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

function summarize(input: JsonObject | undefined): string {
  if (!input) return '';
  for (const key of KEYS) {
    const v = input[key];
    if (typeof v === 'string' && v.trim() !== '') return oneLine(v);
    if (Array.isArray(v) && v.length > 0) return oneLine(v.map(String).join(', '));
  }
  if (Array.isArray(input.todos)) return `${input.todos.length} todos`;
  const first = Object.values(input)
    .map(str)
    .find((s) => s !== undefined && s.trim() !== '');
  return first === undefined ? '' : oneLine(first);
}
