// Option injection into a text agent (issue 32): a value that starts with `-` (`--exec=touch x`)
// reaching an argument where the agent's CLI still reads options (test/fixtures/agents/optionTool.mjs,
// a real parser). Two plans: the forms that hold (after `--`, an option's `--name=` value, a bare
// `${{ prompt }}` whose prompt starts with text), which must run, create nothing and pass each value
// whole, with a control step proving the tool runs `--exec`; and the forms that would not (a bare
// value, a prompt that starts with a value), which validation must refuse before anything runs.
import { resolve } from 'node:path';

const TOOL = resolve(__dirname, '../fixtures/agents/optionTool.mjs');
const q = (s: string): string => JSON.stringify(s);
const tool = (...args: string[]) => `[${[process.execPath, TOOL].map(q).join(', ')}, ${args.join(', ')}]`;

/** The payload as a need's output (`src`) and as a matrix value, by what it would create. */
export const OPTION_PAYLOAD = (name: string): string => `--exec=touch ${name}`;

/** What each safe step prints when its value arrived whole (step id → output). */
export const SAFE_OUTPUTS: ReadonlyMap<string, string> = new Map([
  ['dashdash', `${OPTION_PAYLOAD('pwned-opt-dd')}\n`],
  ['valued', `${OPTION_PAYLOAD('pwned-opt-eq')}\n`],
  ['texted', `got ${OPTION_PAYLOAD('pwned-opt-text')}\n`],
  ['mx', `${OPTION_PAYLOAD('pwned-opt-mx')}\n`],
  ['dashprompt', '- a bullet\n'],
]);

/** Each safe form, an output and a matrix value as payloads, and `ctl`: the option written in the plan, which must run. */
export function safeOptionPlan(): string {
  return `${[
    'version: 1',
    'name: Option vectors',
    'agents:',
    `  dd: { command: ${tool('--', '"${{ prompt }}"')}, input: text }`,
    `  eq: { command: ${tool('"--say=${{ steps.src-eq.output }}"')}, input: text }`,
    `  lead: { command: ${tool('"${{ prompt }}"')}, input: text }`,
    `  mxdd: { command: ${tool('--', '"${{ matrix.p }}"')}, input: text }`,
    `  ctl: { command: ${tool(q(OPTION_PAYLOAD('ctl-opt')))}, input: text }`,
    'steps:',
    `  src-dd: { run: ${q(`printf '%s' '${OPTION_PAYLOAD('pwned-opt-dd')}'`)} }`,
    `  src-eq: { run: ${q(`printf '%s' '${OPTION_PAYLOAD('pwned-opt-eq')}'`)} }`,
    `  src-text: { run: ${q(`printf '%s' '${OPTION_PAYLOAD('pwned-opt-text')}'`)} }`,
    '  dashdash: { needs: [src-dd], agent: dd, prompt: "${{ steps.src-dd.output }}" }',
    '  valued: { needs: [src-eq], agent: eq, prompt: hi }',
    '  texted: { needs: [src-text], agent: lead, prompt: "got ${{ steps.src-text.output }}" }',
    `  mx: { agent: mxdd, prompt: hi, matrix: { p: [${q(OPTION_PAYLOAD('pwned-opt-mx'))}] } }`,
    '  dashprompt: { agent: dd, prompt: "- a bullet" }',
    '  ctl: { agent: ctl, prompt: hi }',
  ].join('\n')}\n`;
}

/** The forms validation refuses, in the order it lists them: a bare matrix value, a prompt that starts with a value; [where, code]. */
export const REFUSED: readonly (readonly [string, string])[] = [
  ['agents.mxbare.command[2]', 'bare-template'],
  ['steps.bare.prompt', 'bare-prompt'],
];

export function unsafeOptionPlan(): string {
  return `${[
    'version: 1',
    'agents:',
    `  lead: { command: ${tool('"${{ prompt }}"')}, input: text }`,
    `  mxbare: { command: ${tool('"${{ matrix.p }}"')}, input: text }`,
    'steps:',
    `  src: { run: ${q(`printf '%s' '${OPTION_PAYLOAD('pwned-opt-bare')}'`)} }`,
    '  bare: { needs: [src], agent: lead, prompt: "${{ steps.src.output }}" }',
    `  mx: { agent: mxbare, prompt: hi, matrix: { p: [${q(OPTION_PAYLOAD('pwned-opt-mxbare'))}] } }`,
  ].join('\n')}\n`;
}
