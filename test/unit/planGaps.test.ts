// Validation gaps (#32 part 4): what used to pass validation and then misbehave at run time —
// copy, symlink and sparse entries leaving the workspace; templates in path fields used literally;
// two names that are one environment variable; a matrix value making an id too long for a file name.
import { strict as assert } from 'node:assert';
import { compilePlan } from '../../src/core/plan/compile';
import { MAX_INSTANCE_ID } from '../../src/core/plan/expand';
import type { Diagnostic } from '../../src/core/plan/types';
import { PlanSource, concreteIds } from '../../src/core/language/planSnapshot';
import { plan } from '../helpers/planText';

const compile = (lines: readonly string[]) => compilePlan('/ws/p.braid.yaml', `${lines.join('\n')}\n`, { isGit: true });
const show = (ds: readonly Diagnostic[]) =>
  ds.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.severity} ${d.code} ${d.message}`).join('\n');
const brief = (ds: readonly Diagnostic[]) =>
  ds.map((d) => [d.range.start.line, d.range.start.column, d.severity, d.code]);

describe('plan validation gaps', () => {
  it('`copy`, `symlink` and `sparse` entries leaving the workspace are refused at the entry, as `writes` is', () => {
    const r = compile([
      'version: 1',
      'steps:',
      '  a:',
      '    prompt: go',
      '    isolation: worktree',
      '    copy: [.env, ../secrets/.env]',
      '    symlink: ../node_modules',
      '    sparse: [src, /etc]',
    ]);
    assert.deepEqual(
      brief(r.diagnostics),
      [
        [5, 17, 'error', 'escapes'],
        [6, 13, 'error', 'escapes'],
        [7, 18, 'error', 'escapes'],
      ],
      show(r.diagnostics),
    );
    assert.match(r.diagnostics[0]!.message, /steps\.a\.copy\[1\]: `\.\.\/secrets\/\.env` leaves the workspace/);
    assert.equal(r.graph, undefined);
  });

  it('templates a path cannot know before the run are refused where they are written, in cwd, output and writes', () => {
    const r = compile([
      'version: 1',
      'steps:',
      '  a:',
      '    run: echo',
      '  b:',
      '    needs: [a]',
      '    run: echo',
      '    cwd: "${{ steps.a.output }}"',
      '    output: "out/${{ run.id }}.txt"',
      '    writes: [ok/**, "${{ env.HOME }}/x"]',
    ]);
    assert.deepEqual(
      brief(r.diagnostics),
      [
        [7, 9, 'error', 'path-template'],
        [8, 12, 'error', 'path-template'],
        [9, 20, 'error', 'path-template'],
      ],
      show(r.diagnostics),
    );
    assert.match(
      r.diagnostics[0]!.message,
      /steps\.b\.cwd: \$\{\{ steps\.a\.output \}\} cannot be used in `cwd`: a path must be known before the run/,
    );
  });

  it('matrix values and the plan name in paths are expanded, and pass', () => {
    const r = compile([
      'version: 1',
      'name: demo',
      'steps:',
      '  a:',
      '    run: echo',
      '    matrix: {k: [x, y]}',
      '    cwd: "pkgs/${{ matrix.k }}"',
      '    output: "out/${{ plan.name }}-${{ matrix.k }}.txt"',
      '    writes: ["out/${{ matrix.k }}/**"]',
    ]);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(
      [...r.graph!.steps.values()].map((s) => s.writes),
      [['out/x/**'], ['out/y/**']],
    );
  });

  it('steps `a-b` and `a_b` (one $BRAID_STEPS_A_B_OUTPUT) are a warning at the later step', () => {
    const r = compile([
      'version: 1',
      'steps:',
      '  a-b:',
      '    run: echo',
      '  a_b:',
      '    run: echo',
      '  c:',
      '    run: echo',
    ]);
    assert.deepEqual(brief(r.diagnostics), [[4, 2, 'warning', 'env-name']], show(r.diagnostics));
    assert.match(
      r.diagnostics[0]!.message,
      /`a_b` and `a-b` are one variable to a shell \(BRAID_STEPS_A_B_OUTPUT, BRAID_STEPS_A_B_STATUS\)/,
    );
    assert.ok(r.graph, 'a warning: the plan still runs');
  });

  it('a matrix instance and a step that spell one variable (`t-x` from `t` with x, and `t_x`)', () => {
    const r = compile([
      'version: 1',
      'steps:',
      '  t:',
      '    run: echo',
      '    matrix: {k: [x, y]}',
      '  t_x:',
      '    run: echo',
    ]);
    assert.deepEqual(brief(r.diagnostics), [[5, 2, 'warning', 'env-name']], show(r.diagnostics));
  });

  it('matrix keys `K` and `k` (one $BRAID_MATRIX_K) are a warning at the later key', () => {
    const r = compile(['version: 1', 'steps:', '  a:', '    run: echo', '    matrix:', '      k: [x]', '      K: [y]']);
    assert.deepEqual(brief(r.diagnostics), [[6, 6, 'warning', 'env-name']], show(r.diagnostics));
    assert.match(r.diagnostics[0]!.message, /matrix keys `K` and `k` are one variable to a shell \(BRAID_MATRIX_K\)/);
  });

  it(`a long matrix value makes an id of at most ${MAX_INSTANCE_ID} characters, unique, and the editor names it alike`, () => {
    const long1 = `${'v'.repeat(300)}1`,
      long2 = `${'v'.repeat(300)}2`;
    const text = plan`
      version: 1
      steps:
        a:
          run: echo
          matrix: {k: [${long1}, ${long2}, short]}
        b:
          run: echo
          needs: [a]
      `;
    const r = compilePlan('/ws/p.braid.yaml', text, { isGit: true });
    assert.deepEqual(r.diagnostics, []);
    const ids = r.graph!.order.filter((id) => id.startsWith('a-'));
    assert.equal(ids.length, 3);
    assert.ok(
      ids.every((id) => id.length <= MAX_INSTANCE_ID),
      ids.join(' '),
    );
    assert.ok(ids.includes('a-short'));
    assert.equal(new Set(ids).size, 3);
    assert.match(
      ids.find((id) => id !== 'a-short')!,
      /^a-v+-[0-9a-f]{8}$/,
    );
    // The language service (completion, references) must name the same ids as the compiler.
    const snap = new PlanSource().update(text, 1);
    const step = snap.steps.find((s) => s.facts.id === 'a')!;
    assert.deepEqual([...concreteIds(step.facts)].sort(), [...ids].sort());
  });
});
