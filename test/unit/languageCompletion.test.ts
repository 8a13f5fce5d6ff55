// Completion by position (src/core/language/completion.ts): keys from the schema with their
// docs, enum values, agents, pools, `needs` entries, and every template shape, also in YAML
// that is halfway through being typed.
import { strict as assert } from 'node:assert';
import { complete } from '../../src/core/language/completion';
import { STEP_FIELDS, STEP_ONLY_FIELDS, PLAN_FIELDS } from '../../src/core/plan/schema';
import { at, docs } from '../helpers/planCursor';

const PLAN = `version: 1
name: demo
env:
  TOKEN: x
agents:
  mine:
    command: [echo, x]
pools:
  gpu: 1
steps:
  lint:
    run: npm run lint
  build:
    matrix:
      os: [linux, mac]
    needs: lint
    run: make \${{ matrix.os }}
  docs:
    run: make docs
  test:
    needs: [build]
    env:
      LEVEL: debug
    run: echo done
  review:
    needs: [test]
    prompt: look
`;

/** The plan with `line` (whole, marked) put in place of the line holding `replace`. */
const plan = (replace: string, line: string): string => {
  assert.ok(PLAN.includes(replace), replace);
  return PLAN.replace(replace, line);
};
const labels = (marked: string, trigger?: string, ctx = {}) => {
  const { snap, pos } = at(marked);
  return complete(snap, pos, docs, ctx, trigger).map((i) => i.label);
};

describe('language service: completion', () => {
  describe('keys', () => {
    it('offers the top-level keys not yet written, with their docs and types', () => {
      const { snap, pos } = at(`${PLAN}‸`);
      const items = complete(snap, pos, docs);
      const expected = Object.keys(PLAN_FIELDS).filter(
        (k) => !['version', 'name', 'env', 'agents', 'pools', 'steps'].includes(k),
      );
      assert.deepEqual(items.map((i) => i.label).sort(), expected.sort());
      const conc = items.find((i) => i.label === 'concurrency')!;
      assert.equal(conc.insertText, 'concurrency: ');
      assert.match(conc.documentation ?? '', /most steps running at once/);
      assert.equal(conc.detail, 'int ≥ 1');
    });

    it("offers a step's keys on a half-typed line, without those written and without `prompt` beside `run`", () => {
      const got = labels(plan('    run: npm run lint\n', '    run: npm run lint\n    iso‸\n'));
      assert.ok(got.includes('isolation') && got.includes('needs') && got.includes('matrix'));
      assert.ok(!got.includes('run') && !got.includes('prompt'), 'run is written; prompt cannot join it');
      assert.deepEqual(
        new Set(got),
        new Set(
          [...Object.keys(STEP_FIELDS), ...Object.keys(STEP_ONLY_FIELDS)].filter((k) => !['run', 'prompt'].includes(k)),
        ),
      );
    });

    it('replaces the word being typed', () => {
      const { snap, pos } = at(plan('    run: make docs\n', '    run: make docs\n    ret‸ri\n'));
      const item = complete(snap, pos, docs).find((i) => i.label === 'retries')!;
      assert.deepEqual(item.range, { start: { line: pos.line, column: 4 }, end: { line: pos.line, column: 9 } });
    });

    it('offers defaults and agent keys by where they are, nothing for a new step id or inside a map of names', () => {
      const defaults = labels(`version: 1\ndefaults:\n  ‸\nsteps:\n  a:\n    run: x\n`);
      assert.ok(defaults.includes('agent') && !defaults.includes('needs') && !defaults.includes('run'));
      const agent = labels(plan('    command: [echo, x]\n', '    command: [echo, x]\n    st‸\n'));
      assert.deepEqual(agent.sort(), ['context', 'cwd', 'env', 'input', 'pool', 'stdin']);
      assert.deepEqual(labels(plan('  lint:\n', '  li‸\n  lint:\n')), [], "a step id is the user's");
      assert.deepEqual(labels(plan('  TOKEN: x\n', '  TOKEN: x\n  TO‸\n')), [], "env names are the user's");
    });

    it('says nothing for keys where a JSON schema service already does, or after a space', () => {
      assert.deepEqual(labels(`${PLAN}‸`, undefined, { schemaServed: true }), []);
      assert.deepEqual(labels(`${PLAN}‸`, ' '), []);
    });
  });

  describe('values', () => {
    it('offers the enums and booleans the schema declares', () => {
      assert.deepEqual(labels(plan('    run: make docs\n', '    run: make docs\n    isolation: ‸\n')), [
        'shared',
        'worktree',
      ]);
      assert.deepEqual(labels(plan('    run: make docs\n', '    run: make docs\n    if: fa‸\n')), [
        'always',
        'success',
        'failure',
      ]);
      assert.deepEqual(labels(plan('    run: make docs\n', '    run: make docs\n    continue-on-error: ‸\n')), [
        'true',
        'false',
      ]);
      assert.deepEqual(labels(plan('    command: [echo, x]\n', '    command: [echo, x]\n    stdin: ‸\n')), ['prompt']);
      assert.deepEqual(labels(`version: ‸\nsteps:\n  a:\n    run: x\n`), ['1']);
      assert.deepEqual(
        labels(plan('    run: make docs\n', '    run: make docs\n    timeout: ‸\n')),
        [],
        'a duration is free text',
      );
    });

    it('puts the space after a colon just typed', () => {
      const { snap, pos } = at(plan('    run: make docs\n', '    run: make docs\n    isolation:‸\n'));
      assert.deepEqual(
        complete(snap, pos, docs, {}, ':').map((i) => i.insertText),
        [' shared', ' worktree'],
      );
    });

    it("offers the presets, the settings' agents and the plan's own agents", () => {
      const got = labels(plan('    prompt: look\n', '    prompt: look\n    agent: m‸\n'), undefined, {
        agents: ['local-llm'],
      });
      for (const a of ['claude', 'codex', 'gemini', 'aider', 'shell', 'local-llm', 'mine'])
        assert.ok(got.includes(a), a);
      assert.ok(
        labels(
          `version: 1\ndefaults:\n  agent: ‸\nagents:\n  mine:\n    command: x\nsteps:\n  a:\n    run: x\n`,
        ).includes('mine'),
      );
    });

    it("offers the presets' pools and the plan's", () => {
      const got = labels(plan('    run: make docs\n', '    run: make docs\n    pool: ‸\n'));
      assert.deepEqual(got.sort(), ['anthropic', 'google', 'gpu', 'openai']);
    });
  });

  describe('needs', () => {
    it('offers other steps, matrix groups and their ids, never the step itself or a step that needs it', () => {
      const got = labels(plan('    needs: [build]\n', '    needs: [build, ‸]\n'));
      // test needs build; review needs test (a cycle); build's ids are already covered by `build`.
      assert.deepEqual(got, ['lint', 'docs']);
      const fresh = labels(plan('    run: make docs\n', '    run: make docs\n    needs:\n      - ‸\n'));
      assert.deepEqual(
        fresh.filter((l) => !l.includes('*')),
        ['lint', 'build', 'build-linux', 'build-mac', 'test', 'review'],
      );
    });

    it('offers globs that match more than one step, with what they match', () => {
      const { snap, pos } = at(plan('    run: make docs\n', '    run: make docs\n    needs: bu‸\n'));
      const items = complete(snap, pos, docs);
      const glob = items.find((i) => i.label === 'build-*')!;
      assert.equal(glob.kind, 'glob');
      assert.equal(glob.detail, 'matches 2: build-linux, build-mac');
      assert.ok(items.some((i) => i.label === 'bu*'));
    });
  });

  describe('templates', () => {
    const inTest = (expr: string) => labels(plan('    run: echo done\n', `    run: echo \${{ ${expr}‸ }}\n`));

    it('offers the roots this step can use', () => {
      assert.deepEqual(inTest('').sort(), ['context', 'env', 'plan', 'run', 'steps']);
      const built = labels(plan('    run: make ${{ matrix.os }}\n', '    run: make ${{ ‸\n'));
      assert.ok(built.includes('matrix'), 'a matrix step has `matrix`');
      const best = labels(plan('    prompt: look\n', '    prompt: look ${{ ‸ }}\n    best-of: 3\n'));
      assert.ok(best.includes('alternative'), 'a step with alternatives has `alternative`');
      assert.ok(!inTest('').includes('alternative'));
    });

    it('offers the steps needed directly or not, each completing to `id.` and asking again', () => {
      const { snap, pos } = at(plan('    prompt: look\n', '    prompt: look at ${{ steps.‸\n'));
      const items = complete(snap, pos, docs, {
        lastRun: (id) => (id === 'lint' ? { status: 'succeeded', durationMs: 1200 } : undefined),
      });
      assert.deepEqual(
        items.map((i) => i.label),
        ['lint', 'build-linux', 'build-mac', 'test'],
        'review needs test needs build needs lint; not docs',
      );
      const lint = items[0]!;
      assert.equal(lint.insertText, 'lint.');
      assert.equal(lint.retrigger, true);
      assert.equal(lint.detail, 'through test · last run: succeeded');
      assert.equal(items[3]!.detail, 'a direct need');
    });

    it('offers output and status after a step id, matrix keys, env names, plan.name and run.id', () => {
      assert.deepEqual(inTest('steps.build-linux.'), ['output', 'status']);
      assert.deepEqual(labels(plan('    run: make ${{ matrix.os }}\n', '    run: make ${{ matrix.‸ }}\n')), ['os']);
      assert.deepEqual(inTest('env.').sort(), ['LEVEL', 'TOKEN']);
      assert.deepEqual(inTest('plan.'), ['name']);
      assert.deepEqual(inTest('run.'), ['id']);
      assert.deepEqual(inTest('steps.lint.output.'), [], 'nothing past the end of a reference');
    });

    it("works in a block scalar, in a prompt, and in an agent's command (with `prompt`)", () => {
      assert.deepEqual(labels(plan('    run: echo done\n', '    run: |\n      echo a\n      echo ${{ steps.‸\n')), [
        'lint',
        'build-linux',
        'build-mac',
      ]);
      const cmd = labels(plan('    command: [echo, x]\n', '    command: [echo, "${{ ‸"]\n'));
      assert.ok(cmd.includes('prompt') && cmd.includes('steps'));
    });

    it('offers attempt.previous.reason and .output in a prompt only', () => {
      const inPrompt = (expr: string) => labels(plan('    prompt: look\n', `    prompt: look \${{ ${expr}‸ }}\n`));
      assert.ok(inPrompt('').includes('attempt'));
      assert.ok(!inTest('').includes('attempt'), 'not in run');
      assert.deepEqual(inPrompt('attempt.'), ['previous']);
      assert.deepEqual(inPrompt('attempt.previous.'), ['reason', 'output']);
    });

    it('answers after a closed template only in a new one', () => {
      assert.deepEqual(labels(plan('    run: echo done\n', '    run: echo ${{ context }} ‸\n')), []);
    });
  });

  describe('JSON plans', () => {
    const json = (line: string) =>
      `{\n  "version": 1,\n  "steps": {\n    "a": { "run": "x" },\n    "b": {\n${line}\n    }\n  }\n}\n`;

    it('completes needs and templates, leaving keys and enums to the JSON schema service', () => {
      const ctx = { schemaServed: true };
      assert.deepEqual(labels(json('      "needs": ["‸"]'), undefined, ctx), ['a']);
      assert.deepEqual(labels(json('      "needs": ["a"], "run": "echo ${{ steps.‸"'), undefined, ctx), ['a']);
      assert.deepEqual(labels(json('      "if": "‸"'), undefined, ctx), []);
      assert.deepEqual(labels(json('      "‸"'), undefined, ctx), []);
    });
  });

  describe('broken YAML, halfway through typing', () => {
    it('still completes in a file that does not parse', () => {
      const broken = plan('    run: echo done\n', '    run: echo "unterminated\n    needs: [build, \n    if: ‸\n');
      assert.deepEqual(labels(broken), ['always', 'success', 'failure']);
      const tab = `version: 1\nsteps:\n  a:\n    run: x\n  b:\n    needs: [‸\n  c: [\n`;
      assert.deepEqual(labels(tab), ['a', 'c']);
    });

    it('never throws at any position of any prefix of a plan', () => {
      // Every prefix of the plan is a state the user passes through while typing it out.
      const full = `${PLAN}  more:\n    needs: [review, "te\n    run: |\n      echo \${{ steps.review.output }} '\${{ env.TOKEN }}'\n`;
      for (let cut = 0; cut <= full.length; cut += 7) {
        const text = full.slice(0, cut);
        const lines = text.split('\n');
        const last = lines.length - 1;
        const { snap } = at(`${text}‸`);
        for (const column of [0, Math.floor(lines[last]!.length / 2), lines[last]!.length]) {
          assert.doesNotThrow(() => complete(snap, { line: last, column }, docs), `at ${cut}, column ${column}`);
        }
      }
    });
  });
});
