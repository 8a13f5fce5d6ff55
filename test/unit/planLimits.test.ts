// Validation runs as the user types: whatever the text, it ends soon, in bounded memory, with
// located problems (#22: globs that backtrack, aliases that multiply a matrix, deep nesting,
// thousands of unclosed templates, keys that are collections, control characters in messages).
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compilePlan, compilePlanFile, MAX_PLAN_BYTES } from '../../src/core/plan/compile';
import { MAX_PLAN_STEPS } from '../../src/core/plan/expand';
import { PlanLanguageService } from '../../src/core/language/languageService';
import { loadPlan, MAX_DEPTH } from '../../src/core/plan/load';
import { parseDocument } from 'yaml';
import { parseCapped } from '../../src/core/plan/cappedParse';
import { MAX_TOKENS, MAX_VALUES, nestingPast, PRESCAN_DEPTH, prescan } from '../../src/core/plan/nesting';
import { MAX_BUILT_DIAGNOSTICS, MAX_DIAGNOSTICS, reporter, tidy } from '../../src/core/plan/reporter';
import type { Diagnostic } from '../../src/core/plan/types';
import { docs } from '../helpers/planCursor';
import { plan } from '../helpers/planText';

const compile = (lines: readonly string[]) => compilePlan('/ws/p.braid.yaml', `${lines.join('\n')}\n`, { isGit: true });
const show = (ds: readonly Diagnostic[]) =>
  ds.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`).join('\n');
const at = (d: Diagnostic | undefined) => (d ? [d.range.start.line, d.range.start.column] : undefined);

describe('plan validation limits', () => {
  // Without the linear-time matcher each of these backtracks for minutes (mocha's timeout fails them).
  describe('globs that make a regular expression backtrack', () => {
    const long = `${'a'.repeat(40)}b`;
    it('a `needs` glob beside a 41-character id', () => {
      const r = compile([
        'version: 1',
        'steps:',
        `  ${long}:`,
        '    run: echo',
        '  b:',
        '    run: echo',
        `    needs: ["${'*a'.repeat(12)}"]`,
      ]);
      assert.deepEqual(
        r.diagnostics.map((d) => [at(d), d.code]),
        [[[6, 12], 'unknown-need']],
        show(r.diagnostics),
      );
    });
    it('two `writes` globs compared for overlap', () => {
      const r = compile([
        'version: 1',
        'steps:',
        '  a:',
        '    run: echo',
        `    writes: ["${'*a'.repeat(12)}"]`,
        '  b:',
        '    run: echo',
        `    writes: ["${long}"]`,
      ]);
      assert.ok(r.graph, show(r.diagnostics));
    });
    it('an extglob is refused at the entry, in writes and in needs', () => {
      const r = compile([
        'version: 1',
        'steps:',
        '  a:',
        '    run: echo',
        '    writes: [src/x.ts, "src/+(a|b).ts"]',
        '  b:',
        '    run: echo',
        '    needs: ["@(a)"]',
      ]);
      assert.deepEqual(
        r.diagnostics.map((d) => [at(d), d.code]),
        [
          [[4, 23], 'glob'],
          [[7, 12], 'glob'],
        ],
        show(r.diagnostics),
      );
      assert.match(r.diagnostics[0]!.message, /extglobs are not supported/);
    });
  });

  describe('the size of the expanded plan', () => {
    it('one matrix shared by alias across 100 steps (1,000,000 steps) is refused at the step that crosses the cap', () => {
      const values = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;
      const lines = [
        'version: 1',
        'steps:',
        '  s0:',
        '    run: echo',
        '    matrix: &m',
        `      x: ${values(100)}`,
        `      y: ${values(100)}`,
      ];
      for (let i = 1; i < 100; i++) lines.push(`  s${i}:`, '    run: echo', '    matrix: *m');
      const r = compile(lines);
      assert.equal(r.graph, undefined);
      assert.deepEqual(
        r.diagnostics.map((d) => [at(d), d.code]),
        [[[9, 12], 'plan-size']],
        show(r.diagnostics),
      );
      assert.match(
        r.diagnostics[0]!.message,
        /more than 10,000 steps: 10,000 before this step, which makes 10,000, and 98 later steps would add 980,000 more/,
      );
    });
    it(`steps without a matrix count too: the ${MAX_PLAN_STEPS + 1}th step is refused at its key`, () => {
      const lines = [
        'version: 1',
        'steps:',
        '  m:',
        '    run: echo',
        '    matrix:',
        `      k: [${Array.from({ length: MAX_PLAN_STEPS }, (_, i) => i).join(',')}]`,
        '  last:',
        '    run: echo',
      ];
      const r = compile(lines);
      assert.deepEqual(
        r.diagnostics.map((d) => [at(d), d.code]),
        [[[6, 2], 'plan-size']],
        show(r.diagnostics),
      );
    });
    it('a matrix needing a matrix past 200,000 dependencies is refused at the needs entry', () => {
      const values = `[${Array.from({ length: 500 }, (_, i) => i).join(',')}]`;
      const r = compile([
        'version: 1',
        'steps:',
        '  a:',
        '    run: echo',
        `    matrix: {k: ${values}}`,
        '  b:',
        '    run: echo',
        `    matrix: {k: ${values}}`,
        '    needs: [a]',
      ]);
      assert.deepEqual(
        r.diagnostics.map((d) => [at(d), d.code]),
        [[[8, 12], 'plan-size']],
        show(r.diagnostics),
      );
    });
  });

  describe('nesting', () => {
    for (const [what, open, close] of [
      ['flow lists', '[', ']'],
      ['flow mappings', '{a: ', '}'],
      ['block lists', '- ', ''],
    ] as const) {
      it(`3,000 levels of ${what}: one problem where the nesting passes ${MAX_DEPTH} levels`, () => {
        const deep = open.repeat(3000) + (close === '' ? 'x' : '1'.slice(open === '[' ? 1 : 0)) + close.repeat(3000);
        const r = compile(['version: 1', 'steps:', '  a:', '    run: echo', '    name:', `      ${deep}`]);
        assert.equal(r.diagnostics.length, 1, show(r.diagnostics));
        assert.equal(r.diagnostics[0]!.code, 'yaml-depth');
        assert.equal(r.diagnostics[0]!.range.start.line, 5);
        assert.match(r.diagnostics[0]!.message, /nested more than 64 levels deep/);
      });
    }
    // yaml closes every open collection of a dedent in one recursion: these overflowed its stack (exit 70).
    for (const [what, level] of [
      ['block mappings', (i: number) => `${' '.repeat(6 + i)}k:`],
      ['block lists', (i: number) => `${' '.repeat(6 + i)}-`],
    ] as const) {
      it(`3,000 levels of ${what} closed by one dedent: one problem, found before the parse`, () => {
        const lines = ['version: 1', 'steps:', '  a:', '    run: echo', '    name:'];
        for (let i = 0; i < 3000; i++) lines.push(level(i));
        lines.push(`${' '.repeat(3006)}x`, '  b:', '    run: echo');
        const r = compile(lines);
        assert.deepEqual(
          r.diagnostics.map((d) => [d.code, d.message]),
          [['yaml-depth', 'YAML: nested more than 64 levels deep']],
          show(r.diagnostics),
        );
        // Where the pre-scan stopped: deeper than the located check's limit, well before the end.
        const line = r.diagnostics[0]!.range.start.line;
        assert.ok(line > 5 + MAX_DEPTH && line < 5 + PRESCAN_DEPTH + 2, show(r.diagnostics));
      });
    }
    it('3,000 compact block lists (`- - - x`) closed by one dedent, and in the language service', () => {
      const text = plan`
        version: 1
        steps:
          a:
            run: echo
            name: ${'- '.repeat(3000)}x
          b:
            run: echo
        `;
      const r = compilePlan('/ws/p.braid.yaml', text, { isGit: true });
      assert.deepEqual(
        r.diagnostics.map((d) => d.code),
        ['yaml-depth'],
        show(r.diagnostics),
      );
      // The language service parses the text's pieces with the same loader: no throw there either.
      const service = new PlanLanguageService(docs);
      const doc = { key: 'file:///ws/p.braid.yaml', version: 1, text };
      assert.ok(Array.isArray(service.symbols(doc)));
      assert.ok(Array.isArray(service.completion(doc, { line: 4, column: 10 })));
    });
    it('a plan nested a reasonable depth passes the pre-scan (a prompt in a block scalar full of brackets, a quoted one)', () => {
      const r = compile([
        'version: 1',
        'steps:',
        '  a:',
        '    agent: claude',
        '    prompt: |',
        `      ${'['.repeat(400)}`,
        '  b:',
        '    run: echo',
        `    name: "${'{'.repeat(400)}"`,
      ]);
      assert.deepEqual(r.diagnostics, []);
      assert.equal(
        nestingPast(
          `a:\n${Array.from({ length: 60 }, (_, i) => `${' '.repeat(2 + 2 * i)}k${i}:`).join('\n')} [[[1]]]\n`,
        ),
        undefined,
      );
    });
  });

  it('160 KB of unclosed `${{`: ten problems located, then how many more', () => {
    const r = compile(['version: 1', 'steps:', '  a:', `    run: "${'${{ '.repeat(40_000)}"`]);
    assert.equal(r.diagnostics.length, 11, show(r.diagnostics.slice(0, 12)));
    assert.deepEqual(at(r.diagnostics[0]), [3, 10]);
    assert.deepEqual(at(r.diagnostics[10]), [3, 10 + 4 * 10]);
    assert.match(r.diagnostics[10]!.message, /and 39990 more template problems in this value/);
  });

  it(`more than ${MAX_DIAGNOSTICS} problems: the first ${MAX_DIAGNOSTICS}, then one saying how many more`, () => {
    const lines = ['version: 1', 'steps:'];
    for (let i = 0; i < 300; i++) lines.push(`  s${i}:`, '    run: echo', '    nope: 1');
    const r = compile(lines);
    assert.equal(r.diagnostics.length, MAX_DIAGNOSTICS + 1);
    const last = r.diagnostics[MAX_DIAGNOSTICS]!;
    assert.equal(last.message, 'and 100 more errors, not listed');
    assert.deepEqual(at(last), [2 + 3 * MAX_DIAGNOSTICS + 2, 4]);
  });

  describe('problems past the cap are counted, not built', () => {
    it(`text that is all mistakes (50 KB of \`]\`): yaml's first ${MAX_BUILT_DIAGNOSTICS} problems built, then reading stops, located`, () => {
      const text = `version: 1\nsteps:\n${']'.repeat(50_000)}\n`;
      const lp = loadPlan('/ws/p.braid.yaml', text);
      // The problems built, and one more where reading stopped: at the first error past the cap.
      assert.equal(lp.diagnostics.length, MAX_BUILT_DIAGNOSTICS + 1);
      const unread = lp.diagnostics[MAX_BUILT_DIAGNOSTICS]!;
      assert.equal(unread.code, 'yaml-unread');
      assert.deepEqual(at(unread), [2, MAX_BUILT_DIAGNOSTICS]);
      const r = compilePlan('/ws/p.braid.yaml', text);
      assert.equal(r.diagnostics.length, MAX_DIAGNOSTICS + 2);
      assert.equal(
        r.diagnostics[MAX_DIAGNOSTICS]!.message,
        `and ${MAX_BUILT_DIAGNOSTICS - MAX_DIAGNOSTICS + 1} more errors, not listed`,
      );
      // Listed last, though the list is cut before it: it says why the list ends there.
      assert.equal(
        r.diagnostics[MAX_DIAGNOSTICS + 1]!.message,
        'YAML: more than 2,000 syntax errors; from here on the text is not read',
      );
      assert.deepEqual(at(r.diagnostics[MAX_DIAGNOSTICS + 1]), [2, MAX_BUILT_DIAGNOSTICS]);
    });
    it("past the cap nothing is lost of what is shown: the errors built are yaml's own first ones, and reading stops at the next", () => {
      const text = `version: 1\nsteps:\n  a: {run: echo}\n${']'.repeat(300)}\n  b:\n\t run: echo\n`;
      // The unbounded parse, for yaml's own errors in order.
      const all = parseDocument(text, { uniqueKeys: false, logLevel: 'error' }).errors;
      assert.ok(all.length > 300, String(all.length));
      const capped = parseCapped(text, 100, { uniqueKeys: false, logLevel: 'error' });
      assert.deepEqual(
        capped.doc.errors.map((e) => [e.code, e.pos]),
        all.slice(0, 100).map((e) => [e.code, e.pos]),
      );
      assert.equal(capped.stoppedAt, all[100]!.pos[0]);
      // What lies past the cut (errors of their own in the full parse) is not read.
      assert.ok(all.some((e) => e.pos[0] > text.lastIndexOf(']')));
      assert.ok(!capped.doc.errors.some((e) => e.pos[0] >= capped.stoppedAt!));
      // Under the cap the whole text is read, as before.
      assert.equal(parseCapped(text, all.length, { uniqueKeys: false, logLevel: 'error' }).stoppedAt, undefined);
    });
    it('a plan whose errors fit under the cap is read as parseDocument reads it (errors, warnings, value)', () => {
      for (const text of [
        'version: 1\nsteps: {a: {run: echo}\n',
        'a: 1\n---\nb: 2\n',
        'version: 1\nsteps:\n  a:\n    run: echo\n',
        '%FOO x\n---\na: 1\n',
      ]) {
        const want = parseDocument(text, { uniqueKeys: false, logLevel: 'error' });
        const got = parseCapped(text, MAX_BUILT_DIAGNOSTICS, { uniqueKeys: false, logLevel: 'error' }).doc;
        assert.deepEqual(
          got.errors.map((e) => [e.code, e.pos]),
          want.errors.map((e) => [e.code, e.pos]),
          text,
        );
        assert.deepEqual(
          got.warnings.map((e) => [e.code, e.pos]),
          want.warnings.map((e) => [e.code, e.pos]),
          text,
        );
        assert.deepEqual(got.toJS(), want.toJS(), text);
      }
    });
    it(`more than ${MAX_VALUES.toLocaleString('en-US')} keys, values and lists: one problem at the one past the cap, unparsed`, () => {
      const items = Array.from({ length: MAX_VALUES + 10 }, (_, i) => `n${i}`);
      const text = `version: 1\nsteps:\n  a:\n    run: echo\n    needs: [${items.join(', ')}]\n`;
      const r = compilePlan('/ws/p.braid.yaml', text);
      assert.deepEqual(
        r.diagnostics.map((d) => d.code),
        ['yaml-too-many-values'],
        show(r.diagnostics),
      );
      // Nodes before the list's items: version, 1, steps, a, run, echo, needs and the list (8).
      const nth = MAX_VALUES - 8;
      assert.deepEqual(at(r.diagnostics[0]), [4, '    needs: ['.length + items.slice(0, nth).join(', ').length + 2]);
      assert.match(r.diagnostics[0]!.message, /more than 150,000 keys, values and lists/);
      // Just under the cap the list is read and each entry checked.
      const under = `version: 1\nsteps:\n  a:\n    run: echo\n    needs: [${items.slice(0, MAX_VALUES - 8).join(', ')}]\n`;
      const u = compilePlan('/ws/p.braid.yaml', under);
      assert.equal(u.diagnostics[0]!.code, 'unknown-need', show(u.diagnostics.slice(0, 3)));
    });
    it('nodes without a scalar count too: empty mappings, lists, aliases and bare list items (5 MB of `{},` took 16 s and 2.3 GB)', () => {
      const head = 'version: 1\nsteps:\n  a: &a\n    run: echo\n';
      // Each form past a cap of 1,000 (the pre-scan alone), and just under it.
      const forms: [string, string][] = [
        ['{}', '{},'],
        ['[]', '[],'],
        ['*a', '*a,'],
        ['-', '\n-'],
        ['?', '\n?'],
      ];
      for (const [what, item] of forms) {
        const body = (n: number) => (item.startsWith('\n') ? `x:${item.repeat(n)}\n` : `x: [${item.repeat(n)}]\n`);
        assert.notEqual(prescan(head + body(1000), PRESCAN_DEPTH, 1000).tooMany, undefined, what);
        assert.deepEqual(prescan(head + body(1000 - 20), PRESCAN_DEPTH, 1000), {}, what);
      }
      // At the real cap, through the whole of validation.
      const r = compilePlan('/ws/p.braid.yaml', `${head}x: [${'{},'.repeat(MAX_VALUES)}]\n`);
      assert.deepEqual(
        r.diagnostics.map((d) => d.code),
        ['yaml-too-many-values'],
        show(r.diagnostics.slice(0, 3)),
      );
    });
    it(`more than ${MAX_TOKENS.toLocaleString('en-US')} pieces, none of them a node (blank lines, comments): refused where the cap is passed (4.9 million blank lines took 8.5 s and 550 MB)`, () => {
      const head = 'version: 1\nsteps:\n  a:\n    run: echo\n';
      const r = compilePlan('/ws/p.braid.yaml', head + '\n'.repeat(MAX_TOKENS + 10));
      assert.deepEqual(
        r.diagnostics.map((d) => d.code),
        ['yaml-too-long'],
        show(r.diagnostics),
      );
      // The tokens before the blank lines: about 20 (keys, values, indents, markers and line breaks).
      const line = r.diagnostics[0]!.range.start.line;
      assert.ok(line > MAX_TOKENS - 30 && line < MAX_TOKENS, String(line));
      const under = compilePlan('/ws/p.braid.yaml', head + '#\n'.repeat(MAX_TOKENS / 4));
      assert.deepEqual(under.diagnostics, []);
    });
    it('50,000 unknown `needs`: the first ones located, every one counted', () => {
      const needs = Array.from({ length: 50_000 }, (_, i) => `n${i}`).join(', ');
      const lp = loadPlan('/ws/p.braid.yaml', `version: 1\nsteps:\n  a:\n    run: echo\n    needs: [${needs}]\n`);
      const out: Diagnostic[] = [];
      const report = reporter(lp, out);
      for (let i = 0; i < 50_000; i++) report(['steps', 'a', 'needs', i], `unknown step \`n${i}\``, 'unknown-need');
      assert.equal(out.length, MAX_BUILT_DIAGNOSTICS);
      assert.ok(report.full());
      const shown = tidy(out);
      assert.equal(shown[MAX_DIAGNOSTICS]!.message, `and ${50_000 - MAX_DIAGNOSTICS} more errors, not listed`);
      assert.deepEqual(at(shown[0]), [4, 12]);
    });
  });

  describe('the size of the file', () => {
    // Lines of 1,000 bytes: `n` of them make n KB.
    const big = (n: number) =>
      `version: 1\nsteps:\n  a:\n    run: echo\n${Array.from({ length: n }, () => `# ${'x'.repeat(997)}\n`).join('')}`;
    it(`text past ${MAX_PLAN_BYTES.toLocaleString('en-US')} bytes is one problem at the line where it passes the cap`, () => {
      const text = big(5_100);
      assert.ok(text.length > MAX_PLAN_BYTES);
      const r = compilePlan('/ws/p.braid.yaml', text);
      assert.deepEqual(
        r.diagnostics.map((d) => d.code),
        ['plan-size'],
        show(r.diagnostics),
      );
      const d = r.diagnostics[0]!;
      assert.match(d.message, /^the plan is 5\.\d MB; a plan file may be at most 5\.0 MB/);
      // The line holding byte 5,000,000.
      assert.equal(d.range.start.line, text.slice(0, MAX_PLAN_BYTES).split('\n').length - 1);
    });
    it('counted in UTF-8 bytes: 2 MB of characters that take three bytes each is past the cap', () => {
      const r = compilePlan(
        '/ws/p.braid.yaml',
        `version: 1\nname: "${'€'.repeat(2_000_000)}"\nsteps: {a: {run: echo}}\n`,
      );
      assert.deepEqual(
        r.diagnostics.map((d) => [d.code, d.range.start.line]),
        [['plan-size', 1]],
      );
    });
    it('a file past the cap is refused from its size, read only up to the cap', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'braid-size-'));
      try {
        const file = join(dir, 'p.braid.yaml');
        writeFileSync(file, big(6_000));
        const r = await compilePlanFile(file);
        assert.deepEqual(
          r.diagnostics.map((d) => d.code),
          ['plan-size'],
        );
        assert.ok(r.diagnostics[0]!.range.start.line > 0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
    it('a plan just under the cap is read and validated', () => {
      const text = big(4_900);
      assert.ok(text.length < MAX_PLAN_BYTES);
      assert.ok(compilePlan('/ws/p.braid.yaml', text).graph);
    });
  });

  it('an alias bomb is one problem at its first alias, not at 1:1', () => {
    const r = compile([
      'version: 1',
      'x0: &a0 [x, x, x, x, x, x, x, x, x, x]',
      'x1: &a1 [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0]',
      'x2: &a2 [*a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1]',
      'x3: [*a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2]',
      'steps:',
      '  a:',
      '    run: echo',
    ]);
    assert.deepEqual(
      r.diagnostics.map((d) => [at(d), d.code]),
      [[[2, 9], 'yaml-alias']],
      show(r.diagnostics),
    );
    assert.match(r.diagnostics[0]!.message, /aliases expand to too much data/);
  });

  it('a list or mapping as a key is a problem at that key, with no Node warning', () => {
    const warnings: string[] = [];
    const listen = (w: Error) => warnings.push(w.message);
    process.on('warning', listen);
    try {
      const r = compile(['version: 1', 'steps:', '  a:', '    run: echo', '    env:', '      ? [x]', '      : 1']);
      assert.deepEqual(
        r.diagnostics.map((d) => [at(d), d.code]),
        [[[5, 8], 'yaml-complex-key']],
        show(r.diagnostics),
      );
    } finally {
      process.off('warning', listen);
    }
    return new Promise<void>((done) =>
      setImmediate(() => {
        assert.deepEqual(warnings, []);
        done();
      }),
    );
  });

  it('control characters in a quoted key are shown escaped in the message', () => {
    const r = compile(['version: 1', 'steps:', '  a:', '    run: echo', '    "ne\\reds": [b]']);
    assert.equal(r.diagnostics.length, 1, show(r.diagnostics));
    assert.match(r.diagnostics[0]!.message, /unknown key `ne\\reds`/);
    assert.doesNotMatch(r.diagnostics[0]!.message, /\r/);
  });
});
