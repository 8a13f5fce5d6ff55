// plan-format.md's Validation list: one test a problem, each asserting the message and the exact
// 0-based start of its range; then "all at once", broken YAML and JSON plans.
import { strict as assert } from 'node:assert';
import { compilePlan, type CompileOptions } from '../../src/core/plan/compile';
import type { Diagnostic } from '../../src/core/plan/types';

const compile = (lines: readonly string[], opts?: CompileOptions, file = '/ws/p.braid.yaml') =>
  compilePlan(file, `${lines.join('\n')}\n`, opts);
const show = (ds: readonly Diagnostic[]) =>
  ds.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`).join('\n');

/** The one diagnostic with `code` (failing with the whole list otherwise); the plan must not compile. */
function only(lines: readonly string[], code: string, opts?: CompileOptions): Diagnostic {
  const r = compile(lines, opts);
  const hits = r.diagnostics.filter((d) => d.code === code);
  assert.equal(hits.length, 1, show(r.diagnostics));
  assert.equal(r.graph, undefined, 'an error means no graph');
  return hits[0]!;
}
const start = (d: Diagnostic) => [d.range.start.line, d.range.start.column];

describe('plan validation (plan-format.md)', () => {
  it('a valid plan compiles with no diagnostics', () => {
    const r = compile([
      'version: 1',
      'steps:',
      '  a:',
      '    run: echo hi',
      '  b:',
      '    needs: a',
      '    run: echo ${{ steps.a.output }}',
    ]);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.graph?.order, ['a', 'b']);
  });

  describe('unknown keys, with a did-you-mean', () => {
    it('in a step: at the key, suggesting the close one', () => {
      const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    nedds: [b]'], 'unknown-key');
      assert.deepEqual(start(d), [4, 4]);
      assert.equal(d.message, 'steps.a.nedds: unknown key `nedds`; did you mean `needs`?');
    });
    it('at the top level, in defaults and in an agent', () => {
      const r = compile([
        'version: 1',
        'concurrancy: 2',
        'defaults:',
        '  timout: 1m',
        'agents:',
        '  mine:',
        '    comand: [x]',
        'steps:',
        '  a:',
        '    run: echo',
      ]);
      const unknown = r.diagnostics.filter((d) => d.code === 'unknown-key');
      assert.deepEqual(
        unknown.map(start),
        [
          [1, 0],
          [3, 2],
          [6, 4],
        ],
        show(r.diagnostics),
      );
      assert.match(unknown[0]!.message, /^concurrancy: unknown key `concurrancy`; did you mean `concurrency`\?$/);
      assert.match(unknown[1]!.message, /^defaults\.timout: .*did you mean `timeout`\?$/);
      assert.match(unknown[2]!.message, /^agents\.mine\.comand: .*did you mean `command`\?$/);
    });
    it('no suggestion when nothing is close', () => {
      const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    zzzzzzzz: 1'], 'unknown-key');
      assert.equal(d.message, 'steps.a.zzzzzzzz: unknown key `zzzzzzzz`');
    });
  });

  it('wrong types: at the value, saying what was expected and what came', () => {
    const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    retries: lots'], 'type');
    assert.deepEqual(start(d), [4, 13]);
    assert.match(d.message, /^steps\.a\.retries: expected .*whole number.*got "lots"$/);
  });

  it('an unsupported version names the supported ones', () => {
    const d = only(['version: 2', 'steps:', '  a:', '    run: echo'], 'type');
    assert.deepEqual(start(d), [0, 9]);
    assert.match(d.message, /unsupported version 2; supported versions: 1/);
  });

  it('a missing version or steps is named', () => {
    const r = compile(['name: x']);
    assert.deepEqual(
      r.diagnostics.map((d) => d.message),
      ['version: missing required key `version` (add `version: 1`)', 'steps: missing required key `steps`'],
    );
    assert.deepEqual(r.diagnostics.map(start), [
      [0, 0],
      [0, 0],
    ]);
  });

  it('a step id outside ^[A-Za-z][A-Za-z0-9_-]{0,63}$ is reported at the id', () => {
    const d = only(['version: 1', 'steps:', '  ok:', '    run: echo', '  9lives:', '    run: echo'], 'step-id');
    assert.deepEqual(start(d), [4, 2]);
    assert.match(d.message, /step id "9lives" must start with a letter/);
  });

  describe('run and prompt', () => {
    it('both: at the second key', () => {
      const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    prompt: hi'], 'run-prompt');
      assert.deepEqual(start(d), [4, 4]);
      assert.equal(d.message, 'steps.a.prompt: a step has either `run` or `prompt`, not both');
    });
    it('neither: at the step id', () => {
      const d = only(['version: 1', 'steps:', '  a:', '    name: nothing to do'], 'run-prompt');
      assert.deepEqual(start(d), [2, 2]);
      assert.equal(d.message, 'steps.a: needs `run` (a shell command) or `prompt` (for an agent)');
    });
    it('a malformed run is one problem (its type), not also "neither"', () => {
      const r = compile(['version: 1', 'steps:', '  a:', '    run: [echo]']);
      assert.deepEqual(
        r.diagnostics.map((d) => d.code),
        ['type'],
        show(r.diagnostics),
      );
    });
  });

  it('unknown agent: at the agent value, with a did-you-mean over presets and plan agents', () => {
    const d = only(
      [
        'version: 1',
        'agents:',
        '  reviewer:',
        '    command: [rv]',
        'steps:',
        '  a:',
        '    prompt: hi',
        '    agent: reviewr',
      ],
      'unknown-agent',
    );
    assert.deepEqual(start(d), [7, 11]);
    assert.equal(d.message, 'steps.a.agent: unknown agent `reviewr`; did you mean `reviewer`?');
  });

  it('an unknown agent set in defaults is reported once, at defaults', () => {
    const r = compile([
      'version: 1',
      'defaults:',
      '  agent: cluade',
      'steps:',
      '  a:',
      '    prompt: one',
      '  b:',
      '    prompt: two',
      '    writes: [b]',
    ]);
    const hits = r.diagnostics.filter((d) => d.code === 'unknown-agent');
    assert.deepEqual(hits.map(start), [[2, 9]], show(r.diagnostics));
    assert.match(hits[0]!.message, /^defaults\.agent: unknown agent `cluade`; did you mean `claude`\?$/);
  });

  describe('dependencies', () => {
    it('unknown: at the list entry, with a did-you-mean', () => {
      const d = only(
        [
          'version: 1',
          'steps:',
          '  build:',
          '    run: make',
          '  test:',
          '    needs: [lint, biuld]',
          '    run: make test',
          '  lint:',
          '    run: lint',
        ],
        'unknown-need',
      );
      assert.deepEqual(start(d), [5, 18]);
      assert.equal(d.message, 'steps.test.needs[1]: unknown step `biuld`; did you mean `build`?');
    });
    it('unknown, written as one scalar: at the scalar', () => {
      const d = only(['version: 1', 'steps:', '  a:', '    needs: nope', '    run: echo'], 'unknown-need');
      assert.deepEqual(start(d), [3, 11]);
      assert.equal(d.message, 'steps.a.needs[0]: unknown step `nope`');
    });
    it('a glob that matches nothing', () => {
      const d = only(['version: 1', 'steps:', '  a:', '    needs: ["review-*"]', '    run: echo'], 'unknown-need');
      assert.deepEqual(start(d), [3, 12]);
      assert.equal(d.message, 'steps.a.needs[0]: `review-*` matches no step');
    });
    it('self: at the entry', () => {
      const d = only(
        ['version: 1', 'steps:', '  a:', '    run: echo', '  b:', '    needs: [a, b]', '    run: echo'],
        'self-need',
      );
      assert.deepEqual(start(d), [5, 15]);
      assert.equal(d.message, 'steps.b.needs[1]: a step cannot need itself (`b`)');
    });
    it('a glob in a matrix step may match its own group: it means the others', () => {
      const r = compile([
        'version: 1',
        'steps:',
        '  r:',
        '    matrix: { k: [x, y] }',
        '    run: echo',
        '  all:',
        '    needs: "r-*"',
        '    run: echo',
      ]);
      assert.deepEqual(r.diagnostics, []);
      assert.deepEqual(r.graph?.steps.get('all')?.needs, ['r-x', 'r-y']);
    });
  });

  describe('cycles', () => {
    it('named in run order from the first step in the file, at the needs entry that closes it', () => {
      // b needs a, c needs b, a needs c: a runs first, so a → b → c → a.
      const d = only(
        [
          'version: 1',
          'steps:',
          '  a:',
          '    needs: [c]',
          '    run: echo',
          '  b:',
          '    needs: [a]',
          '    run: echo',
          '  c:',
          '    needs: [b]',
          '    run: echo',
        ],
        'cycle',
      );
      assert.equal(d.message, 'steps.a.needs[0]: cycle: a → b → c → a');
      assert.deepEqual(start(d), [3, 12]);
    });
    it('the cycle is named the same whichever order the steps are written in', () => {
      const d = only(
        [
          'version: 1',
          'steps:',
          '  c:',
          '    needs: [b]',
          '    run: echo',
          '  a:',
          '    needs: [c]',
          '    run: echo',
          '  b:',
          '    needs: [a]',
          '    run: echo',
        ],
        'cycle',
      );
      assert.equal(d.message, 'steps.c.needs[0]: cycle: c → a → b → c');
      assert.deepEqual(start(d), [3, 12]);
    });
    it('two separate cycles are both reported; a step that only needs one is not a cycle', () => {
      const r = compile([
        'version: 1',
        'steps:',
        '  a: { needs: [b], run: x }',
        '  b: { needs: [a], run: x }',
        '  c: { needs: [d], run: x }',
        '  d: { needs: [c], run: x }',
        '  e: { needs: [a], run: x }',
      ]);
      const cycles = r.diagnostics.filter((d) => d.code === 'cycle');
      assert.deepEqual(
        cycles.map((d) => d.message),
        ['steps.a.needs[0]: cycle: a → b → a', 'steps.c.needs[0]: cycle: c → d → c'],
      );
      assert.deepEqual(cycles.map(start), [
        [2, 15],
        [4, 15],
      ]);
    });
    it('a 5,000-step chain closed into a loop is named without overflowing the stack', () => {
      const lines = ['version: 1', 'steps:', '  s0: { needs: [s4999], run: x }'];
      for (let i = 1; i < 5000; i++) lines.push(`  s${i}: { needs: [s${i - 1}], run: x }`);
      const d = only(lines, 'cycle');
      assert.match(d.message, /^steps\.s0\.needs\[0\]: cycle: s0 → s1 → s2 → .* → s4999 → s0$/);
    });
  });

  it('a 5,000-step chain compiles: critical path counted end to end, templates checked through it', () => {
    const lines = ['version: 1', 'steps:', '  s0: { run: x }'];
    for (let i = 1; i < 5000; i++)
      lines.push(`  s${i}: { needs: [s${i - 1}], run: "echo \${{ steps.s0.status }}", writes: [out/${i}] }`);
    lines.push('  late: { needs: [s4999], run: x, writes: [out/1] }');
    const r = compile(lines);
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.graph?.steps.get('s0')?.depth, 5001);
    assert.equal(r.graph?.order.at(-1), 'late');
  });

  it('duplicate ids after matrix expansion: at the later step', () => {
    const d = only(
      [
        'version: 1',
        'steps:',
        '  r:',
        '    matrix:',
        '      tool: [aider, roo]',
        '    run: echo',
        '  r-roo:',
        '    run: echo',
      ],
      'duplicate',
    );
    assert.deepEqual(start(d), [6, 2]);
    assert.equal(d.message, 'steps.r-roo: duplicate step id `r-roo` (also made by `r`)');
  });

  it('duplicate ids inside one matrix: at the matrix', () => {
    const d = only(
      ['version: 1', 'steps:', '  r:', '    matrix:', '      v: ["a.b", "a-b"]', '    run: echo'],
      'duplicate',
    );
    assert.deepEqual(start(d), [4, 6]);
    assert.equal(d.message, 'steps.r.matrix: two matrix combinations both make the step id `r-a-b`');
  });

  describe('templates that cannot resolve: at the template itself', () => {
    it('a step that is not among the transitive needs', () => {
      const d = only(
        ['version: 1', 'steps:', '  a:', '    run: echo', '  b:', '    run: echo "${{ steps.a.output }}"'],
        'template',
      );
      assert.deepEqual(start(d), [5, 15]);
      assert.equal(
        d.message,
        'steps.b.run: ${{ steps.a.output }}: `a` is not among the steps b needs (add it to `needs`)',
      );
    });
    it('a transitive need resolves', () => {
      const r = compile([
        'version: 1',
        'steps:',
        '  a: { run: x }',
        '  b: { needs: a, run: x }',
        '  c:',
        '    needs: b',
        '    run: echo ${{ steps.a.status }}',
      ]);
      assert.deepEqual(r.diagnostics, []);
    });
    it('an unknown step, inside a block prompt, with a did-you-mean', () => {
      const d = only(
        [
          'version: 1',
          'steps:',
          '  schema:',
          '    run: x',
          '  api:',
          '    needs: [schema]',
          '    prompt: |',
          '      Build it.',
          '      Use ${{ steps.shema.output }} here.',
          '    writes: [api/**]',
        ],
        'template',
      );
      assert.deepEqual(start(d), [8, 10]);
      assert.equal(d.message, 'steps.api.prompt: ${{ steps.shema.output }}: no step `shema`; did you mean `schema`?');
    });
    it('a matrix key the step does not have', () => {
      const d = only(
        ['version: 1', 'steps:', '  r:', '    matrix: { tool: [a, b] }', '    run: echo ${{ matrix.tol }}'],
        'template',
      );
      assert.deepEqual(start(d), [4, 14]);
      assert.equal(d.message, 'steps.r.run: ${{ matrix.tol }}: no matrix key `tol`; did you mean `tool`?');
    });
    it('an undocumented name, and a syntax error', () => {
      const r = compile(['version: 1', 'steps:', '  a:', '    run: echo ${{ secrets.X }} ${{ oops']);
      assert.deepEqual(
        r.diagnostics.map(start),
        [
          [3, 14],
          [3, 31],
        ],
        show(r.diagnostics),
      );
      assert.match(r.diagnostics[0]!.message, /^steps\.a\.run: unknown template \$\{\{ secrets\.X \}\}/);
      assert.match(r.diagnostics[1]!.message, /^steps\.a\.run: unterminated template/);
    });
    it("in a plan agent's command, checked for the step that uses it", () => {
      const d = only(
        [
          'version: 1',
          'agents:',
          '  rv:',
          '    command: [rv, "${{ prompt }}", "${{ steps.a.output }}"]',
          'steps:',
          '  a:',
          '    run: x',
          '  b:',
          '    prompt: hi',
          '    agent: rv',
        ],
        'template',
      );
      assert.deepEqual(start(d), [3, 36]);
      assert.equal(
        d.message,
        'agents.rv.command[2]: ${{ steps.a.output }}: `a` is not among the steps b needs (add it to `needs`)',
      );
    });
    it('${{ prompt }} only in agent commands', () => {
      const d = only(['version: 1', 'steps:', '  a:', '    run: echo ${{ prompt }}'], 'template');
      assert.deepEqual(start(d), [3, 14]);
      assert.equal(d.message, 'steps.a.run: ${{ prompt }} is only for agent commands');
    });
  });

  describe('paths leaving the workspace', () => {
    it('writes: at the entry', () => {
      const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    writes: [src/**, ../other/x]'], 'escapes');
      assert.deepEqual(start(d), [4, 21]);
      assert.equal(d.message, 'steps.a.writes[1]: `../other/x` leaves the workspace');
    });
    it('cwd: at the value', () => {
      const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    cwd: /etc'], 'escapes');
      assert.deepEqual(start(d), [4, 9]);
      assert.equal(d.message, 'steps.a.cwd: `/etc` leaves the workspace');
    });
  });

  it('durations that do not parse: at the value', () => {
    const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    timeout: 20 minutes'], 'duration');
    assert.deepEqual(start(d), [4, 13]);
    assert.equal(
      d.message,
      'steps.a.timeout: expected a duration like 90s, 20m, 1h30m (or a number of seconds), got "20 minutes"',
    );
  });

  it('isolation: worktree outside git', () => {
    const d = only(
      ['version: 1', 'steps:', '  a:', '    prompt: hi', '    isolation: worktree', '    writes: [x]'],
      'isolation',
      { isGit: false },
    );
    assert.deepEqual(start(d), [4, 15]);
    assert.match(d.message, /^steps\.a\.isolation: `worktree` needs a git workspace/);
    assert.equal(
      compile(['version: 1', 'steps:', '  a:', '    prompt: hi', '    isolation: worktree'], {
        isGit: true,
      }).graph?.steps.get('a')?.isolation,
      'worktree',
    );
  });

  it('every problem is reported at once, in file order', () => {
    const r = compile([
      'version: 1', // 0
      'steps:', // 1
      '  a:', // 2
      '    run: echo', // 3
      '    retries: 11', // 4 out of range
      '    nedds: [b]', // 5 unknown key
      '  b:', // 6
      '    needs: [zz]', // 7 unknown need
      '    prompt: ${{ steps.a.output }}', // 8 not a need
      '    agent: nope', // 9 unknown agent
      '    timeout: soon', // 10 duration
      '    cwd: ../up', // 11 escapes
      '  c:', // 12
      '    needs: [d]', // 13
      '    run: x', // 14
      '  d:', // 15
      '    needs: [c]', // 16
      '    run: x', // 17
    ]);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.range.start.line, d.code]),
      [
        [4, 'type'],
        [5, 'unknown-key'],
        [7, 'unknown-need'],
        [8, 'template'],
        [9, 'unknown-agent'],
        [10, 'duration'],
        [11, 'escapes'],
        [13, 'cycle'],
      ],
      show(r.diagnostics),
    );
    assert.equal(r.graph, undefined);
  });

  describe('broken YAML and JSON plans', () => {
    it('broken YAML is a located diagnostic, never a throw', () => {
      const cases: Array<[string[], [number, number], string]> = [
        [['version: 1', 'steps:', '  a:', '\trun: x'], [3, 0], 'yaml-tab-as-indent'],
        [['version: 1', 'steps:', '  a:', '    run: echo: x'], [3, 9], 'yaml-block-as-implicit-key'],
      ];
      for (const [lines, at, code] of cases) {
        const r = compile(lines);
        assert.equal(r.graph, undefined);
        assert.deepEqual(
          r.diagnostics.map((d) => [...start(d), d.code]),
          [[...at, code]],
          show(r.diagnostics),
        );
        assert.ok(
          r.diagnostics.every((d) => d.severity === 'error' && d.message.startsWith('YAML: ')),
          show(r.diagnostics),
        );
      }
    });
    it('a duplicate key is located at the second one', () => {
      const r = compile(['version: 1', 'steps:', '  a:', '    run: x', '  a:', '    run: y']);
      assert.deepEqual(
        r.diagnostics.map((d) => [...start(d), d.code]),
        [[4, 2, 'yaml-duplicate-key']],
        show(r.diagnostics),
      );
    });
    it('odd inputs are diagnostics too: empty, a list, an alias bomb', () => {
      for (const text of [
        '',
        '- 1\n- 2\n',
        'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n',
      ]) {
        const r = compilePlan('/ws/p.braid.yaml', text);
        assert.equal(r.graph, undefined);
        assert.ok(
          r.diagnostics.some((d) => d.severity === 'error'),
          JSON.stringify(text),
        );
      }
    });
    it('a .braid.json plan is located the same way', () => {
      const json = [
        '{',
        '  "version": 1,',
        '  "steps": {',
        '    "a": { "run": "echo" },',
        '    "b": { "needs": ["a"], "runn": "x" }',
        '  }',
        '}',
      ];
      const r = compile(json, {}, '/ws/p.braid.json');
      assert.deepEqual(
        r.diagnostics.map((d) => [...start(d), d.code]),
        [
          [4, 4, 'run-prompt'],
          [4, 27, 'unknown-key'],
        ],
        show(r.diagnostics),
      );
      assert.match(r.diagnostics.find((d) => d.code === 'unknown-key')!.message, /did you mean `run`\?/);
    });
    it('broken JSON is located', () => {
      const r = compile(
        ['{', '  "version": 1,', '  "steps": {', '    "a": { "run": "echo" ', '}'],
        {},
        '/ws/p.braid.json',
      );
      assert.equal(r.graph, undefined);
      assert.ok(
        r.diagnostics.length > 0 && r.diagnostics.every((d) => d.code.startsWith('yaml-')),
        show(r.diagnostics),
      );
      assert.ok(
        r.diagnostics.every((d) => d.range.start.line >= 3),
        show(r.diagnostics),
      );
    });
  });
});
