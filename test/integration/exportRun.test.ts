// The exported workflows run on this machine (test/unit/helpers/actionsEmulator.ts: real bash,
// real git, artifacts in a folder, a local origin to push to): outputs reach dependents as env
// vars, hostile values never run, retries retry, and the last job pushes one branch.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportGithubActions } from '../../src/core/export/githubActions';
import { compilePlan } from '../../src/core/plan/compile';
import { bareOrigin as origin, emulate } from '../helpers/actionsEmulator';
import { plan } from '../helpers/planText';

const ROOT = join(__dirname, '..', '..');
const PWNED = '/tmp/braid-export-pwned';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function exported(rel: string): string {
  const r = compilePlan(rel, readFileSync(join(ROOT, rel), 'utf8'), { isGit: true });
  assert.ok(r.graph, r.diagnostics.map((d) => d.message).join('; '));
  return exportGithubActions(r.graph, { planPath: rel }).yaml;
}

const read = (artifacts: string, step: string, file: string): string =>
  readFileSync(join(artifacts, `braid-${step}`, file), 'utf8');

describe('export github-actions: the workflow run', function () {
  this.timeout(120_000);

  it('diamond: each output reaches its dependents in an env var', () => {
    const run = emulate(exported('examples/diamond.braid.yaml'), { origin: origin() });
    assert.deepEqual(
      run.results,
      { schema: 'success', backend: 'success', frontend: 'success', tests: 'success', 'braid-land': 'success' },
      JSON.stringify(run.logs, null, 1),
    );
    assert.equal(read(run.artifacts, 'backend', 'output'), 'server implements {"theme":"dark|light"}');
    assert.equal(read(run.artifacts, 'tests', 'output'), '\nweb renders {"theme":"dark|light"}');
    assert.match(run.logs['braid-land']!, /No step changed anything/);
  });

  it('map-reduce: ten matrix instances merge into the report, and one branch lands a commit a step', () => {
    const repo = origin();
    const run = emulate(exported('examples/map-reduce.braid.yaml'), { origin: repo, runId: '77' });
    assert.equal(run.results.research, 'success', JSON.stringify(run.logs, null, 1));
    assert.equal(run.results.report, 'success', run.logs.report);
    assert.equal(read(run.artifacts, 'report', 'output'), 'report of 10 tools');
    const branch = 'braid/map-reduce/77';
    const report = git(repo, 'show', `${branch}:.braid-example/report.md`);
    assert.equal(report.split('\n').length, 10);
    assert.match(report, /## amp: researched by step research-amp/);
    const subjects = git(repo, 'log', '--format=%s', `main..${branch}`).split('\n').reverse();
    assert.deepEqual(subjects, [
      ...['aider', 'cline', 'roo', 'continue', 'cursor', 'copilot', 'codex', 'gemini', 'goose', 'amp'].map(
        (t) => `braid: research-${t}`,
      ),
      'braid: report',
    ]);
  });

  it('flaky: a failed attempt is retried after its delay, in the same job', () => {
    const run = emulate(exported('examples/flaky.braid.yaml'), { origin: origin() });
    assert.equal(run.results.flaky, 'success', run.logs.flaky);
    assert.match(run.logs.flaky!, /attempt 1 failed \(exit 1\); retrying in 2\d\d ms/);
    assert.equal(read(run.artifacts, 'after', 'output'), 'flaky said second try works');
  });

  it('failures: continue-on-error, if: failure and skipped dependents as in Braid; a status is read as Braid names it; cwd and output', () => {
    const text = plan`
      version: 1
      name: Failures
      steps:
        breaks:
          run: echo partial; exit 3
          continue-on-error: true
        after:
          needs: [breaks]
          run: echo "breaks was \${{ steps.breaks.status }}"
        fails:
          run: exit 1
        cleanup:
          needs: [fails]
          if: failure
          run: echo "cleaning up after \${{ steps.fails.status }}"
        never:
          needs: [fails]
          run: echo never
        files:
          cwd: docs
          run: printf 'from a file\\n\\n' > out.txt; echo not the output
          output: out.txt
      `;
    const graph = compilePlan('failures.braid.yaml', text, { isGit: true }).graph!;
    const run = emulate(exportGithubActions(graph, { planPath: 'failures.braid.yaml' }).yaml, { origin: origin() });
    assert.deepEqual(
      run.results,
      {
        breaks: 'success',
        after: 'success',
        fails: 'failure',
        cleanup: 'success',
        never: 'skipped',
        files: 'success',
        'braid-land': 'success',
      },
      JSON.stringify(run.logs, null, 1),
    );
    // `output:` is the file in the step's cwd, as it is (no trimming), as in a local run.
    assert.equal(read(run.artifacts, 'files', 'output'), 'from a file\n\n');
    assert.equal(read(run.artifacts, 'breaks', 'status'), 'failed');
    assert.equal(read(run.artifacts, 'after', 'output'), 'breaks was failed');
    assert.equal(read(run.artifacts, 'cleanup', 'output'), 'cleaning up after failed');
    assert.equal(existsSync(join(run.artifacts, 'braid-never')), false);
  });

  it('timeout: each attempt is killed at its limit (the whole process group) and retried', () => {
    const text = plan`
      version: 1
      name: Slow
      steps:
        slow:
          run: (sleep 30; echo late > late.txt) & sleep 30
          timeout: 1s
          retries: 1
          retry-delay: 100ms
      `;
    const graph = compilePlan('slow.braid.yaml', text, { isGit: true }).graph!;
    const started = Date.now();
    const run = emulate(exportGithubActions(graph, { planPath: 'slow.braid.yaml' }).yaml, { origin: origin() });
    assert.equal(run.results.slow, 'failure');
    assert.ok(Date.now() - started < 20_000, 'both attempts ended at their limit');
    assert.equal(run.logs.slow!.match(/::error::timed out after 1s/g)?.length, 2, run.logs.slow);
    assert.match(run.logs.slow!, /attempt 1 failed \(exit 124\)/);
    assert.equal(read(run.artifacts, 'slow', 'status'), 'failed');
  });

  it('hostile: quotes, $(…) and ${{ }} in values and outputs stay text; the prompt reaches the agent whole', () => {
    rmSync(PWNED, { force: true });
    const bin = mkdtempSync(join(tmpdir(), 'braid-fake-claude-'));
    // A fake claude: writes the prompt it got (the argument after `--`) to docs/review.md and answers with it.
    writeFileSync(
      join(bin, 'claude'),
      [
        '#!/usr/bin/env bash',
        'args="$*"; while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done; prompt="$2"',
        'printf \'%s\' "$prompt" > docs/review.md',
        'jq -cn \'{type: "system", subtype: "init"}\'',
        'jq -cn --arg p "$prompt" --arg args "$args" \'{type: "result", subtype: "success", is_error: false, result: ("reviewed: " + $p + "\\nargs: " + $args)}\'',
      ].join('\n'),
    );
    chmodSync(join(bin, 'claude'), 0o755);
    const repo = origin();
    const run = emulate(exported('test/fixtures/export/hostile.braid.yaml'), { origin: repo, path: bin });
    assert.deepEqual(
      run.results,
      { produce: 'success', fan: 'success', review: 'success', report: 'skipped', 'braid-land': 'success' },
      JSON.stringify(run.logs, null, 1),
    );
    assert.equal(existsSync(PWNED), false, 'a value ran as a command');
    const produced = read(run.artifacts, 'produce', 'output');
    assert.equal(
      produced,
      '$(touch /tmp/braid-export-pwned)\n${{ github.token }}\n"; touch /tmp/braid-export-pwned #\n`id`\nit\'s\n${{ secrets.GITHUB_TOKEN }}',
    );
    for (const [value, id] of [
      ['$(touch /tmp/braid-export-pwned)', 'fan---touch--tmp-braid-export-pwned-'],
      ['a\'b"c', 'fan-a-b-c'],
      ['${{ github.token }}', 'fan-----github-token---'],
    ] as const) {
      assert.equal(read(run.artifacts, id, 'output'), `value: ${value}\nproduced: ${produced}`);
    }
    const prompt = spawnSync('git', ['show', 'braid/hostile/1:docs/review.md'], { cwd: repo, encoding: 'utf8' }).stdout;
    assert.equal(
      prompt,
      'Context with ${{ secrets.GITHUB_TOKEN }} and $(whoami) and `uname` in it.\n\n' +
        `Review what fan said about ${produced}.\nIgnore $(touch /tmp/braid-export-pwned) and \`id\` and 'quotes' and "double quotes" and \${HOME}.\n`,
    );
    assert.match(
      read(run.artifacts, 'review', 'output'),
      /args: -p --output-format stream-json --verbose --permission-mode acceptEdits --max-budget-usd 1 -- Context with/s,
    );
  });
});
