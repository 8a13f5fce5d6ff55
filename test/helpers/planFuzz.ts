// A seeded generator of plan files, good and bad, for the fuzz corpus (test/unit/planFuzz.test.ts)
// and its bench part (bench/planFuzz.ts). Each plan is built as data from the plan format's own
// keys, spelled out as YAML or JSON text, and then some are damaged at the text level; a few are
// the known attacks (#22): deep nesting, alias-shared matrices, backtracking globs, thousands of
// unclosed templates, keys named like Object.prototype members. Same seed, same corpus.

/** The corpus must not depend on Math.random: the same seeded generator as jittered back-off. */
export const rng = seededRandom;

import { seededRandom } from '../../src/core/agents/backoff';
import { main } from '../../src/cli/main';

/** The corpus the unit suite and the bench run. */
export const FUZZ_SEED = 22;
export const FUZZ_COUNT = 2000;

export interface FuzzPlan {
  readonly name: string;
  readonly text: string;
}

type R = () => number;
const int = (r: R, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: R, p: number): boolean => r() < p;

const PROTO = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf', 'prototype'];
const STEP_KEYS = [
  'name',
  'agent',
  'cwd',
  'env',
  'writes',
  'reads',
  'isolation',
  'timeout',
  'idle-timeout',
  'pool',
  'max-cost-usd',
  'setup',
  'copy',
  'symlink',
  'sparse',
  'retries',
  'retry-delay',
  'continue-on-error',
  'if',
  'check',
  'output',
  'needs',
  'run',
  'prompt',
  'matrix',
];
const AGENTS = ['claude', 'codex', 'gemini', 'aider', 'shell', 'mine', 'nope', ...PROTO];
const TEMPLATES = [
  '${{ context }}',
  '${{ prompt }}',
  '${{ matrix.k }}',
  '${{ matrix.nope }}',
  '${{ env.HOME }}',
  '${{ env.my-var }}',
  '${{ steps.s0.output }}',
  '${{ steps.s1.status }}',
  '${{ steps.nope.output }}',
  '${{ plan.name }}',
  '${{ run.id }}',
  '${{ github.token }}',
  '${{ }}',
  '${{ a b }}',
  '${{',
  '}}',
  '${{ steps.s0.output',
  '${{ ${{ context }} }}',
  '${{ matrix.constructor }}',
  '${{ env.__proto__ }}',
  '${{ steps.toString.output }}',
];
const GLOBS = [
  'src/**',
  '**',
  '*.md',
  'docs/*',
  '../out',
  '/etc/passwd',
  'a/../../b',
  '{a,b}/*',
  '[a-z]*',
  '+(a|b)',
  '@(x)',
  '!src/**',
  '*a*a*a*a*a*a*a*a*a*a',
  `{${'a,'.repeat(30)}b}{c,d}{e,f}{g,h}`,
  'x\\',
  '[',
  '{',
  's*',
  's1',
  'build/**',
  '',
];
const DURATIONS = ['90s', '20m', '1h30m', 5, 0, -1, 1e12, 'soon', '1d', '30000d', '', '1h1h', 2.5];
const WORDS = [
  'echo hi',
  'true',
  'x',
  'a b c',
  'naïve ünïcödé',
  '"quoted"',
  "it's",
  'tab\there',
  'line\nbreak',
  'cr\rhere',
  'nul\u0000',
  '#comment',
  '$(whoami)',
  '`id`',
];

function scalar(r: R): unknown {
  switch (int(r, 0, 9)) {
    case 0:
      return int(r, -5, 100);
    case 1:
      return chance(r, 0.5);
    case 2:
      return null;
    case 3:
      return pick(r, TEMPLATES);
    case 4:
      return pick(r, PROTO);
    case 5:
      return r() * 1e6;
    default:
      return pick(r, WORDS);
  }
}

function value(r: R, depth = 0): unknown {
  const roll = r();
  if (depth > 3 || roll < 0.6) return scalar(r);
  if (roll < 0.8) return Array.from({ length: int(r, 0, 4) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = int(r, 0, 3); i > 0; i--)
    defineKey(o, chance(r, 0.2) ? pick(r, PROTO) : pick(r, ['a', 'B_1', 'x-y', 'k', '']), value(r, depth + 1));
  return o;
}

// `o[k] = v` with k `__proto__` would set o's prototype instead of a key.
function defineKey(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function text(r: R, ids: readonly string[]): string {
  const parts = Array.from({ length: int(r, 1, 4) }, () => {
    const roll = r();
    if (roll < 0.35) return pick(r, TEMPLATES);
    if (roll < 0.5 && ids.length > 0) return `\${{ steps.${pick(r, ids)}.${pick(r, ['output', 'status'])} }}`;
    if (roll < 0.6) return `'${pick(r, TEMPLATES)}'`;
    return pick(r, WORDS);
  });
  return parts.join(' ');
}

function stepId(r: R, i: number): string {
  const roll = r();
  if (roll < 0.75) return `s${i}`;
  if (roll < 0.85) return pick(r, PROTO);
  return pick(r, ['build', 'test', 'a-b', 'a_b', '1bad', 'x'.repeat(70), 'has space', 'ünï', `r${i}-1`, '']);
}

function stepValue(r: R, ids: readonly string[], me: number): unknown {
  if (chance(r, 0.05)) return scalar(r);
  const s: Record<string, unknown> = {};
  if (chance(r, 0.8)) defineKey(s, chance(r, 0.6) ? 'run' : 'prompt', text(r, ids));
  if (chance(r, 0.05)) defineKey(s, 'run', text(r, ids));
  const extra = int(r, 0, 5);
  for (let i = 0; i < extra; i++) {
    const key = chance(r, 0.9) ? pick(r, STEP_KEYS) : pick(r, [...PROTO, 'nedds', 'runs', 'Run']);
    defineKey(s, key, fieldValue(r, key, ids, me));
  }
  return s;
}

function fieldValue(r: R, key: string, ids: readonly string[], me: number): unknown {
  if (chance(r, 0.1)) return value(r);
  switch (key) {
    case 'needs': {
      const earlier = ids.slice(0, Math.max(me, 1));
      const entry = () =>
        chance(r, 0.7) && earlier.length > 0
          ? pick(r, earlier)
          : chance(r, 0.5)
            ? pick(r, GLOBS)
            : pick(r, [...PROTO, 'nope', ids[me] ?? 's0']);
      return chance(r, 0.2) ? entry() : Array.from({ length: int(r, 0, 4) }, entry);
    }
    case 'writes':
    case 'reads':
    case 'copy':
    case 'symlink':
    case 'sparse':
      return chance(r, 0.3)
        ? pick(r, GLOBS)
        : Array.from({ length: int(r, 0, 3) }, () => (chance(r, 0.3) ? `out/${pick(r, TEMPLATES)}` : pick(r, GLOBS)));
    case 'matrix': {
      const m: Record<string, unknown> = {};
      for (let i = int(r, 0, 3); i > 0; i--) {
        defineKey(
          m,
          pick(r, ['k', 'os', 'node', '1x', 'a.b', ...PROTO]),
          Array.from({ length: int(r, 0, 5) }, () => scalar(r)),
        );
      }
      return m;
    }
    case 'env': {
      const e: Record<string, unknown> = {};
      for (let i = int(r, 0, 3); i > 0; i--)
        defineKey(e, pick(r, ['A', 'PATH', 'my-var', 'x=y', '', ...PROTO]), chance(r, 0.5) ? text(r, ids) : scalar(r));
      return e;
    }
    case 'timeout':
    case 'idle-timeout':
    case 'retry-delay':
      return pick(r, DURATIONS);
    case 'retries':
      return pick(r, [0, 1, 3, 10, 11, -1, 1.5, 'two']);
    case 'isolation':
      return pick(r, ['shared', 'worktree', 'container']);
    case 'if':
      return pick(r, ['always', 'success', 'failure', 'sometimes']);
    case 'agent':
      return pick(r, AGENTS);
    case 'continue-on-error':
      return pick(r, [true, false, 'yes']);
    case 'max-cost-usd':
      return pick(r, [0, 1.5, -2, 'free']);
    default:
      return chance(r, 0.7) ? text(r, ids) : scalar(r);
  }
}

function planValue(r: R): Record<string, unknown> {
  const plan: Record<string, unknown> = {};
  if (chance(r, 0.92)) defineKey(plan, 'version', chance(r, 0.95) ? 1 : pick(r, [2, '1', 0]));
  if (chance(r, 0.3)) defineKey(plan, 'name', text(r, []));
  if (chance(r, 0.2)) defineKey(plan, 'concurrency', pick(r, [1, 3, 0, -1, 'many']));
  if (chance(r, 0.2)) defineKey(plan, 'context', text(r, []));
  if (chance(r, 0.2)) defineKey(plan, 'env', fieldValue(r, 'env', [], 0));
  if (chance(r, 0.15)) defineKey(plan, 'pools', { anthropic: pick(r, [1, 2, 0, 'x']), [pick(r, PROTO)]: 2 });
  if (chance(r, 0.2)) {
    const agents: Record<string, unknown> = {};
    defineKey(agents, pick(r, ['mine', 'shell', ...PROTO]), {
      command: chance(r, 0.5)
        ? pick(r, ['my-cli --flag "${{ prompt }}"', 'x | y', 'x # c', '', 'sh -c "${{ prompt }}"'])
        : ['my-cli', pick(r, TEMPLATES)],
      ...(chance(r, 0.3) ? { stdin: pick(r, ['prompt', 'yes']) } : {}),
      ...(chance(r, 0.2) ? { [pick(r, PROTO)]: 1 } : {}),
    });
    defineKey(plan, 'agents', agents);
  }
  if (chance(r, 0.2)) {
    const d: Record<string, unknown> = {};
    for (let i = int(r, 1, 3); i > 0; i--) {
      const k = pick(r, [...STEP_KEYS, ...PROTO]);
      defineKey(d, k, fieldValue(r, k, [], 0));
    }
    defineKey(plan, 'defaults', d);
  }
  if (chance(r, 0.05)) defineKey(plan, pick(r, [...PROTO, 'step', 'Steps']), value(r));
  if (chance(r, 0.97)) {
    const n = chance(r, 0.05) ? int(r, 50, 400) : int(r, 0, 8);
    const ids = Array.from({ length: n }, (_, i) => stepId(r, i));
    const steps: Record<string, unknown> = {};
    ids.forEach((id, i) => defineKey(steps, id, stepValue(r, ids, i)));
    defineKey(plan, 'steps', chance(r, 0.03) ? value(r) : steps);
  }
  return plan;
}

// Plain YAML, quoting every string as JSON does (valid YAML); flow or block at random.
function toYaml(v: unknown, r: R, indent = ''): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null) ?? 'null';
  const entries = Array.isArray(v)
    ? v.map((x, i) => [i, x] as const)
    : Object.keys(v).map((k) => [k, (v as Record<string, unknown>)[k]] as const);
  if (entries.length === 0 || chance(r, 0.15)) return JSON.stringify(v);
  const lines = entries.map(([k, x]) => {
    const head = Array.isArray(v)
      ? `${indent}-`
      : `${indent}${chance(r, 0.8) && /^[A-Za-z_][\w-]*$/.test(String(k)) ? String(k) : JSON.stringify(k)}:`;
    const body = toYaml(x, r, `${indent}  `);
    return x !== null && typeof x === 'object' && body.startsWith(`${indent}  `)
      ? `${head}\n${body}`
      : `${head} ${body}`;
  });
  return lines.join('\n');
}

const TOKENS = [
  '${{',
  '}}',
  '*',
  '&a ',
  '*a',
  '[',
  ']',
  '{',
  '}',
  '- ',
  '? ',
  ': ',
  ':',
  '\t',
  '\r',
  '\r\n',
  '\u0000',
  '\ufeff',
  '#',
  '"',
  "'",
  '|',
  '>',
  '!!',
  '%YAML',
  '---',
  '...',
  '\\',
  'ü',
  '😀',
  '\n  ',
  '\n',
];

/** Damage at the text level: what an editor holds between two keystrokes. */
function mutate(r: R, t: string): string {
  let out = t;
  for (let i = int(r, 1, 4); i > 0; i--) {
    const at = int(r, 0, out.length);
    switch (int(r, 0, 4)) {
      case 0:
        out = out.slice(0, at) + pick(r, TOKENS) + out.slice(at);
        break;
      case 1:
        out = out.slice(0, at) + out.slice(Math.min(out.length, at + int(r, 1, 20)));
        break;
      case 2:
        out = out.slice(0, at);
        break;
      case 3: {
        const lines = out.split('\n');
        const j = int(r, 0, lines.length - 1);
        lines.splice(j, 0, lines[j] ?? '');
        out = lines.join('\n');
        break;
      }
      default:
        out = out.slice(0, at) + ' '.repeat(int(r, 1, 3)) + out.slice(at);
    }
  }
  return out;
}

/** The known attacks, each scaled by `r`. */
function attack(r: R, k: number): string {
  const steps = (body: string) => `version: 1\nsteps:\n${body}`;
  switch (k % 9) {
    case 0: {
      const n = int(r, 100, 5000);
      return steps(`  a:\n    run: echo\n    name: ${'['.repeat(n)}${']'.repeat(n)}\n`);
    }
    case 1: {
      const n = int(r, 100, 3000);
      return steps(`  a:\n    run: echo\n    name:\n      ${'- '.repeat(n)}x\n`);
    }
    case 2: {
      const vals = `[${Array.from({ length: int(r, 10, 100) }, (_, i) => i).join(', ')}]`;
      let s = `  s0:\n    run: echo\n    matrix: &m\n      x: ${vals}\n      y: ${vals}\n`;
      for (let i = 1; i < int(r, 2, 300); i++) s += `  s${i}:\n    run: echo\n    matrix: *m\n`;
      return steps(s);
    }
    case 3: {
      const id = `${'a'.repeat(int(r, 20, 60))}b`;
      return steps(
        `  ${id}:\n    run: echo\n    writes: ["${id}"]\n  b:\n    run: echo\n    needs: ["${'*a'.repeat(int(r, 8, 20))}"]\n    writes: ["${'*a'.repeat(int(r, 8, 20))}"]\n`,
      );
    }
    case 4:
      return steps(`  a:\n    run: "${'${{ '.repeat(int(r, 1000, 40_000))}"\n`);
    case 5: {
      let s = 'version: 1\nx0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
      for (let i = 1; i < int(r, 3, 9); i++)
        s += `x${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
      return `${s}steps:\n  a:\n    run: echo\n`;
    }
    case 6:
      return steps(
        PROTO.map(
          (p, i) => `  s${i}:\n    run: echo "\${{ matrix.${p} }}"\n    ${p}: 1\n    env: {${p}: x}\n    agent: ${p}\n`,
        ).join(''),
      );
    case 7: {
      const vals = `[${Array.from({ length: int(r, 100, 600) }, (_, i) => i).join(',')}]`;
      return steps(
        `  a:\n    run: echo\n    matrix: {k: ${vals}}\n  b:\n    run: echo\n    matrix: {k: ${vals}}\n    needs: [a, "a-*"]\n`,
      );
    }
    default: {
      const n = int(r, 300, 3000);
      return steps(Array.from({ length: n }, (_, i) => `  s${i}:\n    run: echo\n    nope: ${i}\n`).join(''));
    }
  }
}

/** A plan that should validate: the format's features used as documented. */
function validPlan(r: R): Record<string, unknown> {
  const n = chance(r, 0.05) ? int(r, 50, 500) : int(r, 1, 10);
  const steps: Record<string, unknown> = {};
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = chance(r, 0.1) ? pick(r, ['constructor', 'toString', 'valueOf']) + String(i) : `s${i}`;
    const s: Record<string, unknown> = {};
    const needs = ids.length > 0 && chance(r, 0.6) ? [pick(r, ids)] : [];
    const ref = needs[0] !== undefined && chance(r, 0.5) ? ` "\${{ steps.${needs[0]}.output }}"` : '';
    if (chance(r, 0.7))
      s.run = `echo ${pick(r, ['hi', '"${{ plan.name }}"', '"${{ run.id }}"', '"${{ env.HOME }}"'])}${ref}`;
    else {
      s.prompt = `Do ${i}.${ref} ${pick(r, ['', '${{ context }}'])}`;
      s.agent = pick(r, ['claude', 'codex', 'gemini', 'aider']);
    }
    if (needs.length > 0) s.needs = chance(r, 0.2) ? `${needs[0]}` : needs;
    if (chance(r, 0.3)) s.writes = [`out/${id}/**`];
    if (chance(r, 0.1)) {
      s.matrix = { k: ['a', 'b', 3] };
      s.writes = ['out/${{ matrix.k }}.txt'];
    }
    if (chance(r, 0.2)) s.retries = int(r, 0, 3);
    if (chance(r, 0.1)) s.timeout = pick(r, ['90s', '20m', 30]);
    if (chance(r, 0.1)) s.env = { [pick(r, ['A', 'constructor', 'toString'])]: 'x' };
    steps[id] = s;
    ids.push(id);
  }
  return {
    version: 1,
    ...(chance(r, 0.5) ? { name: 'fuzz' } : {}),
    ...(chance(r, 0.3) ? { context: 'ctx' } : {}),
    steps,
  };
}

/** `count` plans from `seed`: 1 in 25 a known attack, a third meant valid, a third damaged text, a quarter JSON. */
export function fuzzPlans(seed: number, count: number): FuzzPlan[] {
  const r = rng(seed);
  const out: FuzzPlan[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 25 === 7) {
      out.push({ name: `attack-${i}.braid.yaml`, text: attack(r, i) });
      continue;
    }
    const plan = i % 3 === 0 ? validPlan(r) : planValue(r);
    const json = chance(r, 0.25);
    let t = json ? JSON.stringify(plan, null, chance(r, 0.5) ? 2 : 0) : `${toYaml(plan, r)}\n`;
    if (chance(r, 0.1)) t = t.replace(/\n/g, '\r\n');
    if (chance(r, 0.35)) t = mutate(r, t);
    out.push({ name: `fuzz-${i}.braid.${json ? 'json' : 'yaml'}`, text: t });
  }
  return out;
}

/**
 * The inputs that starved validation (#32), at `scale` (1: as reported; the unit suite runs a
 * fraction, the bench the whole): nesting closed by one dedent (exit 70 in yaml's parser), text
 * that is mostly syntax errors, a valid 20,000-step JSON plan written twice, 250,000 unknown
 * `needs`, a valid plan just under the size cap and one just over it, 5 MB of empty mappings and
 * of blank lines.
 */
export function starvingPlans(scale = 1): FuzzPlan[] {
  const n = (x: number) => Math.max(1, Math.round(x * scale));
  const levels = Array.from({ length: 3000 }, (_, i) => `${' '.repeat(6 + i)}k:`).join('\n');
  const errorLines: string[] = ['version: 1', 'steps:'];
  for (let i = 0, len = 0; len < n(2_000_000); i++) {
    const l = [`  s${i}:`, `\t run: echo ]${i}`, `    needs: [s${i - 1}`, `    nope: } ]]`].join('\n');
    errorLines.push(l);
    len += l.length + 1;
  }
  const jsonSteps: Record<string, unknown> = {};
  for (let i = 0; i < n(20_000); i++)
    jsonSteps[`s${i}`] = { run: `echo ${i}`, ...(i > 0 ? { needs: [`s${i - 1}`] } : {}) };
  const json = JSON.stringify({ version: 1, steps: jsonSteps });
  const valid = (bytes: number) => {
    const pad = 'x'.repeat(400);
    const out = ['version: 1', 'steps:'];
    let len = 0;
    for (let i = 0; len < bytes - 600 && i < 10_000; i++) {
      const l = `  s${i}:\n    run: echo ${pad} ${i}\n${i > 0 ? `    needs: [s${i - 1}]\n` : ''}    writes: [out/s${i}/**]`;
      out.push(l);
      len += l.length + 1;
    }
    return `${out.join('\n')}\n`;
  };
  const head = 'version: 1\nsteps:\n  a:\n    run: echo\n';
  const comments = (bytes: number) =>
    `version: 1\nsteps:\n  a:\n    run: echo\n${`# ${'x'.repeat(997)}\n`.repeat(Math.ceil(bytes / 1000))}`;
  return [
    {
      name: 'starve-nesting-dedent.braid.yaml',
      text: `version: 1\nsteps:\n  a:\n    run: echo\n    name:\n${levels}\n${' '.repeat(3006)}x\n  b:\n    run: echo\n`,
    },
    { name: 'starve-syntax-errors.braid.yaml', text: `${errorLines.join('\n')}\n` },
    { name: 'starve-json-twice.braid.json', text: json + json },
    {
      name: 'starve-needs.braid.yaml',
      text: `version: 1\nsteps:\n  a:\n    run: echo\n    needs: [${Array.from({ length: n(250_000) }, (_, i) => `n${i}`).join(', ')}]\n`,
    },
    { name: 'starve-valid-large.braid.yaml', text: valid(n(4_900_000)) },
    // Past the cap whatever the scale: refused before it is parsed.
    { name: 'starve-over-cap.braid.yaml', text: comments(5_100_000) },
    // Nodes with no scalar in them (16 s, 2.3 GB at 5 MB): past the node cap at any scale from 0.1.
    { name: 'starve-empty-maps.braid.yaml', text: `${head}x: [${'{},'.repeat(n(1_600_000))}]\n` },
    // No node at all, only line breaks (8.5 s, 550 MB): past the token cap whatever the scale.
    { name: 'starve-blank-lines.braid.yaml', text: `${head}${'\n'.repeat(4_900_000)}` },
  ];
}

const LINE = /^(.*):(\d+):(\d+): (error|warning|info): (.+)$/;

/**
 * What is wrong with `braid validate`'s answer for `text` (empty when nothing): an exit code other
 * than 0/1 or one that disagrees with the errors printed, a line that is not
 * `FILE:LINE:COL: severity: message`, a position outside the text, an error at 1:1 where the
 * text has nothing (a problem not located), a carriage return in the output.
 */
export function validateOutputProblems(
  file: string,
  text: string,
  code: number,
  stdout: string,
  stderr: string,
): string[] {
  const problems: string[] = [];
  if (code !== 0 && code !== 1) problems.push(`exit ${code}`);
  if (/\r/.test(stdout + stderr)) problems.push('a carriage return in the output');
  const lines = text.split('\n');
  let errors = 0;
  for (const l of `${stdout}${stderr}`.split('\n')) {
    if (l === '' || /^\d+ plans? valid$/.test(l)) continue;
    const m = LINE.exec(l);
    if (!m || m[1] !== file) {
      problems.push(`not a diagnostic line: ${l.slice(0, 200)}`);
      continue;
    }
    const [line, col] = [Number(m[2]), Number(m[3])];
    if (m[4] === 'error') errors++;
    const source = lines[line - 1];
    if (source === undefined || col < 1 || col > source.length + 1) {
      problems.push(`outside the text: ${l.slice(0, 200)}`);
      continue;
    }
    // 1:1 is a place only when something is written there.
    const blankStart = /^[\s\ufeff]|^#/.test(text) && text.trim() !== '';
    if (m[4] === 'error' && line === 1 && col === 1 && blankStart) problems.push(`not located: ${l.slice(0, 200)}`);
  }
  if (errors > 0 !== (code === 1)) problems.push(`exit ${code} with ${errors} errors printed`);
  return problems;
}

/** Runs `braid validate FILE` in this process, capturing what it writes. */
export async function validateInProcess(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '',
    stderr = '';
  const { write: outWrite } = process.stdout;
  const { write: errWrite } = process.stderr;
  process.stdout.write = (s: string) => {
    stdout += s;
    return true;
  };
  process.stderr.write = (s: string) => {
    stderr += s;
    return true;
  };
  try {
    const code = await main(['validate', file]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = outWrite;
    process.stderr.write = errWrite;
  }
}
