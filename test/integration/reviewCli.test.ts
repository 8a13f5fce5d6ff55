// The review commands as users run them: the bundled CLI in real processes, a run going on in
// one and `braid diff | approve | reject | revert | merge` from another, with their exit codes.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { braid, buildCli, MAIN, runInBackground as inBackground } from '../helpers/cliRun';
import { type TestRepo } from '../helpers/gitRepo';
import { REVIEWED, throwaway } from '../helpers/throwaway';
import { plan } from '../helpers/planText';

const { repo, planFile, cleanup } = throwaway('braid-review-cli-');
const runInBackground = (r: TestRepo, plan: string) => inBackground(r, plan, cleanup);

describe('braid diff | approve | reject | revert | merge', function () {
  this.timeout(60_000);
  before(() => {
    assert.ok(buildCli());
  });

  it('approve from another terminal: the running run lands the change and goes on; diff shows it before and after', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const run = runInBackground(r, planFile(REVIEWED));
    const ev = await run.when((e) => e.type === 'step' && e.id === 'a' && e.status === 'review');
    const runId = String(ev.run);
    const diff = braid(['diff', runId, 'a'], r.dir);
    assert.equal(diff.status, 0, diff.stderr);
    assert.match(diff.stdout, /^── a \((review|running)\) ──\n/);
    assert.match(diff.stdout, /\+\+\+ b\/a\.txt\n@@ -0,0 \+1 @@\n\+from a\n/);
    const stat = braid(['diff', runId, '--stat'], r.dir);
    assert.match(stat.stdout, /a\.txt \| 1 \+\n 1 file changed, 1 insertion/);
    assert.equal(existsSync(join(r.dir, 'a.txt')), false);

    const approve = braid(['approve', runId, 'a'], r.dir);
    assert.equal(approve.status, 0, approve.stderr);
    assert.match(approve.stderr, /^a: landed\n$/);
    assert.equal(await run.exited, 0);
    assert.equal(r.read('b.txt'), 'from a\n');
    assert.equal(braid(['diff', runId, 'a'], r.dir).status, 0, 'a landed change still shows');
    // Approving again: decided already (who, when), exit 1, nothing changed.
    const again = braid(['approve', runId, 'a'], r.dir);
    assert.equal(again.status, 1);
    assert.match(
      again.stderr,
      /^braid: step a was approved by braid approve \(pid \d+\) at [\d:.]+ UTC; nothing was done\n$/,
    );
  });

  it('reject --reason from another terminal: the step fails (rejected), its dependent is skipped, the run exits 1', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const run = runInBackground(r, planFile(REVIEWED));
    const ev = await run.when((e) => e.type === 'step' && e.id === 'a' && e.status === 'review');
    const reject = braid(['reject', String(ev.run), 'a', '--reason', 'wrong file'], r.dir);
    assert.equal(reject.status, 0, reject.stderr);
    assert.equal(await run.exited, 1);
    const a = run.events.find((e) => e.type === 'step' && e.id === 'a' && e.status === 'failed');
    assert.equal(a?.reason, 'rejected');
    assert.equal(a?.message, 'rejected: wrong file');
    assert.ok(run.events.some((e) => e.type === 'step' && e.id === 'b' && e.status === 'skipped'));
    assert.equal(existsSync(join(r.dir, 'a.txt')), false);
  });

  it('faults: unknown run or step, wrong state, missing arguments: a message and exit 1 (2 for usage), nothing changed', () => {
    const r = repo({ 'f.txt': 'f\n' });
    const ok = spawnSync(
      process.execPath,
      [
        MAIN,
        'run',
        planFile(plan`
          version: 1
          steps:
            s:
              isolation: worktree
              run: printf "x\\n" > x.txt
          `),
        '--json',
        '--workspace',
        r.dir,
      ],
      { cwd: r.dir, encoding: 'utf8' },
    );
    assert.equal(ok.status, 0, ok.stderr);
    const runId = (JSON.parse(ok.stdout.trim().split('\n')[0]!) as { run: string }).run;
    const cases: Array<[string[], RegExp]> = [
      [['approve', 'no-such-run', 's'], /^braid: unknown run no-such-run\n$/],
      [['reject', runId, 'nope'], /has no step nope/],
      [['merge', runId, 's'], /step s is succeeded, not conflict/],
      [['diff', 'no-such-run'], /unknown run/],
    ];
    for (const [args, re] of cases) {
      const res = braid(args, r.dir);
      assert.equal(res.status, 1, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, re);
    }
    assert.equal(braid(['approve', runId], r.dir).status, 2, 'no STEP is a usage error');
    assert.equal(braid(['revert', runId, 's', 's'], r.dir).status, 2);
    const revert = braid(['revert', runId, 's'], r.dir);
    assert.equal(revert.status, 0, revert.stderr);
    assert.equal(existsSync(join(r.dir, 'x.txt')), false);
    assert.match(braid(['diff', runId], r.dir).stdout, /── s \(succeeded, reverted\) ──/);
  });
});
