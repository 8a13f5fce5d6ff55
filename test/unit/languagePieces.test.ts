// The language service's parsing (planChunks.ts, planSnapshot.ts): a plan is cut into pieces
// that parse alone, a new version re-parses only the pieces an edit touched, and whatever the
// edits, the answers are those of a fresh parse of the same text.
import { strict as assert } from 'node:assert';
import { PlanLanguageService } from '../../src/core/language/languageService';
import { definition, references } from '../../src/core/language/navigation';
import { splitPlan } from '../../src/core/language/planChunks';
import { PlanSource, type PlanSnapshot } from '../../src/core/language/planSnapshot';
import { transitiveNeeds } from '../../src/core/language/stepGraph';
import { allStepRefs } from '../../src/core/language/stepRefs';
import { documentSymbols } from '../../src/core/language/symbols';
import { docs, posOf } from '../helpers/planCursor';

const PLAN = `# a comment before everything
version: 1
env:
  A: "1"
steps:
  # a comment before the first step
  a:
    run: echo a

  b:
    needs: a
    run: |
      echo b
      # not a step
  c:
    needs: [a, b]
    prompt: hi
`;

const view = (s: PlanSnapshot) => ({
  symbols: documentSymbols(s),
  refs: allStepRefs(s),
  declared: s.declared(),
  ids: s.allIds().map((id) => [id, s.groupOf(id)]),
  needs: s.steps.map((x) => [x.facts.id, s.stepByGroup(x.facts.id)?.facts.needs, transitiveNeeds(s, x.facts.id)]),
});

describe('language service: pieces', () => {
  it('cuts the top-level keys and each step of a block-style `steps:`', () => {
    const { spans } = splitPlan(PLAN);
    assert.deepEqual(
      spans.map((s) => [s.kind, s.startLine, s.endLine]),
      [
        ['top', 0, 2],
        ['top', 2, 4],
        ['top', 4, 6],
        ['step', 6, 9],
        ['step', 9, 14],
        ['step', 14, 18],
      ],
    );
  });

  it('keeps JSON, flow style and several documents whole', () => {
    for (const text of [
      '{"version": 1, "steps": {"a": {"run": "x"}}}\n',
      '---\nversion: 1\nsteps: {a: {run: x}}\n',
      '- a\n- b\n',
    ]) {
      assert.equal(splitPlan(text).spans.length, 1, text);
    }
    const flow = 'version: 1\nsteps: {a: {run: x}, b: {needs: a, run: y}}\n';
    const snap = new PlanSource().update(flow);
    assert.deepEqual(
      documentSymbols(snap).map((s) => s.name),
      ['a', 'b'],
    );
    assert.equal(
      definition(snap, posOf(flow, 'needs: a', 7))?.range.start.column,
      flow.indexOf('a:') - flow.indexOf('\nsteps') - 1,
    );
  });

  it('re-parses only the piece an edit touched, and moves the pieces after it', () => {
    const source = new PlanSource();
    const first = source.update(PLAN, 1);
    const edited = PLAN.replace('echo a', 'echo a\n    timeout: 5m');
    const second = source.update(edited, 2);
    assert.equal(source.update(edited, 2), second, 'the same version is the same snapshot');
    const stepOf = (s: PlanSnapshot, id: string) => s.steps.find((x) => x.facts.id === id)!.piece;
    assert.notEqual(stepOf(second, 'a').parsed, stepOf(first, 'a').parsed, 'the edited step is parsed again');
    assert.equal(stepOf(second, 'b').parsed, stepOf(first, 'b').parsed, 'the steps after it are reused');
    assert.equal(stepOf(second, 'b').startLine, stepOf(first, 'b').startLine + 1, 'one line further down');
    assert.equal(second.pieces[0]!.parsed, first.pieces[0]!.parsed, 'and the pieces before it');
    assert.deepEqual(
      references(second, posOf(edited, 'needs: [a', 8)).map((l) => l.range.start.line),
      [6, 11, 16],
    );
  });

  it('answers as a fresh parse would after any sequence of edits', () => {
    // A deterministic walk of insertions and deletions, some of them breaking the YAML for a while.
    const pieces = [
      'x',
      '\n',
      '  d:\n    needs: c\n    run: z\n',
      '    matrix: {k: [1, 2]}\n',
      'needs: [c]\n',
      ': ',
      '  ',
      '- ',
      '"',
      '${{ steps.a.output }}',
      'needs: [a',
      '#',
    ];
    let text = PLAN;
    let seed = 7;
    // The high bits: a power-of-two LCG's low bits cycle with a short period.
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor((seed / 2147483648) * n);
    };
    const source = new PlanSource();
    for (let round = 0; round < 300; round++) {
      const at = rand(text.length + 1);
      const op = rand(4);
      // Deletions, insertions, and replacements that keep the length (a piece's size alone cannot tell).
      if (op === 0) text = text.slice(0, at) + text.slice(at + 1 + rand(12));
      else if (op === 1) text = text.slice(0, at) + (text[at] === 'b' ? 'q' : 'b') + text.slice(at + 1);
      else text = text.slice(0, at) + pieces[rand(pieces.length)]! + text.slice(at);
      if (round % 50 === 49) text = PLAN; // back to a good plan now and then
      const incremental = source.update(text, round);
      // A reused piece must hold exactly the text now at its place.
      for (const p of incremental.pieces)
        assert.equal(p.parsed.text, text.slice(p.startOffset, p.endOffset), `round ${round}: piece at ${p.startLine}`);
      assert.deepEqual(view(incremental), view(new PlanSource().update(text)), `round ${round}:\n${text}`);
    }
  });

  it('never throws in any service at any position of any prefix of a plan', () => {
    const full = `${PLAN}  "d":\n    needs: [c, 'b', a*]\n    matrix:\n      os: [x, 1.5]\n    run: echo '\${{ steps.c.output }}' \${{ matrix.os }}\n`;
    const diag = [
      {
        code: 'single-quoted',
        message: '${{ steps.c.output }} is inside single quotes',
        range: { start: { line: 21, column: 9 }, end: { line: 21, column: 60 } },
      },
    ];
    const service = new PlanLanguageService(docs);
    for (let cut = 0; cut <= full.length; cut += 3) {
      const d = { key: 'x', version: cut, text: full.slice(0, cut) };
      const lines = d.text.split('\n');
      for (let line = Math.max(0, lines.length - 4); line < lines.length; line++) {
        for (const column of [0, 3, 5, 9, 12, lines[line]!.length]) {
          const pos = { line, column };
          assert.doesNotThrow(() => {
            service.completion(d, pos);
            service.hover(d, pos);
            service.definition(d, pos);
            service.references(d, pos);
            service.prepareRename(d, pos);
            service.rename(d, pos, 'renamed');
            service.symbols(d);
            service.quickFixes(d, diag);
          }, `prefix ${cut}, ${line}:${column}`);
        }
      }
    }
  });
});
