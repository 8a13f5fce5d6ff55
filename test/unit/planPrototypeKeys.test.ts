// Keys that name Object.prototype's members (`constructor`, `toString`, `__proto__`…) are plain
// names in a plan: anywhere a key or a name goes, validation treats them like any other word.
import { strict as assert } from 'node:assert';
import { compilePlan } from '../../src/core/plan/compile';
import type { Diagnostic } from '../../src/core/plan/types';
import { plan } from '../helpers/planText';

const NAMES = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__proto__',
  'isPrototypeOf',
  '__defineGetter__',
];
const show = (ds: readonly Diagnostic[]) =>
  ds.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`).join('\n');

/** Every place a plan holds a key or a name, with `N` standing for the name. */
const PLACES: Record<string, { lines: string[]; valid: boolean }> = {
  'top-level key': { lines: ['version: 1', 'N: 1', 'steps:', '  a:', '    run: echo'], valid: false },
  'step field key': { lines: ['version: 1', 'steps:', '  a:', '    run: echo', '    N: 1'], valid: false },
  'defaults key': { lines: ['version: 1', 'defaults:', '  N: 1', 'steps:', '  a:', '    run: echo'], valid: false },
  'agent field key': {
    lines: [
      'version: 1',
      'agents:',
      '  x:',
      '    command: [x]',
      '    N: 1',
      'steps:',
      '  a:',
      '    agent: x',
      '    prompt: hi',
    ],
    valid: false,
  },
  'plan env name': { lines: ['version: 1', 'env:', '  N: v', 'steps:', '  a:', '    run: echo'], valid: true },
  'step env name': { lines: ['version: 1', 'steps:', '  a:', '    run: echo', '    env:', '      N: v'], valid: true },
  'agent env name': {
    lines: [
      'version: 1',
      'agents:',
      '  x:',
      '    command: [x]',
      '    env: {N: v}',
      'steps:',
      '  a:',
      '    agent: x',
      '    prompt: hi',
    ],
    valid: true,
  },
  'pool name': {
    lines: ['version: 1', 'pools:', '  N: 2', 'steps:', '  a:', '    run: echo', '    pool: N'],
    valid: true,
  },
  'matrix key': {
    lines: ['version: 1', 'steps:', '  a:', '    matrix:', '      N: [1, 2]', '    run: echo "${{ matrix.N }}"'],
    valid: true,
  },
  'matrix value': {
    lines: ['version: 1', 'steps:', '  a:', '    matrix:', '      k: [N]', '    run: echo'],
    valid: true,
  },
  'unknown matrix key in a template': {
    lines: ['version: 1', 'steps:', '  a:', '    matrix:', '      k: [1]', '    run: echo "${{ matrix.N }}"'],
    valid: false,
  },
  'template of a step without a matrix': {
    lines: ['version: 1', 'steps:', '  a:', '    run: echo "${{ matrix.N }}"'],
    valid: false,
  },
  'env template': { lines: ['version: 1', 'steps:', '  a:', '    run: echo "${{ env.N }}"'], valid: true },
  'unknown step in a template': {
    lines: ['version: 1', 'steps:', '  a:', '    run: echo "${{ steps.N.output }}"'],
    valid: false,
  },
  'unknown need': { lines: ['version: 1', 'steps:', '  a:', '    run: echo', '    needs: [N]'], valid: false },
  'unknown agent': { lines: ['version: 1', 'steps:', '  a:', '    agent: N', '    prompt: hi'], valid: false },
  'plan agent name': {
    lines: [
      'version: 1',
      'agents:',
      '  N:',
      '    command: [x, "${{ prompt }}"]',
      'steps:',
      '  a:',
      '    agent: N',
      '    prompt: hi',
    ],
    valid: true,
  },
};

// `__proto__` and `__defineGetter__` start with `_`, which a step id may not.
const STEP_ID_PLACES: Record<string, (n: string) => string[]> = {
  'step id': (n) => ['version: 1', 'steps:', `  ${n}:`, '    run: echo'],
  'needed step id': (n) => [
    'version: 1',
    'steps:',
    `  ${n}:`,
    '    run: echo',
    '  b:',
    `    needs: [${n}]`,
    `    run: echo "\${{ steps.${n}.output }}"`,
  ],
};

describe('plan validation: keys named like Object.prototype members', () => {
  for (const name of NAMES) {
    for (const [place, { lines, valid }] of Object.entries(PLACES)) {
      // zod builds objects by assignment, where `__proto__` would set a prototype: refused as a key.
      const expectValid = valid && !(name === '__proto__' && lines.some((l) => /^\s*N:|\{N:/.test(l)));
      it(`${name} as ${place}: ${expectValid ? 'valid' : 'a located error'}, no crash`, () => {
        const text = lines.map((l) => l.replaceAll('N', name)).join('\n') + '\n';
        const r = compilePlan('/ws/p.braid.yaml', text, { isGit: true });
        const errors = r.diagnostics.filter((d) => d.severity === 'error');
        if (expectValid) assert.ok(r.graph, show(r.diagnostics));
        else {
          assert.equal(r.graph, undefined);
          assert.ok(errors.length >= 1, show(r.diagnostics));
          for (const e of errors) assert.ok(e.range.start.line > 0, `located: ${show([e])}`);
        }
      });
    }
    for (const [place, make] of Object.entries(STEP_ID_PLACES)) {
      it(`${name} as ${place}: valid where the id is, else an error at the id`, () => {
        const r = compilePlan('/ws/p.braid.yaml', make(name).join('\n') + '\n', { isGit: true });
        if (/^[A-Za-z]/.test(name)) assert.ok(r.graph?.steps.has(name), show(r.diagnostics));
        else
          assert.ok(
            r.diagnostics.some((d) => /step-id|reserved-key/.test(d.code) && d.range.start.line === 2),
            show(r.diagnostics),
          );
      });
    }
  }

  it('values keep their names: an env named constructor holds its value, a matrix key named toString its values', () => {
    const r = compilePlan(
      '/ws/p.braid.yaml',
      plan`
        version: 1
        env:
          constructor: c
        steps:
          a:
            matrix:
              toString: [x, y]
            run: echo "\${{ matrix.toString }}"
        `,
      { isGit: true },
    );
    assert.ok(r.graph, show(r.diagnostics));
    assert.equal(r.graph.plan.env.constructor, 'c');
    assert.equal(r.graph.plan.env.toString, undefined, 'only its own names');
    assert.deepEqual([...r.graph.steps.keys()], ['a-x', 'a-y']);
    assert.equal(r.graph.steps.get('a-x')?.matrix?.values.toString, 'x');
  });

  it('`__proto__` as a key is one error at that key', () => {
    const r = compilePlan('/ws/p.braid.yaml', 'version: 1\nenv:\n  __proto__: p\nsteps:\n  a:\n    run: echo\n');
    assert.deepEqual(
      r.diagnostics.map((d) => [d.range.start.line, d.range.start.column, d.code]),
      [[2, 2, 'yaml-reserved-key']],
    );
  });
});
