// Values shaped as every way text becomes shell syntax (issue 32's attacker pass), each through
// every command form that takes a value as a reference: `run`, `setup`, `check`, a step's `env`,
// `agent: shell`, a code agent behind a wrapper (`timeout 600 sh -c`), `env -S`, and a text agent
// (`input: text`, the value a whole argv element after `--`), as a need's output and as a matrix value. If
// any became code it would create its own `pwned-*` file; where quoted, each must arrive whole.
import { resolve } from 'node:path';

/** [key, value]: each would create `pwned-<key>` if a shell ran it, or (glob, dash) change what arrives. */
export const PAYLOADS: readonly (readonly [string, string])[] = [
  ['dollar', '$(touch pwned-dollar)'],
  ['tick', '`touch pwned-tick`'],
  ['sq', "'; touch pwned-sq; '"],
  ['dq', '"; touch pwned-dq; "'],
  ['nl', 'x\ntouch pwned-nl\nx'],
  ['ifs', ';touch${IFS}pwned-ifs;'],
  ['semi', 'x; touch pwned-semi'],
  ['pipe', '| touch pwned-pipe'],
  ['amp', 'x && touch pwned-amp'],
  ['nested', '"$(touch pwned-nested)"\'$(touch pwned-nested)\''],
  ['brace', '${x:-$(touch pwned-brace)}'],
  // Not code: a reference in double quotes is never split or globbed, so both arrive as written.
  ['glob', 'pwned-glob-* ?'],
  ['dash', '-n -e pwned-dash'],
];

/** `value` written into a script as a renderer that splices values would: bare, in double quotes, in single quotes. */
export function spliced(value: string): string[] {
  return [`echo ${value}`, `echo "${value}"`, `echo '${value}'`];
}

const q = (s: string): string => JSON.stringify(s);
const OPTION_TOOL = resolve(__dirname, '../fixtures/agents/optionTool.mjs');
const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** A shell command that prints its argument on a line, quoted as an author should. */
const print = (template: string): string => `printf '%s\\n' "${template}"`;

/** The command forms a value goes through, per payload: step id prefix → the step's YAML lines. */
function consumers(key: string): string[] {
  const out = `\${{ steps.src-${key}.output }}`;
  const step = (id: string, ...lines: string[]) => [`  ${id}-${key}:`, `    needs: [src-${key}]`, ...lines];
  return [
    `  src-${key}:`,
    `    run: ${q(`printf '%s' ${shellQuote(PAYLOADS.find(([k]) => k === key)![1])}`)}`,
    // run, setup, check and env at once: the check fails the step unless both ways agree.
    ...step(
      'run',
      `    env: { V: ${q(out)} }`,
      `    setup: ${q(`${print(out)} > /dev/null`)}`,
      `    run: ${q(`${print(out)}; printf '%s\\n' "$V"`)}`,
      `    check: ${q(`test "${out}" = "$V"`)}`,
    ),
    ...step('shell', '    agent: shell', `    prompt: ${q(print(out))}`),
    ...step('wrap', '    agent: wrap', `    prompt: ${q(print(out))}`),
    // env -S re-reads its string (the documented limit): here only that nothing is created.
    ...step('envs', '    agent: envs', `    prompt: ${q(print(out))}`, '    continue-on-error: true'),
    ...step('text', '    agent: say', `    prompt: ${q(out)}`),
  ];
}

/** The plan: every payload through every form, and all of them as one matrix through `run` and `agent: shell`. */
export function payloadPlan(): string {
  const values = `[${PAYLOADS.map(([, v]) => q(v)).join(', ')}]`;
  return `${[
    'version: 1',
    'name: Value payloads',
    'concurrency: 6',
    'agents:',
    '  wrap: { command: [timeout, "600", sh, -c, "${{ prompt }}"], input: code }',
    `  envs: { command: [env, -S, "sh -c '\${{ prompt }}'"], input: code }`,
    // A CLI with a real option parser: the prompt after `--`, so even the leading `-` arrives as text.
    `  say: { command: [${q(process.execPath)}, ${q(OPTION_TOOL)}, --, "\${{ prompt }}"], input: text }`,
    'steps:',
    ...PAYLOADS.flatMap(([key]) => consumers(key)),
    '  mx:',
    `    matrix: { p: ${values} }`,
    `    run: ${q(print('${{ matrix.p }}'))}`,
    '  mxshell:',
    `    matrix: { p: ${values} }`,
    '    agent: shell',
    `    prompt: ${q(print('${{ matrix.p }}'))}`,
  ].join('\n')}\n`;
}

/** What each step prints when every value arrived whole: step id → output. */
export function payloadOutputs(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of PAYLOADS) {
    out.set(`run-${key}`, `${value}\n${value}\n`);
    for (const form of ['shell', 'wrap', 'text']) out.set(`${form}-${key}`, `${value}\n`);
  }
  return out;
}
