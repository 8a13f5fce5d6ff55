// The best-of keys (plan-format.md, "Best of N"): what compiles into the graph, and every
// validation problem located where it is written, with its fix.
import { strict as assert } from 'node:assert';
import { compilePlan, type CompileOptions } from '../../src/core/plan/compile';
import type { Diagnostic } from '../../src/core/plan/types';

const git: CompileOptions = { isGit: true };
const compile = (lines: readonly string[], opts: CompileOptions = git) =>
  compilePlan('/ws/p.braid.yaml', `${lines.join('\n')}\n`, opts);
const show = (ds: readonly Diagnostic[]) =>
  ds.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`).join('\n');
const at = (d: Diagnostic) => [d.range.start.line, d.range.start.column];

function only(lines: readonly string[], code: string, opts: CompileOptions = git): Diagnostic {
  const r = compile(lines, opts);
  const hits = r.diagnostics.filter((d) => d.code === code && d.severity === 'error');
  assert.equal(hits.length, 1, show(r.diagnostics));
  assert.equal(r.graph, undefined);
  return hits[0]!;
}

describe('best-of in the plan format', () => {
  it('best-of: N compiles to N alternatives, pick first, isolation worktree by default', () => {
    const r = compile(['version: 1', 'steps:', '  a:', '    run: echo ${{ alternative.index }}', '    best-of: 3']);
    assert.deepEqual(r.diagnostics, []);
    const a = r.graph!.steps.get('a')!;
    assert.equal(a.isolation, 'worktree');
    assert.equal(a.bestOf?.pick, 'first');
    assert.deepEqual(
      a.bestOf?.alternatives.map((x) => x.index),
      [1, 2, 3],
    );
  });

  it('alternatives keep what each sets; the rest comes from the step', () => {
    const r = compile([
      'version: 1',
      'steps:',
      '  a:',
      '    prompt: fix it',
      '    check: npm test',
      '    pick: check',
      '    alternatives:',
      '      - { agent: codex }',
      '      - { agent: claude, model: opus, prompt: "fix it, alternative ${{ alternative.index }}" }',
      '      - { env: { X: 1 } }',
    ]);
    assert.deepEqual(r.diagnostics, [], show(r.diagnostics));
    const alts = r.graph!.steps.get('a')!.bestOf!.alternatives;
    assert.deepEqual(
      alts.map((x) => [x.index, x.agent, x.model, { ...x.env }]),
      [
        [1, 'codex', undefined, {}],
        [2, 'claude', 'opus', {}],
        [3, undefined, undefined, { X: '1' }],
      ],
    );
    assert.equal(r.graph!.steps.get('a')!.bestOf!.pick, 'check');
  });

  it('N outside 2–10: at the value', () => {
    for (const n of [1, 11]) {
      const d = only(['version: 1', 'steps:', '  a:', '    run: echo', `    best-of: ${n}`], 'type');
      assert.deepEqual(at(d), [4, 13]);
      assert.match(d.message, /expected a whole number from 2 to 10, got/);
    }
    const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    alternatives: [{}]'], 'type');
    assert.match(d.message, /from 2 to 10 entries/);
  });

  it('a shared-isolation step: at `isolation`, suggesting worktree', () => {
    const d = only(
      ['version: 1', 'steps:', '  a:', '    run: echo', '    isolation: shared', '    best-of: 2'],
      'best-of',
    );
    assert.deepEqual(at(d), [4, 15]);
    assert.equal(d.suggestion, 'worktree');
    assert.match(d.message, /needs `isolation: worktree`/);
  });

  it('outside git: at the key, saying why', () => {
    const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    best-of: 2'], 'best-of', { isGit: false });
    assert.deepEqual(at(d), [4, 4]);
    assert.match(d.message, /git worktree of its own/);
  });

  it('pick: check without check', () => {
    const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    best-of: 2', '    pick: check'], 'best-of');
    assert.deepEqual(at(d), [5, 4]);
    assert.match(d.message, /add `check`, or use `pick: first`/);
  });

  it('an alternative with an unknown agent: at its agent, with a did-you-mean', () => {
    const d = only(
      ['version: 1', 'steps:', '  a:', '    prompt: hi', '    alternatives: [{ agent: codx }, {}]'],
      'unknown-agent',
    );
    assert.deepEqual(at(d), [4, 28]);
    assert.equal(d.suggestion, 'codex');
  });

  it('an alternative with an unknown key: at the key, with a did-you-mean', () => {
    const d = only(
      ['version: 1', 'steps:', '  a:', '    prompt: hi', '    alternatives:', '      - { modl: x }', '      - {}'],
      'unknown-key',
    );
    assert.deepEqual(at(d), [5, 10]);
    assert.match(d.message, /did you mean `model`\?/);
  });

  it('${{ alternative.index }} in a step without alternatives', () => {
    const d = only(['version: 1', 'steps:', '  a:', '    run: echo ${{ alternative.index }}'], 'template');
    assert.match(d.message, /no `best-of` or `alternatives`/);
  });

  it("an alternative's model takes the matrix's values, as the step's does", () => {
    const r = compile([
      'version: 1',
      'steps:',
      '  a:',
      '    prompt: hi',
      '    matrix: { m: [opus, sonnet] }',
      '    alternatives:',
      '      - { model: "${{ matrix.m }}" }',
      '      - { agent: codex }',
    ]);
    assert.deepEqual(r.diagnostics, [], show(r.diagnostics));
    assert.deepEqual(
      [...r.graph!.steps.values()].map((s) => s.bestOf!.alternatives[0]!.model),
      ['opus', 'sonnet'],
    );
  });

  it("an alternative's agent must take its model and the step's asks as flags (stepAgent.ts): at the alternative", () => {
    // The step's max-turns suits claude (its agent), not gemini, an alternative's.
    const d = only(
      [
        'version: 1',
        'steps:',
        '  a:',
        '    prompt: hi',
        '    max-turns: 5',
        '    alternatives:',
        '      - {}',
        '      - { agent: gemini }',
      ],
      'agent-flag',
    );
    assert.deepEqual(at(d), [7, 17]);
    assert.match(d.message, /the step's `max-turns`: agent `gemini` cannot honour it/);
    const own = only(
      [
        'version: 1',
        'agents:',
        '  mine: { command: "my-agent ${{ prompt }}" }',
        'steps:',
        '  a:',
        '    prompt: hi',
        '    alternatives:',
        '      - {}',
        '      - { agent: mine, model: big }',
      ],
      'agent-flag',
    );
    assert.deepEqual(at(own), [8, 30]);
    assert.match(own.message, /not a CLI Braid knows a flag for/);
  });

  it('pick without best-of', () => {
    const d = only(['version: 1', 'steps:', '  a:', '    run: echo', '    pick: first'], 'best-of');
    assert.match(d.message, /add `best-of: N`/);
  });
});
