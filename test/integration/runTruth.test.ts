// The run's status tells the truth (issue 31 §2), and a step sees the workspace as the user sees
// it (§4): the bundled CLI in real processes on real git repositories.
import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { braid, buildCli } from '../helpers/cliRun';
import { throwaway } from '../helpers/throwaway';
import { plan } from '../helpers/planText';

const { repo, planFile } = throwaway('braid-truth-');
const runIdOf = (text: string) => /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(text)![1]!;

// x, a shared step, rewrites f.txt while b works on the snapshot from before it: b's change no
// longer merges (conflict). c fails until the file `ok` exists. d waits for b.
const PLAN = plan`
  version: 1
  steps:
    x:
      writes: [f.txt]
      run: echo X > f.txt
    b:
      isolation: worktree
      writes: [f.txt]
      run: sleep 1 && echo B > f.txt
    c:
      run: test -f ok
    d:
      needs: [b]
      run: echo d
  `;

describe('the run tells the truth', function () {
  this.timeout(120_000);
  before(() => {
    assert.ok(buildCli());
  });

  it('retry of c after b ended conflict: the run is failed in its exit code, its summary, runs, status and --json; merge, then retry, finish it', () => {
    const r = repo({ 'f.txt': 'base\n' });
    const plan = planFile(PLAN);
    const first = braid(['run', plan, '--workspace', r.dir], r.dir);
    assert.equal(first.status, 1, first.stdout + first.stderr);
    const id = runIdOf(first.stdout);
    // The end-of-run report: the conflict's own commands first, retry last with what it costs.
    const next = first.stdout.slice(first.stdout.indexOf('next:'));
    assert.match(
      next,
      new RegExp(
        `^next:\\n  braid diff ${id} b .*\\n  braid resolve ${id} b .*\\n  braid merge ${id} b .*\\n  braid logs ${id} c\\n(  braid clean .*\\n)?  braid retry ${id}   \\(runs b again from the start: a new paid session for an agent\\)\\n$`,
      ),
    );

    writeFileSync(join(r.dir, 'ok'), '');
    const retry = braid(['retry', id, 'c', '--workspace', r.dir], r.dir);
    assert.equal(retry.status, 1, retry.stdout);
    assert.match(retry.stdout, /\nrun failed\n/);
    assert.match(retry.stdout, /b +conflict/);
    assert.match(
      braid(['runs', '--workspace', r.dir], r.dir).stdout,
      new RegExp(`${id}  failed +\\S+ · 2 succeeded, 1 conflict, 1 skipped`),
    );
    assert.match(
      braid(['status', id, '--workspace', r.dir], r.dir).stdout,
      new RegExp(`^run ${id} · \\S+ · failed\\n`),
    );
    const json = braid(['retry', id, 'c', '--json', '--workspace', r.dir], r.dir);
    assert.equal(json.status, 1);
    const end = JSON.parse(json.stdout.trim().split('\n').pop()!) as { type: string; status: string };
    assert.deepEqual([end.type, end.status], ['run', 'failed']);

    // What b conflicted with is undone: merge lands it, and names what it blocked.
    r.write('f.txt', 'base\n');
    const merge = braid(['merge', id, 'b', '--workspace', r.dir], r.dir);
    assert.equal(merge.status, 0, merge.stderr);
    assert.match(
      merge.stderr,
      new RegExp(`^b: landed\\nd has not run: braid retry ${id} \\(or merge with --continue\\)\\n$`),
    );
    const rest = braid(['retry', id, '--workspace', r.dir], r.dir);
    assert.equal(rest.status, 0, rest.stdout);
    assert.match(rest.stdout, /\nrun succeeded\n/);
    assert.equal(r.read('f.txt'), 'B\n');
  });

  it('merge --continue runs what the landed step blocked; the run then reads succeeded; a revert shows as reverted', () => {
    const r = repo({ 'f.txt': 'base\n', ok: '' });
    const first = braid(['run', planFile(PLAN), '--workspace', r.dir], r.dir);
    assert.equal(first.status, 1);
    const id = runIdOf(first.stdout);
    r.write('f.txt', 'base\n');
    const merge = braid(['merge', id, 'b', '--continue', '--workspace', r.dir], r.dir);
    assert.equal(merge.status, 0, merge.stdout + merge.stderr);
    assert.match(merge.stderr, /^b: landed\nrunning what it blocked: d\n/);
    assert.match(merge.stdout, /d +succeeded/);
    assert.match(
      braid(['status', id, '--workspace', r.dir], r.dir).stdout,
      new RegExp(`^run ${id} · \\S+ · succeeded\\n`),
    );

    assert.equal(braid(['revert', id, 'b', '--workspace', r.dir], r.dir).status, 0);
    assert.match(braid(['status', id, '--workspace', r.dir], r.dir).stdout, /\n {2}reverted {4}b/);
    assert.match(braid(['runs', '--workspace', r.dir], r.dir).stdout, /3 succeeded, 1 reverted/);
  });

  it("a multi-line check reads as its first line and … in the step's message", () => {
    const r = repo({ 'f.txt': 'base\n' });
    const res = braid(
      [
        'run',
        planFile(plan`
          version: 1
          steps:
            s:
              run: "true"
              check: |
                echo checking
                exit 3
          `),
        '--workspace',
        r.dir,
      ],
      r.dir,
    );
    assert.equal(res.status, 1);
    assert.match(res.stdout, /s failed: check failed \(exit 3\): echo checking …\n/);
  });

  it('a worktree step sees untracked files as the user does (not ignored ones), and its check names symlink: [node_modules] for a missing tool', () => {
    const r = repo({ '.gitignore': 'node_modules/\nsecret.txt\n', 'f.txt': 'base\n' });
    r.write('added-by-an-earlier-run.txt', 'untracked\n');
    r.write('secret.txt', 'ignored\n');
    mkdirSync(join(r.dir, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(join(r.dir, 'node_modules', '.bin', 'mytool'), '#!/bin/sh\necho tool ran\n');
    chmodSync(join(r.dir, 'node_modules', '.bin', 'mytool'), 0o755);
    const seen = braid(
      [
        'run',
        planFile(plan`
          version: 1
          steps:
            s:
              isolation: worktree
              writes: [seen.txt]
              run: ls > seen.txt
          `),
        '--workspace',
        r.dir,
      ],
      r.dir,
    );
    assert.equal(seen.status, 0, seen.stdout);
    assert.deepEqual(
      r
        .read('seen.txt')
        .split('\n')
        .filter((l) => l !== '' && l !== 'seen.txt'),
      ['added-by-an-earlier-run.txt', 'f.txt'],
    );
    assert.equal(
      r.git(['status', '--porcelain']).split('\n').filter(Boolean).sort().join('|'),
      '?? added-by-an-earlier-run.txt|?? seen.txt',
      'the index untouched',
    );

    const tool = braid(
      [
        'run',
        planFile(plan`
          version: 1
          steps:
            t:
              isolation: worktree
              run: "true"
              check: PATH="$PWD/node_modules/.bin:$PATH" mytool
          `),
        '--workspace',
        r.dir,
      ],
      r.dir,
    );
    assert.equal(tool.status, 1);
    assert.match(
      tool.stdout,
      /t failed: check failed \(exit 127\): PATH=\S+ mytool; mytool is in the workspace's node_modules\/\.bin, which the worktree lacks: add `symlink: \[node_modules\]` to the step\n/,
    );
    const linked = braid(
      [
        'run',
        planFile(plan`
          version: 1
          steps:
            t:
              isolation: worktree
              symlink: [node_modules]
              run: "true"
              check: PATH="$PWD/node_modules/.bin:$PATH" mytool
          `),
        '--workspace',
        r.dir,
      ],
      r.dir,
    );
    assert.equal(linked.status, 0, linked.stdout);
  });
});
