// Validation warnings about steps that may run at once: agent steps with no `writes` sharing the
// workspace (plan-format.md, `writes`), beside the overlapping-writers warning they share a rule with.
import { strict as assert } from 'node:assert';
import { compilePlan, type CompileOptions } from '../../src/core/plan/compile';
import type { Diagnostic } from '../../src/core/plan/types';

const compile = (lines: readonly string[], opts: CompileOptions = { isGit: false }) =>
  compilePlan('/ws/p.braid.yaml', `${lines.join('\n')}\n`, opts);
const unlocked = (lines: readonly string[], opts?: CompileOptions): Diagnostic[] => {
  const r = compile(lines, opts);
  assert.ok(r.graph, 'warnings never stop a plan');
  return r.diagnostics.filter((d) => d.code === 'unlocked-agents');
};
const start = (d: Diagnostic) => [d.range.start.line, d.range.start.column];

describe('plan warnings: agent steps without writes', () => {
  it('two agent steps in the shared workspace that may run at once: a warning on the second, naming the first', () => {
    const ds = unlocked(['version: 1', 'steps:', '  a:', '    prompt: one', '  b:', '    prompt: two']);
    assert.equal(ds.length, 1);
    assert.equal(ds[0]!.severity, 'warning');
    assert.deepEqual(start(ds[0]!), [4, 2]);
    assert.match(
      ds[0]!.message,
      /^b and a are agent steps without `writes` that may run at once in the shared workspace/,
    );
  });

  it('one warning a step: the third names the first it may collide with', () => {
    const ds = unlocked([
      'version: 1',
      'steps:',
      '  a: { prompt: one }',
      '  b: { prompt: two }',
      '  c: { needs: a, prompt: three }',
    ]);
    assert.deepEqual(
      ds.map((d) => [start(d)[0], d.message.slice(0, 7)]),
      [
        [3, 'b and a'],
        [4, 'c and b'],
      ],
    );
  });

  it('a matrix of agent steps without writes warns once, at the matrix step', () => {
    const ds = unlocked([
      'version: 1',
      'steps:',
      '  r:',
      '    matrix: { tool: [x, y, z] }',
      '    prompt: look at ${{ matrix.tool }}',
    ]);
    assert.deepEqual(ds.map(start), [[2, 2]]);
    assert.match(ds[0]!.message, /^r-y and r-x /);
  });

  it('no warning when they cannot run at once, or cannot collide', () => {
    const cases: Array<[string, string[], CompileOptions?]> = [
      [
        'one needs the other (transitively)',
        ['version: 1', 'steps:', '  a: { prompt: one }', '  m: { needs: a, run: x }', '  b: { needs: m, prompt: two }'],
      ],
      ['one has writes', ['version: 1', 'steps:', '  a: { prompt: one }', '  b: { prompt: two, writes: [docs/b.md] }']],
      [
        'both in worktrees (the default for agents in git)',
        ['version: 1', 'steps:', '  a: { prompt: one }', '  b: { prompt: two }'],
        { isGit: true },
      ],
      [
        'one in a worktree',
        ['version: 1', 'steps:', '  a: { prompt: one }', '  b: { prompt: two, isolation: worktree }'],
        { isGit: true, defaultIsolation: 'shared' },
      ],
      ['shell steps, not agents', ['version: 1', 'steps:', '  a: { run: x }', '  b: { run: y }']],
      [
        'concurrency 1: nothing runs at once',
        ['version: 1', 'concurrency: 1', 'steps:', '  a: { prompt: one }', '  b: { prompt: two }'],
      ],
    ];
    for (const [why, lines, opts] of cases) assert.deepEqual(unlocked(lines, opts), [], why);
  });

  it('shared agents in git, by setting or by plan, still warn', () => {
    assert.equal(
      unlocked(['version: 1', 'steps:', '  a: { prompt: one }', '  b: { prompt: two }'], {
        isGit: true,
        defaultIsolation: 'shared',
      }).length,
      1,
    );
    assert.equal(
      unlocked(
        ['version: 1', 'defaults:', '  isolation: shared', 'steps:', '  a: { prompt: one }', '  b: { prompt: two }'],
        { isGit: true },
      ).length,
      1,
    );
  });

  it('overlapping writers follow the same "may run at once" rule, and land on the later step\'s writes', () => {
    const r = compile([
      'version: 1',
      'steps:',
      '  a: { run: x, writes: ["src/**"] }',
      '  b:',
      '    run: y',
      '    writes: [src/a.ts]',
      '  c: { needs: [b], run: z, writes: [src/a.ts] }',
    ]);
    const ds = r.diagnostics.filter((d) => d.code === 'write-overlap');
    assert.deepEqual(
      ds.map((d) => [...start(d), d.message]),
      [
        [5, 12, 'a and b both write src/** / src/a.ts; they will run one after the other'],
        [6, 35, 'a and c both write src/** / src/a.ts; they will run one after the other'],
      ],
    );
  });

  it('two worktree writers run at once and only take turns to merge back: the warning says so', () => {
    const r = compile(
      [
        'version: 1',
        'steps:',
        '  a: { prompt: one, writes: ["src/**"] }',
        '  b: { prompt: two, writes: [src/a.ts] }',
        '  c: { run: z, writes: [src/b.ts] }',
      ],
      { isGit: true },
    );
    const ds = r.diagnostics.filter((d) => d.code === 'write-overlap').map((d) => d.message);
    assert.deepEqual(ds, [
      'a and b both write src/** / src/a.ts; they run at once in their worktrees and merge back one after the other (the second may end `conflict`)',
      'a and c both write src/** / src/b.ts; they will run one after the other',
    ]);
  });
});

describe('plan warnings: review on a shared step', () => {
  const review = (lines: readonly string[], isGit = true): Diagnostic[] => {
    const r = compile(lines, { isGit });
    assert.ok(r.graph);
    return r.diagnostics.filter((d) => d.code === 'review');
  };

  it('warns at the key of a shared step’s own `review: true`', () => {
    const ds = review(['version: 1', 'steps:', '  a:', '    run: echo', '    review: true']);
    assert.equal(ds.length, 1);
    assert.equal(ds[0]!.severity, 'warning');
    assert.equal(ds[0]!.range.start.line, 4);
    assert.match(ds[0]!.message, /set `isolation: worktree`/);
  });

  it('says nothing for a worktree step, nor for `defaults.review` reaching shared steps', () => {
    assert.deepEqual(
      review(['version: 1', 'steps:', '  a:', '    run: echo', '    isolation: worktree', '    review: true']),
      [],
    );
    assert.deepEqual(review(['version: 1', 'defaults:', '  review: true', 'steps:', '  a:', '    run: echo']), []);
  });
});
