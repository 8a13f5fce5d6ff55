import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TemplateRef } from '../../src/core/templates';
import {
  classifyRef,
  envNameFor,
  parseTemplates,
  renderTemplate,
  shellTemplate,
  singleQuotedRefs,
} from '../../src/core/templates';

const exprs = (refs: readonly TemplateRef[]): string[] => refs.map((r) => r.expr);

describe('templates: parseTemplates', () => {
  it('finds every shape, with offsets of the whole ${{ … }} and optional inner spaces', () => {
    const text = 'a ${{ context }} b ${{matrix.tool}} ${{  steps.schema.output  }}';
    const { refs, errors } = parseTemplates(text);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      refs.map((r) => [r.expr, r.path, text.slice(r.start, r.end)]),
      [
        ['context', ['context'], '${{ context }}'],
        ['matrix.tool', ['matrix', 'tool'], '${{matrix.tool}}'],
        ['steps.schema.output', ['steps', 'schema', 'output'], '${{  steps.schema.output  }}'],
      ],
    );
  });

  it('reports an unterminated template and keeps parsing after a nested opener', () => {
    const text = 'x ${{ env.A y ${{ run.id }} z';
    const { refs, errors } = parseTemplates(text);
    assert.deepEqual(exprs(refs), ['run.id']);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? '', /unterminated/);
    assert.deepEqual([errors[0]?.start, errors[0]?.end], [2, text.indexOf('${{ run.id')]);
  });

  it('reports a template left open at the end of the text', () => {
    const { refs, errors } = parseTemplates('ok ${{ plan.name }} then ${{ oops');
    assert.deepEqual(exprs(refs), ['plan.name']);
    assert.deepEqual(
      errors.map((e) => [e.start, e.end]),
      [[25, 33]],
    );
  });

  it('reports empty and malformed expressions with their ranges', () => {
    const text = '${{ }} ${{ steps..output }} ${{ a b }} ${{ env.X | upper }} ${{ "x" }} ${{ .a }}';
    const { refs, errors } = parseTemplates(text);
    assert.deepEqual(refs, []);
    assert.equal(errors.length, 6);
    assert.match(errors[0]?.message ?? '', /empty/);
    for (const e of errors.slice(1)) assert.match(e.message, /malformed/);
    assert.equal(text.slice(errors[2]?.start, errors[2]?.end), '${{ a b }}');
  });

  it('ignores a lone $ or {{ that is not ${{', () => {
    assert.deepEqual(parseTemplates('echo ${HOME} {{ x }} $ {{').refs, []);
    assert.deepEqual(parseTemplates('echo ${HOME} {{ x }} $ {{').errors, []);
  });
});

describe('templates: classifyRef', () => {
  const cases: [string, ReturnType<typeof classifyRef>][] = [
    ['context', { kind: 'context' }],
    ['prompt', { kind: 'prompt' }],
    ['matrix.tool', { kind: 'matrix', key: 'tool' }],
    ['env.API_KEY', { kind: 'env', key: 'API_KEY' }],
    ['steps.schema.output', { kind: 'step-output', key: 'schema' }],
    ['steps.build-web.status', { kind: 'step-status', key: 'build-web' }],
    ['steps.py-3.12.output', { kind: 'step-output', key: 'py-3.12' }],
    ['plan.name', { kind: 'plan-name' }],
    ['run.id', { kind: 'run-id' }],
    ['steps.schema', undefined],
    ['steps.schema.result', undefined],
    ['matrix', undefined],
    ['matrix.a.b', undefined],
    ['plan.file', undefined],
    ['run', undefined],
    ['context.x', undefined],
    ['secrets.TOKEN', undefined],
  ];
  for (const [expr, want] of cases) {
    it(`${expr} → ${want ? want.kind : 'unknown'}`, () => assert.deepEqual(classifyRef(expr.split('.')), want));
  }
});

describe('templates: renderTemplate', () => {
  it('substitutes values verbatim, leaving errors and other text untouched', () => {
    const values: Record<string, string> = { 'matrix.tool': 'ai"der $(id) `x`', 'run.id': 'r1' };
    const out = renderTemplate('--tool=${{ matrix.tool }} ${{run.id}} ${{ bad', (r) => values[r.expr] ?? '?');
    assert.equal(out, '--tool=ai"der $(id) `x` r1 ${{ bad');
  });

  it('never re-expands a value that itself looks like a template', () => {
    const seen: string[] = [];
    const out = renderTemplate('${{ steps.a.output }}!', (r) => {
      seen.push(r.expr);
      return '${{ run.id }}';
    });
    assert.equal(out, '${{ run.id }}!');
    assert.deepEqual(seen, ['steps.a.output']);
  });
});

describe('templates: envNameFor', () => {
  it('uses the documented names, with keys and ids upper-cased and sanitised', () => {
    assert.equal(envNameFor(['context']), 'BRAID_CONTEXT');
    assert.equal(envNameFor(['matrix', 'tool-name']), 'BRAID_MATRIX_TOOL_NAME');
    assert.equal(envNameFor(['steps', 'build-web', 'output']), 'BRAID_STEPS_BUILD_WEB_OUTPUT');
    assert.equal(envNameFor(['steps', 'Research', 'status']), 'BRAID_STEPS_RESEARCH_STATUS');
    assert.equal(envNameFor(['steps', 'py-3', '12', 'output']), 'BRAID_STEPS_PY_3_12_OUTPUT');
    assert.equal(envNameFor(['plan', 'name']), 'BRAID_PLAN_NAME');
    assert.equal(envNameFor(['run', 'id']), 'BRAID_RUN_ID');
    assert.equal(envNameFor(['env', 'HOME']), 'HOME');
    assert.equal(envNameFor(['env', 'my-var']), 'BRAID_ENV_MY_VAR');
  });
});

describe('templates: shellTemplate', () => {
  it('turns refs into ${NAME} references and lists each variable once', () => {
    const { script, vars } = shellTemplate(
      'echo "${{ steps.a.output }}" ${{matrix.tool}} "${{ steps.a.output }}" $HOME',
    );
    assert.equal(script, 'echo "${BRAID_STEPS_A_OUTPUT}" ${BRAID_MATRIX_TOOL} "${BRAID_STEPS_A_OUTPUT}" $HOME');
    assert.deepEqual(
      vars.map((v) => [v.name, v.ref.expr]),
      [
        ['BRAID_STEPS_A_OUTPUT', 'steps.a.output'],
        ['BRAID_MATRIX_TOOL', 'matrix.tool'],
      ],
    );
  });

  it('maps env.X to ${X} without a variable to set, unless the shell cannot name X', () => {
    const { script, vars } = shellTemplate('echo ${{ env.TOKEN }} ${{ env.my-var }}');
    assert.equal(script, 'echo ${TOKEN} ${BRAID_ENV_MY_VAR}');
    assert.deepEqual(
      vars.map((v) => [v.name, v.ref.expr]),
      [['BRAID_ENV_MY_VAR', 'env.my-var']],
    );
  });

  it('gives colliding names distinct variables rather than one value for both', () => {
    const { script, vars } = shellTemplate('${{ steps.a-b.output }} ${{ steps.a_b.output }}');
    assert.equal(script, '${BRAID_STEPS_A_B_OUTPUT} ${BRAID_STEPS_A_B_OUTPUT_2}');
    assert.deepEqual(
      vars.map((v) => v.ref.expr),
      ['steps.a-b.output', 'steps.a_b.output'],
    );
  });

  describe('real /bin/sh with hostile values', function () {
    let dir = '';
    let marker = '';
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'braid-tpl-'));
      marker = join(dir, 'injected');
      // Shadow the commands a broken expansion would run, so an injection is detected, not executed.
      for (const cmd of ['rm', 'id', 'touch']) {
        const p = join(dir, cmd);
        writeFileSync(p, `#!/bin/sh\necho "$0 $*" >> '${marker}'\n`);
        chmodSync(p, 0o755);
      }
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    const hostile = [
      '"; rm -rf / #',
      '$(id)',
      '`id`',
      "'; touch pwned; '",
      'line one\nline two\n$(rm -rf ~)\n',
      '${HOME} $HOME \\$(id) \\',
      '${{ run.id }}',
    ];
    const scripts = [
      'printf %s "${{ steps.a.output }}"',
      'printf \'%s\' "$(printf \'%s\' "${{ steps.a.output }}")"x',
      'cat <<EOF\n${{ steps.a.output }}\nEOF',
    ];
    const expected = (value: string, script: string): string =>
      script.includes('<<EOF') ? `${value}\n` : script.endsWith('x') ? `${value.replace(/\n+$/, '')}x` : value;

    for (const source of scripts) {
      for (const value of hostile) {
        it(`${JSON.stringify(source.split('\n')[0])} prints ${JSON.stringify(value)} literally`, () => {
          const { script, vars } = shellTemplate(source);
          assert.equal(vars.length, 1);
          const env = { PATH: `${dir}:${process.env.PATH ?? ''}`, HOME: dir, [vars[0]?.name ?? '']: value };
          const r = spawnSync('/bin/sh', ['-c', script], { cwd: dir, env, encoding: 'utf8' });
          assert.equal(r.status, 0, r.stderr);
          assert.equal(r.stdout, expected(value, source));
          assert.equal(existsSync(marker), false, 'a hostile value ran a command');
          assert.equal(existsSync(join(dir, 'pwned')), false);
        });
      }
    }

    it('the same script expanded naively would have run the command (the test can fail)', () => {
      const naive = renderTemplate('printf %s "${{ steps.a.output }}"', () => '$(id)');
      const r = spawnSync('/bin/sh', ['-c', naive], {
        cwd: dir,
        env: { PATH: `${dir}:${process.env.PATH ?? ''}` },
        encoding: 'utf8',
      });
      assert.equal(r.status, 0);
      assert.equal(existsSync(marker), true);
      rmSync(marker);
    });
  });
});

describe('templates: singleQuotedRefs', () => {
  const quoted = (shell: string): string[] => exprs(singleQuotedRefs(shell));

  it('finds refs inside single quotes only', () => {
    assert.deepEqual(quoted('echo \'${{ steps.a.output }}\' "${{ run.id }}" ${{ plan.name }}'), ['steps.a.output']);
  });

  it("does not treat a ' inside double quotes, after a backslash or in a comment as a quote", () => {
    assert.deepEqual(quoted(`echo "it's \${{ run.id }}"`), []);
    assert.deepEqual(quoted(`echo it\\'s \${{ run.id }}`), []);
    assert.deepEqual(quoted(`echo hi # it's\necho \${{ run.id }}`), []);
    assert.deepEqual(quoted(`echo "a\\"'" \${{ run.id }}`), []);
  });

  it('sees single quotes inside $( … ) and backticks within double quotes', () => {
    assert.deepEqual(quoted(`echo "$(echo '\${{ run.id }}')"`), ['run.id']);
    assert.deepEqual(quoted(`echo "\`echo '\${{ run.id }}'\`"`), ['run.id']);
    assert.deepEqual(quoted(`echo "$(echo "'") \${{ run.id }}"`), []);
  });

  it("handles $'…' with escaped quotes, and adjacent quoted words", () => {
    assert.deepEqual(quoted(`echo $'a\\'\${{ run.id }}'`), ['run.id']);
    assert.deepEqual(quoted(`echo 'a'\${{ run.id }}'b'`), []);
    assert.deepEqual(quoted(`echo 'a''\${{ run.id }}'`), ['run.id']);
  });

  it('reports refs in quoted-delimiter heredocs, not in plain ones', () => {
    assert.deepEqual(quoted(`cat <<'EOF'\n\${{ run.id }}\nEOF\necho \${{ plan.name }}`), ['run.id']);
    assert.deepEqual(quoted(`cat <<EOF\nit's \${{ run.id }}\nEOF\necho \${{ plan.name }}`), []);
    assert.deepEqual(quoted(`cat <<-"END" | sort\n\t\${{ run.id }}\n\tEND\necho '\${{ plan.name }}'`), [
      'run.id',
      'plan.name',
    ]);
  });

  it('agrees with the real shell on which refs expand', () => {
    const sources = [
      "printf '[%s]' '${{ matrix.k }}' \"${{ matrix.k }}\"",
      "printf '[%s]' \"it's\" ${{ matrix.k }} 'x'${{ matrix.k }}",
      "printf '[%s]' \"$(printf %s '${{ matrix.k }}')\"",
      "printf '[%s]' '${{ matrix.k }}'\"'\"${{ matrix.k }}",
      "cat <<'E'\n${{ matrix.k }}\nE\ncat <<E\n'${{ matrix.k }}'\nE",
    ];
    // $'…' is left out: dash (Debian's /bin/sh) predates it; bash and POSIX 2024 quote it as assumed.
    for (const source of sources) {
      const { script } = shellTemplate(source);
      const r = spawnSync('/bin/sh', ['-c', script], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BRAID_MATRIX_K: 'VALUE' },
        encoding: 'utf8',
      });
      const literal = (r.stdout.match(/\$\{BRAID_MATRIX_K\}/g) ?? []).length;
      assert.equal(singleQuotedRefs(source).length, literal, `${source} → ${r.stdout}`);
    }
  });
});
