// The built CLI on what #22 found: fuzz-corpus plans (the known attacks among them) through
// `node out/cli.js validate` exit 0 or 1 with located lines, never 70 nor a Node warning; a
// `.braid` that is a file is one clear line and exit 2.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FUZZ_COUNT, FUZZ_SEED, fuzzPlans, validateOutputProblems } from '../helpers/planFuzz';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');
const braid = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [MAIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 1 << 26,
  });

describe('braid CLI on hostile input', function () {
  this.timeout(120_000);
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });

  it("validate: the corpus's attacks and a sample of its plans exit 0/1, every line located, no Node warning", () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-cli-fuzz-'));
    const plans = fuzzPlans(FUZZ_SEED, FUZZ_COUNT).filter(
      (p, i) => (p.name.startsWith('attack-') && i < 250) || i % 200 === 0,
    );
    assert.ok(plans.length >= 15);
    const failures: string[] = [];
    for (const p of plans) {
      const file = join(dir, p.name);
      writeFileSync(file, p.text);
      const r = braid(['validate', file], dir);
      for (const problem of validateOutputProblems(file, p.text, r.status ?? -1, r.stdout, r.stderr))
        failures.push(`${p.name}: ${problem}`);
      if (/internal error|Warning:|\(node:\d+\)/.test(r.stderr)) failures.push(`${p.name}: ${r.stderr.slice(0, 300)}`);
    }
    assert.deepEqual(failures, []);
  });

  it('a .braid that is a file: one line naming it, exit 2, for run, status, retry, logs and clean', () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-cli-dotbraid-'));
    writeFileSync(join(dir, 'p.braid.yaml'), 'version: 1\nsteps:\n  a:\n    run: echo hi\n');
    writeFileSync(join(dir, '.braid'), 'not a folder\n');
    for (const args of [['run', 'p.braid.yaml'], ['status'], ['retry', 'r1'], ['logs', 'r1', 'a'], ['clean', 'r1']]) {
      const r = braid(args, dir);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(
        r.stderr,
        `braid: ${join(dir, '.braid')} is a file, not a folder: Braid keeps its runs and locks there; move it away\n`,
      );
    }
  });
});
