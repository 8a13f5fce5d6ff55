// Agents whose command runs its prompt as code, each behind a different wrapper, option or
// interpreter (issue 32), as one plan. Each vector gets three steps: `val-N` whose prompt holds a
// need's output, `mx-N` (a matrix) whose prompt holds a matrix value, both payloads that would
// create `pwned-N-out` / `pwned-N-mx` if they ever became code, and `ctl-N`, whose prompt is the
// same code written in the plan itself: it must create `ctl-N`, which proves the vector really
// runs its prompt. A test runs the plan (locally, or exported) and looks at which files appeared.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface Vector {
  readonly id: string;
  /** The agent's definition under `agents:` (YAML flow text), or undefined for `agent: shell`. */
  readonly agent?: string;
  /** The language its prompt is code in: picks the payload and the prompt around it. */
  readonly lang: 'sh' | 'py' | 'node' | 'perl';
  /** Where the value goes: the prompt (default), or the command's own template (`command`). */
  readonly via?: 'command';
}

const q = (s: string): string => JSON.stringify(s);

// Commands whose last element is the prompt, run by what stands before it: [id, those elements].
const BEFORE_PROMPT: readonly (readonly [string, string])[] = [
  ['timeout', 'timeout, "600", sh, -c'],
  ['nice', 'nice, sh, -c'],
  ['nohup', 'nohup, sh, -c'],
  ['setsid', 'setsid, -w, sh, -c'],
  ['stdbuf', 'stdbuf, -oL, sh, -c'],
  ['flock', 'flock, .braid-vector.lock, -c'],
  ['envi', 'env, -i, "PATH=/usr/bin:/bin", sh, -c'],
  ['shopt', 'sh, -o, errexit, -c'],
  ['bashO', 'bash, -O, extglob, -c'],
  ['lc', 'bash, -lc'],
  ['dash', 'dash, -c'],
  // The attacker pass of the second session: option clusters and long options before -c, more wrappers.
  ['ec', 'sh, -ec'],
  ['norc', 'bash, --norc, --noprofile, -c'],
  ['ionice', 'ionice, -c, "3", sh, -c'],
  ['envdd', 'env, --, sh, -c'],
];

export const VECTORS: readonly Vector[] = [
  { id: 'shell', lang: 'sh' },
  ...BEFORE_PROMPT.map(([id, before]): Vector => ({ id, agent: `[${before}, "\${{ prompt }}"]`, lang: 'sh' })),
  { id: 'xargs', agent: '{ command: [xargs, "-0", sh, -c], stdin: prompt }', lang: 'sh' },
  { id: 'envs', agent: `[env, -S, "sh -c '\${{ prompt }}'"]`, lang: 'sh' },
  { id: 'find', agent: '[find, ., -maxdepth, "0", -exec, sh, -c, "${{ prompt }}", ";"]', lang: 'sh' },
  { id: 'su', agent: '[su, -c, "${{ prompt }}", root]', lang: 'sh' },
  { id: 'script', agent: '[script, -qc, "${{ prompt }}", /dev/null]', lang: 'sh' },
  { id: 'gitalias', agent: '[git, -c, "alias.braidx=!${{ prompt }}", braidx]', lang: 'sh' },
  { id: 'stdin', agent: '{ command: [bash], stdin: prompt }', lang: 'sh' },
  { id: 'onestring', agent: q('bash -c "${{ prompt }}"'), lang: 'sh' },
  { id: 'inside', agent: `[bash, -c, 'echo start; \${{ prompt }}']`, lang: 'sh' },
  // The prompt as a later argument that a program hands to a shell.
  { id: 'argsh', agent: `[sh, -c, 'sh -c "$1"', braid, "\${{ prompt }}"]`, lang: 'sh' },
  {
    id: 'pysub',
    agent: `[python3, -c, "import subprocess, sys; subprocess.run(['sh', '-c', sys.argv[1]])", "\${{ prompt }}"]`,
    lang: 'sh',
  },
  // eval of the prompt as written: it holds references, so eval expands each once, as data.
  { id: 'evalarg', agent: `[sh, -c, 'eval "$1"', sh, "\${{ prompt }}"]`, lang: 'sh' },
  { id: 'evalstdin', agent: `{ command: [bash, -c, 'eval "$(cat)"'], stdin: prompt }`, lang: 'sh' },
  { id: 'xargsI', agent: '{ command: [xargs, "-0", -I, "{}", sh, -c, "{}"], stdin: prompt }', lang: 'sh' },
  // Interpreters that hand the prompt to a shell themselves.
  { id: 'awk', agent: `[awk, 'BEGIN { system("\${{ prompt }}") }']`, lang: 'sh' },
  { id: 'pysystem', agent: `[python3, -c, "import os; os.system('\${{ prompt }}')"]`, lang: 'sh' },
  { id: 'perlsystem', agent: `[perl, -e, 'system(q{\${{ prompt }}})']`, lang: 'sh' },
  { id: 'python', agent: '[python3, -c, "${{ prompt }}"]', lang: 'py' },
  { id: 'node', agent: '[node, -e, "${{ prompt }}"]', lang: 'node' },
  { id: 'perl', agent: '[perl, -e, "${{ prompt }}"]', lang: 'perl' },
  // The value in the command's own template, not the prompt's: VALUE is the step's template.
  { id: 'cmdtpl', agent: '[nice, sh, -c, "echo VALUE; ${{ prompt }}"]', lang: 'sh', via: 'command' },
];

/** Code in `lang` that creates the file `name` (in the working directory). */
function creates(lang: Vector['lang'], name: string): string {
  switch (lang) {
    case 'sh':
      return `$(touch ${name})`;
    case 'py':
      return `__import__("os").system("touch ${name}")`;
    case 'node':
      return `require("fs").writeFileSync("${name}", "")`;
    case 'perl':
      return `system("touch ${name}")`;
  }
}

/** The prompt around a value (a template, or code written in the plan): code that runs it in `lang`. */
function around(lang: Vector['lang'], inner: string): string {
  switch (lang) {
    case 'sh':
      return `echo ${inner}`;
    case 'py':
      return `print(${inner})`;
    case 'node':
      return `console.log(${inner})`;
    case 'perl':
      return `print(${inner})`;
  }
}

/** The plan: every vector's agent, a source step per vector whose output is its payload, and the three steps each. */
export function vectorPlan(vectors: readonly Vector[] = VECTORS): string {
  const lines = ['version: 1', 'name: Injection vectors', 'concurrency: 6', 'agents:'];
  for (const v of vectors) {
    if (!v.agent) continue;
    if (v.via === 'command') {
      // One agent a step: the value is named in the command itself.
      for (const [suffix, value] of [
        ['out', `\${{ steps.src-${v.id}.output }}`],
        ['mx', '${{ matrix.p }}'],
        ['ctl', creates(v.lang, `ctl-${v.id}`)],
      ]) {
        lines.push(`  a-${v.id}-${suffix}: { command: ${v.agent.replace('VALUE', value!)} }`);
      }
    } else lines.push(`  a-${v.id}: ${v.agent.startsWith('{') ? v.agent : `{ command: ${v.agent} }`}`);
  }
  lines.push('steps:');
  for (const v of vectors) {
    const agent = (suffix: string) => (!v.agent ? 'shell' : v.via === 'command' ? `a-${v.id}-${suffix}` : `a-${v.id}`);
    const payload = creates(v.lang, `pwned-${v.id}-out`);
    lines.push(`  src-${v.id}:`, `    run: printf '%s' ${shellQuote(payload)}`);
    const step = (id: string, suffix: string, prompt: string, extra: string[] = []) => {
      const text = v.via === 'command' ? 'true' : prompt;
      lines.push(
        `  ${id}:`,
        `    agent: ${agent(suffix)}`,
        `    prompt: ${q(text)}`,
        '    continue-on-error: true',
        ...extra,
      );
    };
    step(`val-${v.id}`, 'out', around(v.lang, `\${{ steps.src-${v.id}.output }}`), [`    needs: [src-${v.id}]`]);
    step(`mx-${v.id}`, 'mx', around(v.lang, '${{ matrix.p }}'), [
      '    matrix:',
      `      p: [${q(creates(v.lang, `pwned-${v.id}-mx`))}]`,
    ]);
    step(`ctl-${v.id}`, 'ctl', around(v.lang, creates(v.lang, `ctl-${v.id}`)));
  }
  return lines.join('\n') + '\n';
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Every file under `root` whose name starts with `prefix`. */
export function filesNamed(root: string, prefix: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name.startsWith(prefix)) out.push(name);
      if (name !== '.git' && name !== '.braid' && existsSync(path) && statSync(path).isDirectory()) walk(path);
    }
  };
  walk(root);
  return out.sort();
}
