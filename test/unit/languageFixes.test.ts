// Quick fixes (src/core/language/quickFixes.ts) on the validator's own diagnostics: applying the
// fix must make that diagnostic go away when the plan is compiled again.
import { strict as assert } from 'node:assert';
import { PlanSource } from '../../src/core/language/planSnapshot';
import { quickFixes } from '../../src/core/language/quickFixes';
import { compilePlan } from '../../src/core/plan/compile';
import type { Diagnostic } from '../../src/core/plan/types';
import { applyEdits } from '../helpers/planCursor';

const compile = (text: string): Diagnostic[] => compilePlan('p.braid.yaml', text, { isGit: true }).diagnostics;

/** The one fix for the diagnostic with `code`, applied; the diagnostics before and after. */
function fix(text: string, code: string): { after: string; title: string; before: Diagnostic } {
  const diags = compile(text);
  const i = diags.findIndex((d) => d.code === code);
  assert.ok(i >= 0, `no ${code} diagnostic in ${JSON.stringify(diags.map((d) => d.message))}`);
  const actions = quickFixes(new PlanSource().update(text), diags).filter((a) => a.diagnostic === i);
  assert.equal(actions.length, 1, `one fix for ${diags[i]!.message}`);
  return { after: applyEdits(text, actions[0]!.edits), title: actions[0]!.title, before: diags[i]! };
}

describe('language service: quick fixes', () => {
  it('replaces an unknown key with the suggested one, in a step and at the top', () => {
    const { after, title, before } = fix('version: 1\nsteps:\n  a:\n    run: x\n    isolaton: shared\n', 'unknown-key');
    assert.equal(before.suggestion, 'isolation');
    assert.equal(title, 'Change to `isolation`');
    assert.match(after, /^ {4}isolation: shared$/m);
    assert.deepEqual(compile(after), []);
    assert.match(
      fix('version: 1\nconcurency: 2\nsteps:\n  a:\n    run: x\n', 'unknown-key').after,
      /^concurrency: 2$/m,
    );
  });

  it('replaces an unknown step in needs, keeping its quotes', () => {
    const text = 'version: 1\nsteps:\n  build:\n    run: x\n  test:\n    needs: ["biuld"]\n    run: y\n';
    const { after } = fix(text, 'unknown-need');
    assert.match(after, /needs: \["build"\]/);
    assert.deepEqual(compile(after), []);
  });

  it('replaces an unknown agent, in a step and in defaults', () => {
    const { after } = fix('version: 1\nsteps:\n  a:\n    prompt: hi\n    agent: cluade\n', 'unknown-agent');
    assert.match(after, /agent: claude/);
    assert.deepEqual(
      compile(after).filter((d) => d.severity === 'error'),
      [],
    );
    const d = fix('version: 1\ndefaults:\n  agent: gemni\nsteps:\n  a:\n    prompt: hi\n', 'unknown-agent');
    assert.match(d.after, /agent: gemini/);
  });

  it('offers nothing where the validator suggested nothing', () => {
    const text = 'version: 1\nsteps:\n  a:\n    run: x\n    zzzzzz: 1\n';
    const diags = compile(text);
    assert.equal(diags[0]?.code, 'unknown-key');
    assert.equal(diags[0]?.suggestion, undefined);
    assert.deepEqual(quickFixes(new PlanSource().update(text), diags), []);
  });

  it('takes a template out of single quotes in a plain, a block, a double-quoted and a single-quoted scalar', () => {
    const cases: Array<[string, RegExp]> = [
      ["    run: echo 'got ${{ steps.a.output }} here'\n", /run: echo 'got '"\$\{\{ steps\.a\.output \}\}"' here'/],
      [
        "    run: |\n      echo hi\n      echo 'got ${{ steps.a.output }}'\n",
        /echo 'got '"\$\{\{ steps\.a\.output \}\}"''/,
      ],
      ['    run: "echo \'got ${{ steps.a.output }}\'"\n', /run: "echo 'got '\\"\$\{\{ steps\.a\.output \}\}\\"''"/],
      ["    run: 'echo ''got ${{ steps.a.output }}'''\n", /run: 'echo ''got ''"\$\{\{ steps\.a\.output \}\}"'''''/],
    ];
    for (const [run, expected] of cases) {
      const text = `version: 1\nsteps:\n  a:\n    run: x\n  b:\n    needs: a\n${run}`;
      const { after, title } = fix(text, 'single-quoted');
      assert.equal(title, 'Take ${{ steps.a.output }} out of the single quotes');
      assert.match(after, expected, run);
      assert.deepEqual(compile(after), [], `${run} → ${after}`);
    }
  });

  it("leaves $'…' and quoted here-documents alone", () => {
    for (const run of [
      "    run: echo $'${{ steps.a.output }}'\n",
      "    run: |\n      cat <<'EOF'\n      ${{ steps.a.output }}\n      EOF\n",
    ]) {
      const text = `version: 1\nsteps:\n  a:\n    run: x\n  b:\n    needs: a\n${run}`;
      const diags = compile(text);
      assert.ok(
        diags.some((d) => d.code === 'single-quoted'),
        run,
      );
      assert.deepEqual(quickFixes(new PlanSource().update(text), diags), [], run);
    }
  });
});
