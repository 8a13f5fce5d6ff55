// #22 item 15: templates in `env` values and in `setup` are validated like the rest, and a long
// delay waits in pieces setTimeout can hold.
import { strict as assert } from 'node:assert';
import { compilePlan } from '../../src/core/plan/compile';
import type { Diagnostic } from '../../src/core/plan/types';
import { MAX_TIMER_MS, realClock } from '../../src/core/engine/scheduling/clock';

const compile = (lines: readonly string[]) => compilePlan('/ws/p.braid.yaml', `${lines.join('\n')}\n`, { isGit: true });
const show = (ds: readonly Diagnostic[]) =>
  ds.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`).join('\n');
const brief = (ds: readonly Diagnostic[]) =>
  ds.map((d) => [d.range.start.line, d.range.start.column, d.severity, d.code]);

describe('templates in env and setup', () => {
  it('an unknown template in the plan env is an error at it (it used to pass and fail the run)', () => {
    const r = compile([
      'version: 1',
      'env:',
      '  TOKEN: ${{ github.token }}',
      '  OK: "${{ plan.name }}"',
      'steps:',
      '  a:',
      '    run: echo',
    ]);
    assert.deepEqual(brief(r.diagnostics), [[2, 9, 'error', 'template']], show(r.diagnostics));
    assert.match(r.diagnostics[0]!.message, /^env\.TOKEN: unknown template \$\{\{ github\.token \}\}/);
  });
  it('step env and defaults env: unknown shapes, steps that are not needed, at the value', () => {
    const r = compile([
      'version: 1',
      'defaults:',
      '  env:',
      '    D: ${{ nope }}',
      'steps:',
      '  a:',
      '    run: echo',
      '  b:',
      '    run: echo',
      '    env:',
      '      X: "${{ steps.a.output }}"',
    ]);
    assert.deepEqual(
      brief(r.diagnostics),
      [
        [3, 7, 'error', 'template'],
        [10, 10, 'error', 'template'],
      ],
      show(r.diagnostics),
    );
    assert.match(r.diagnostics[1]!.message, /`a` is not among the steps b needs/);
  });
  it('setup: unknown templates are errors, single quotes a warning, as in run', () => {
    const r = compile([
      'version: 1',
      'steps:',
      '  a:',
      '    isolation: worktree',
      '    prompt: hi',
      "    setup: npm ci '${{ plan.name }}' ${{ matrix.k }}",
    ]);
    assert.deepEqual(
      brief(r.diagnostics),
      [
        [5, 11, 'warning', 'single-quoted'],
        [5, 37, 'error', 'template'],
      ],
      show(r.diagnostics),
    );
  });
});

describe("realClock.sleep past setTimeout's 24.8 days", () => {
  it('waits in pieces no larger than the timer holds, then resolves', async () => {
    const real = globalThis.setTimeout;
    const asked: number[] = [];
    const pending: Array<() => void> = [];
    globalThis.setTimeout = ((fn: () => void, ms: number) => {
      asked.push(ms);
      pending.push(fn);
      return real(() => {}, 0);
    }) as typeof setTimeout;
    let done = false;
    try {
      const p = realClock.sleep(MAX_TIMER_MS * 2 + 5).then(() => {
        done = true;
      });
      while (pending.length > 0) {
        pending.shift()!();
        await Promise.resolve();
      }
      await p;
    } finally {
      globalThis.setTimeout = real;
    }
    assert.ok(done);
    assert.deepEqual(asked, [MAX_TIMER_MS, MAX_TIMER_MS, 5]);
  });
});
