// Hover, Go to Definition, Find All References, Rename and the Outline for step ids
// (src/core/language: hover.ts, navigation.ts, symbols.ts), matrix steps included.
import { strict as assert } from 'node:assert';
import { hover } from '../../src/core/language/hover';
import { definition, prepareRename, references, rename } from '../../src/core/language/navigation';
import { PlanSource } from '../../src/core/language/planSnapshot';
import { keyDocsFromSchema } from '../../src/core/language/schemaDocs';
import { documentSymbols } from '../../src/core/language/symbols';
import type { Range } from '../../src/core/language/types';
import { compilePlan, planJsonSchema } from '../../src/core/plan/compile';
import { describeSchema } from '../../src/core/plan/keyDocs';
import { PLAN_FIELDS, stepSchema } from '../../src/core/plan/schema';
import { applyEdits, docs, posOf } from '../helpers/planCursor';

const PLAN = `version: 1
defaults:
  agent: codex
steps:
  build:
    matrix:
      os: [linux, mac]
    run: make
  package:
    needs: [build-linux]
    run: tar \${{ steps.build-linux.output }}
  "test":
    needs: build
    run: echo "\${{ steps.build-mac.status }}"
  review:
    needs: ['test', build-*, package]
    prompt: |
      Review \${{ steps.test.output }} and \${{ steps.package.output }}.
  notes:
    prompt: write
    agent: claude
`;
const snap = new PlanSource().update(PLAN);
const textOf = (r: Range): string => PLAN.split('\n')[r.start.line]!.slice(r.start.column, r.end.column);

describe('language service: navigation', () => {
  it("goes from needs entries, concrete ids and templates to the step's key", () => {
    const buildKey = posOf(PLAN, 'build:');
    for (const [needle, offset, nth] of [
      ['build-linux]', 2, 0],
      ['steps.build-linux', 8, 0],
      ['needs: build', 9, 0],
      ['build-mac.status', 1, 0],
    ] as const) {
      const d = definition(snap, posOf(PLAN, needle, offset, nth));
      assert.ok(d, needle);
      assert.deepEqual(d.range.start, buildKey, needle);
      assert.equal(textOf(d.range), 'build');
    }
    const t = definition(snap, posOf(PLAN, 'steps.test.output', 7));
    assert.equal(textOf(t!.range), 'test', 'a quoted key points inside its quotes');
    assert.equal(definition(snap, posOf(PLAN, 'run: make', 6)), undefined, 'not a step id');
    assert.equal(definition(snap, posOf(PLAN, 'build-*', 2)), undefined, 'a glob names no one step');
  });

  it('finds every mention of a matrix step: its key, the group, each concrete id', () => {
    const refs = references(snap, posOf(PLAN, 'build:', 1)).map((l) => textOf(l.range));
    assert.deepEqual(refs, ['build', 'build-linux', 'build-linux', 'build', 'build-mac']);
    const noKey = references(snap, posOf(PLAN, 'build:', 1), false).map((l) => textOf(l.range));
    assert.deepEqual(noKey, ['build-linux', 'build-linux', 'build', 'build-mac']);
    assert.deepEqual(
      references(snap, posOf(PLAN, 'steps.test', 7)).map((l) => l.range.start.line),
      [11, 15, 17],
    );
  });

  it('renames a matrix step everywhere as one edit set, and the result still compiles', () => {
    const r = rename(snap, posOf(PLAN, 'needs: build', 8), 'compile');
    assert.ok('edits' in r);
    const after = applyEdits(PLAN, r.edits);
    assert.match(after, /^ {2}compile:$/m);
    assert.match(after, /needs: \[compile-linux\]/);
    assert.match(after, /steps\.compile-linux\.output/);
    assert.match(after, /needs: compile$/m);
    assert.match(after, /steps\.compile-mac\.status/);
    assert.match(after, /needs: \['test', compile-\*, package\]/, 'a glob that only matched this step follows it');
    assert.doesNotMatch(after, /build/);
    const compiled = compilePlan('p.braid.yaml', after, { isGit: true });
    assert.deepEqual(
      compiled.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    assert.deepEqual(compiled.graph?.steps.get('review')?.needs, ['compile-linux', 'compile-mac', 'package', 'test']);
  });

  it("renames from a concrete id by the group's name, keeps quotes, and refuses bad or taken names", () => {
    const r = rename(snap, posOf(PLAN, 'steps.build-linux', 8), 'make-linux');
    assert.ok('edits' in r);
    assert.match(applyEdits(PLAN, r.edits), /^ {2}make:$/m);
    const q = rename(snap, posOf(PLAN, 'steps.test.', 7), 'check');
    assert.ok('edits' in q);
    const after = applyEdits(PLAN, q.edits);
    assert.match(after, /^ {2}"check":$/m);
    assert.match(after, /needs: \['check', /);
    assert.deepEqual(rename(snap, posOf(PLAN, 'notes:', 1), '9lives'), {
      error: '`9lives` is not a step id: it starts with a letter and holds letters, digits, _ and - (at most 64)',
    });
    assert.deepEqual(rename(snap, posOf(PLAN, 'notes:', 1), 'review'), { error: 'a step `review` already exists' });
    assert.deepEqual(prepareRename(snap, posOf(PLAN, 'run: make', 6)), { error: 'not a step id' });
    const p = prepareRename(snap, posOf(PLAN, 'steps.package', 8));
    assert.ok('range' in p && p.text === 'package');
  });

  it('hovers a key with its docs, and a step with its kind, needs and last run', () => {
    const h = hover(snap, posOf(PLAN, 'matrix:', 2), docs);
    assert.match(h!.contents, /^\*\*matrix\*\* — fan-out: one step per combination/);
    assert.equal(textOf(h!.range), 'matrix');
    assert.match(hover(snap, posOf(PLAN, 'defaults:', 1), docs)!.contents, /\*\*defaults\*\*/);
    const lastRun = (id: string) => (id === 'test' ? { status: 'failed', durationMs: 75_000 } : undefined);
    const s = hover(snap, posOf(PLAN, 'steps.test.', 7), docs, { lastRun })!;
    assert.equal(s.contents, '**test** · run\n\nneeds `build`\n\nlast run: failed in 1m 15s');
    const r = hover(snap, posOf(PLAN, 'review:', 1), docs)!;
    assert.match(r.contents, /^\*\*review\*\* · agent `codex`/, "the defaults' agent");
    const m = hover(snap, posOf(PLAN, 'build:', 1), docs, {
      lastRun: (id) => ({ status: 'succeeded', durationMs: id === 'build-mac' ? 2500 : 900 }),
    })!;
    assert.match(m.contents, /matrix: `os` → 2 steps/);
    assert.match(m.contents, /last run: `build-linux`: succeeded in 900ms; `build-mac`: succeeded in 2.5s/);
    assert.match(
      hover(snap, posOf(PLAN, 'build-*', 2), docs)!.contents,
      /`build-\*` matches 2 steps: `build-linux`, `build-mac`/,
    );
    assert.equal(
      hover(snap, posOf(PLAN, 'matrix:', 2), docs, { schemaServed: true }),
      undefined,
      'a schema service describes keys',
    );
  });

  it("reads the key docs back from the editors' JSON schema as plan-format.md has them", () => {
    // The extension has only out/plan.schema.json at run time (scripts/writeSchema.ts writes it so).
    const back = keyDocsFromSchema(JSON.parse(JSON.stringify(describeSchema(planJsonSchema(), docs))));
    const known = (m: ReadonlyMap<string, string>, keys: readonly string[]) =>
      new Map([...m].filter(([k]) => keys.includes(k)));
    assert.deepEqual(back.plan, known(docs.plan, Object.keys(PLAN_FIELDS)));
    assert.deepEqual(back.step, known(docs.step, Object.keys(stepSchema.shape)));
    assert.ok(back.step.get('isolation')?.includes('worktree'));
  });

  it('lists the steps as symbols with their kind and agent', () => {
    const symbols = documentSymbols(snap);
    assert.deepEqual(
      symbols.map((s) => [s.name, s.kind, s.detail]),
      [
        ['build', 'run', 'run · matrix ×2'],
        ['package', 'run', 'run'],
        ['test', 'run', 'run'],
        ['review', 'agent', 'agent codex'],
        ['notes', 'agent', 'agent claude'],
      ],
    );
    const review = symbols[3]!;
    assert.equal(review.range.start.line, 14);
    assert.ok(review.range.end.line >= 17, 'to the end of its prompt');
    assert.equal(textOf(review.selectionRange), 'review');
  });
});
