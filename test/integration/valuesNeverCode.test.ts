// Issue 32: a value (a need's output, a matrix value, the context) never becomes code, whatever
// the agent's command is, by a rule and not by recognising shells: an agent that does not say its
// command takes the prompt as text (`input: text`) gets every template as a `${BRAID_…}` reference.
// Each vector runs through `braid run` (real processes); its control step proves it runs its prompt.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { filesNamed, VECTORS, vectorPlan } from '../helpers/injectionVectors';
import { PAYLOADS, payloadOutputs, payloadPlan, spliced } from '../helpers/valuePayloads';
import { REFUSED, SAFE_OUTPUTS, safeOptionPlan, unsafeOptionPlan } from '../helpers/optionVectors';
import { plan } from '../helpers/planText';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');

function run(plan: string): { dir: string; status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'braid-vectors-'));
  writeFileSync(join(dir, 'p.braid.yaml'), plan);
  const r = spawnSync(process.execPath, [MAIN, 'run', 'p.braid.yaml', '--json'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { dir, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const outputs = (stdout: string): Map<string, string> => {
  const out = new Map<string, string>();
  for (const line of stdout.trim().split('\n')) {
    const e = JSON.parse(line) as { type: string; id?: string; text?: string };
    if (e.type === 'output' && e.id) out.set(e.id, (out.get(e.id) ?? '') + (e.text ?? ''));
  }
  return out;
};

describe('values never become code (issue 32)', function () {
  this.timeout(120_000);
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });

  it(`${VECTORS.length} commands that run their prompt, each behind a wrapper, option or interpreter: outputs and matrix values create nothing`, () => {
    const r = run(vectorPlan());
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(filesNamed(r.dir, 'pwned'), [], 'a value ran as code');
    // Each vector runs its prompt as code: the same code written in the plan ran.
    assert.deepEqual(filesNamed(r.dir, 'ctl-'), VECTORS.map((v) => `ctl-${v.id}`).sort());
    // Where a shell reads it, the value arrives whole, as data.
    const out = outputs(r.stdout);
    assert.equal(out.get('val-shell'), '$(touch pwned-shell-out)\n');
    assert.equal(out.get('val-timeout'), '$(touch pwned-timeout-out)\n');
    assert.equal(out.get('val-xargs'), '$(touch pwned-xargs-out)\n');
  });

  it(`${PAYLOADS.length} payloads ($(…), backticks, quotes, newlines, \${IFS}, ;, |, &&, globs, a leading -) through run, setup, check, env, agent: shell, a wrapper, env -S and a text agent, as outputs and matrix values: nothing created, each arrives whole`, () => {
    // The control: spliced into a script as text, each payload but the glob and the dash is code.
    const control = mkdtempSync(join(tmpdir(), 'braid-payloads-'));
    for (const [, value] of PAYLOADS)
      for (const script of spliced(value)) spawnSync('sh', ['-c', script], { cwd: control });
    const live = PAYLOADS.filter(([key]) => key !== 'glob' && key !== 'dash').map(([key]) => `pwned-${key}`);
    assert.deepEqual(filesNamed(control, 'pwned'), live.sort());
    const r = run(payloadPlan());
    assert.equal(r.status, 0, r.stderr + r.stdout.slice(-3000));
    assert.deepEqual(filesNamed(r.dir, 'pwned'), [], 'a value ran as code');
    const out = outputs(r.stdout);
    for (const [id, want] of payloadOutputs()) assert.equal(out.get(id), want, id);
    // The matrix instances print every value whole, in some order.
    const printed = [...out].filter(([id]) => id.startsWith('mx')).map(([, text]) => text);
    for (const [, value] of PAYLOADS) assert.equal(printed.filter((t) => t === `${value}\n`).length, 2, value);
  });

  it('input: text gives the values to a command that reads them as text; BRAID_PROMPT holds the prompt for a shell to pass on', () => {
    const payload = '$(touch pwned-text) `touch pwned-text` "; touch pwned-text #';
    const r = run(
      plan`
        version: 1
        context: "Context $(touch pwned-context)"
        agents:
          say: { command: [printf, "%s\\n", "\${{ prompt }}"], input: text }
          viaenv: { command: [bash, -c, 'printf "%s\\n" "$BRAID_PROMPT"'], input: code }
          code: { command: [sh, -c, "\${{ prompt }}"], input: code }
        steps:
          src: { run: "printf '%s' '${payload.replace(/'/g, "'\\''").replace(/"/g, '\\"')}'" }
          a: { needs: [src], agent: say, prompt: "got \${{ steps.src.output }}" }
          b: { needs: [src], agent: viaenv, prompt: "got \${{ steps.src.output }}" }
          c: { needs: [src], agent: code, prompt: "echo \${{ context }}" }
        `,
    );
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(filesNamed(r.dir, 'pwned'), []);
    const out = outputs(r.stdout);
    assert.equal(out.get('a'), `Context $(touch pwned-context)\n\ngot ${payload}\n`);
    assert.equal(out.get('b'), `Context $(touch pwned-context)\n\ngot ${payload}\n`);
    assert.equal(out.get('c'), 'Context $(touch pwned-context)\n');
  });

  it('a text agent with a template inside a longer argument is refused, located, with what to write instead', () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-vectors-'));
    writeFileSync(
      join(dir, 'p.braid.yaml'),
      plan`
        version: 1
        agents:
          py:
            command: [python3, -c, "print('\${{ prompt }}')"]
            input: text
        steps:
          a: { agent: py, prompt: hi }
        `,
    );
    const r = spawnSync(process.execPath, [MAIN, 'validate', 'p.braid.yaml'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 1);
    const line = readFileSync(join(dir, 'p.braid.yaml'), 'utf8').split('\n')[3]!;
    // Located at the template itself, 1-based columns.
    const column = line.indexOf('${{ prompt }}') + 1;
    assert.equal(
      r.stdout + r.stderr,
      `p.braid.yaml:4:${column}: error: agents.py.command[2]: \${{ prompt }} inside a longer argument: its value would become part of text this command may run as code; pass it as a whole argument ("\${{ prompt }}"), or let a shell read it from the environment, where the prompt always is: [bash, -c, 'mytool "$BRAID_PROMPT"']\n`,
    );
  });

  it('a text agent: a value that starts with - reaches its CLI only where options are no longer read (after --, as --name=…, inside a prompt that starts with text)', () => {
    const r = run(safeOptionPlan());
    assert.equal(r.status, 0, r.stderr + r.stdout.slice(-3000));
    assert.deepEqual(filesNamed(r.dir, 'pwned'), [], 'a value was read as an option');
    // The tool runs --exec when it is an option: written in the plan, it did.
    assert.deepEqual(filesNamed(r.dir, 'ctl-'), ['ctl-opt']);
    const out = outputs(r.stdout);
    // A matrix instance's id carries its value: found by the step's name.
    const got = (id: string) => out.get(id) ?? [...out].find(([k]) => k.startsWith(`${id}-`))?.[1];
    for (const [id, want] of SAFE_OUTPUTS) assert.equal(got(id), want, id);
  });

  it('a text agent given a value where its CLI still reads options is refused before anything runs, located, saying what to write', () => {
    const r = run(unsafeOptionPlan());
    assert.deepEqual(filesNamed(r.dir, 'pwned'), [], 'a value was read as an option');
    // An invalid plan: refused before any step starts (exit 2).
    assert.equal(r.status, 2, r.stdout + r.stderr);
    const text = r.stdout + r.stderr;
    for (const [path, code] of REFUSED)
      assert.match(text, new RegExp(`error: ${path.replace(/[[\].]/g, '\\$&')}: `), code);
    assert.match(text, /put "--" before "\$\{\{ prompt \}\}" in lead's command/);
    assert.match(text, /write "--" before it \(\[mytool, --, "\$\{\{ matrix\.p \}\}"\]\)/);
  });

  describe("BRAID_PROMPT past one string's limit", function () {
    this.timeout(60_000);

    it('a 192 KiB prompt on stdin: the text in a file named by BRAID_PROMPT_FILE, so the agent still starts', () => {
      const dir = mkdtempSync(join(tmpdir(), 'braid-vectors-'));
      writeFileSync(
        join(dir, 'p.braid.yaml'),
        plan`
          version: 1
          agents:
            count: { command: [sh, -c, 'wc -c; test -z "$BRAID_PROMPT" && wc -c < "$BRAID_PROMPT_FILE"'], stdin: prompt, input: text }
          steps:
            big: { run: "head -c ${64 * 1024} /dev/zero | tr '\\\\0' x" }
            a: { needs: [big], agent: count, prompt: "\${{ steps.big.output }}\${{ steps.big.output }}\${{ steps.big.output }}" }
          `,
      );
      const r = spawnSync(process.execPath, [MAIN, 'run', 'p.braid.yaml', '--json'], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr + r.stdout.slice(-2000));
      assert.deepEqual(outputs(r.stdout).get('a')!.trim().split(/\s+/), [String(192 * 1024), String(192 * 1024)]);
    });
  });
});
