// Worktree isolation through runPlan, against a real git in throwaway repositories: shell `run`
// steps with `isolation: worktree`, their results merged back (or not) into the workspace.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../src/cli/main';
import { runPlan } from '../../src/core/engine/runPlan';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import { numbered, throwaway } from '../helpers/throwaway';
import { assertNoLeftovers, braidBranches, runInRepo as run, userState, worktrees } from '../helpers/runInRepo';
import { worktreesRoot } from '../../src/core/engine/records/worktreeHome';
import { plan } from '../helpers/planText';

const { repo, planFile, cleanup } = throwaway('braid-iso-plan-');

const lines = numbered;

describe('worktree isolation through runPlan', function () {
  this.timeout(60_000);

  it('a dependent sees what its need produced, and both land in the workspace', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        make:
          run: printf "made\\n" > made.txt
          isolation: worktree
          writes: [made.txt]
        use:
          needs: [make]
          run: cat made.txt > used.txt && echo "in $(basename "$PWD")"
          isolation: worktree
          writes: [used.txt]
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.status, 'succeeded', JSON.stringify(record.steps));
    assert.equal(r.read('made.txt'), 'made\n');
    assert.equal(r.read('used.txt'), 'made\n', 'the dependent read its need’s file inside its own worktree');
    assert.equal(
      readFileSync(join(r.dir, '.braid', 'runs', record.id, 'outputs', 'use'), 'utf8'),
      'in use',
      'it ran in its worktree',
    );
    assert.equal(record.steps.use!.worktree, undefined);
    assertNoLeftovers(r);
  });

  it('a clean merge lands with the user’s uncommitted edits, staged work and untracked files untouched', async () => {
    const r = repo({ 'f.txt': lines(10), 'g.txt': 'g\n' });
    r.write('g.txt', 'g edited by the user\n');
    r.write('staged.txt', 'staged\n');
    r.git(['add', 'staged.txt']);
    r.write('untracked.txt', 'mine\n');
    const index = userState(r).index;
    const planPath = planFile(plan`
      version: 1
      steps:
        edit:
          run: sed -i "s/^line 9$/line 9 by the step/" f.txt && printf "new\\n" > new.txt
          isolation: worktree
          writes: [f.txt, new.txt]
      `);
    // The user edits the same file while the step runs (after the run's base was taken).
    const { record } = await run(r, planPath, {
      onEvent: (e) => {
        if (e.type === 'step' && e.status === 'running')
          r.write('f.txt', r.read('f.txt').replace('line 1\n', 'line 1 by the user\n'));
      },
    });
    assert.equal(record.steps.edit!.status, 'succeeded', record.steps.edit!.message);
    assert.equal(
      r.read('f.txt'),
      lines(10).replace('line 1\n', 'line 1 by the user\n').replace('line 9\n', 'line 9 by the step\n'),
    );
    assert.equal(r.read('new.txt'), 'new\n');
    assert.equal(r.read('g.txt'), 'g edited by the user\n');
    assert.equal(r.read('untracked.txt'), 'mine\n');
    assert.equal(r.read('staged.txt'), 'staged\n');
    assert.equal(userState(r).index, index, 'the user’s index is not rewritten');
    assert.match(r.git(['status', '--porcelain']), /^A  staged\.txt$/m, 'what was staged stays staged');
    assertNoLeftovers(r);
  });

  it('a conflict leaves the workspace byte for byte as it was, no markers, step conflict, worktree kept; braid clean removes it', async () => {
    const r = repo({ 'f.txt': lines(5) });
    r.write('untracked.txt', 'mine\n');
    const planPath = planFile(plan`
      version: 1
      steps:
        clash:
          run: sed -i "s/^line 1$/line 1 by the step/" f.txt && printf "x\\n" > other.txt
          isolation: worktree
          writes: [f.txt, other.txt]
      `);
    let before: ReturnType<typeof userState> | undefined;
    const { record } = await run(r, planPath, {
      onEvent: (e) => {
        if (e.type !== 'step' || e.status !== 'running') return;
        r.write('f.txt', r.read('f.txt').replace('line 1\n', 'line 1 by the user\n'));
        before = userState(r);
      },
    });
    const step = record.steps.clash!;
    assert.equal(step.status, 'conflict');
    assert.match(step.message ?? '', /f\.txt \(both sides changed the same lines\)/);
    assert.deepEqual(userState(r), before, 'nothing of it landed');
    assert.doesNotMatch(r.read('f.txt'), /<<<<<<<|>>>>>>>/);
    assert.equal(step.worktree, join(worktreesRoot(r.dir), record.id, 'clash'));
    const kept = step.worktree;
    assert.match(
      readFileSync(join(kept, 'f.txt'), 'utf8'),
      /^line 1 by the step$/m,
      'the step’s work is kept for the user',
    );
    assert.equal(braidBranches(r), `braid/${record.id}/clash`);
    assert.equal(existsSync(join(r.dir, '.git', 'index.lock')), false);

    assert.equal(await main(['clean', record.id, '--workspace', r.dir]), 0);
    assert.equal(existsSync(kept), false);
    assert.deepEqual(worktrees(r), [`worktree ${r.dir}`]);
    assert.equal(braidBranches(r), '');
    const saved = JSON.parse(readFileSync(join(r.dir, '.braid', 'runs', record.id, 'run.json'), 'utf8')) as RunRecord;
    assert.equal(saved.steps.clash!.worktree, undefined);
    assert.deepEqual(userState(r), before, 'clean touches only Braid’s worktrees');
    assert.equal(await main(['clean', 'no-such-run', '--workspace', r.dir]), 1);
  });

  it('a write outside the declared set fails naming the path, and nothing lands', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const before = userState(r);
    const planPath = planFile(plan`
      version: 1
      steps:
        sneaky:
          run: mkdir -p allowed && printf a > allowed/a.txt && printf b > outside.txt && printf c > README.md
          isolation: worktree
          writes: ["allowed/**"]
      `);
    const { record } = await run(r, planPath);
    const step = record.steps.sneaky!;
    assert.equal(step.status, 'failed');
    assert.equal(step.reason, 'out-of-set');
    assert.match(
      step.message ?? '',
      /outside its writes \(allowed\/\*\*\): README\.md, outside\.txt; nothing was merged/,
    );
    assert.deepEqual(userState(r), before);
    assert.equal(existsSync(join(r.dir, 'allowed')), false);
    assert.equal(step.worktree, join(worktreesRoot(r.dir), record.id, 'sneaky'), 'a failed step’s worktree is kept');
    assert.equal(await main(['clean', record.id, '--workspace', r.dir]), 0);
    assertNoLeftovers(r);
  });

  it('cancel mid-step removes the worktree and its partial change, leaving the workspace clean', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    r.write('untracked.txt', 'mine\n');
    const before = userState(r);
    const planPath = planFile(plan`
      version: 1
      steps:
        slow:
          run: printf partial > partial.txt && echo ready && sleep 30
          isolation: worktree
          writes: ["**"]
      `);
    const ac = new AbortController();
    let sawPartial = false;
    const { record } = await run(r, planPath, {
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type === 'output' && e.text.includes('ready')) {
          sawPartial = existsSync(join(worktreesRoot(r.dir), e.run, 'slow', 'partial.txt'));
          ac.abort();
        }
      },
    });
    assert.ok(sawPartial, 'the step had begun writing in its worktree');
    assert.equal(record.status, 'canceled');
    assert.equal(record.steps.slow!.status, 'canceled');
    assert.equal(record.steps.slow!.worktree, undefined);
    assert.equal(existsSync(join(worktreesRoot(r.dir), record.id, 'slow')), false);
    assert.deepEqual(userState(r), before);
    assertNoLeftovers(r);
  });

  it('a retried attempt starts from a fresh worktree; a dependent of a shared step sees what it wrote', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const tries = join(mkdtempSync(join(tmpdir(), 'braid-iso-tries-')), 'count');
    cleanup.push(() => rmSync(dirname(tries), { recursive: true, force: true }));
    const planPath = planFile(plan`
      version: 1
      steps:
        flaky:
          run: echo x >> ${tries} && echo "attempt $(wc -l < ${tries})" >> log.txt && [ "$(wc -l < ${tries})" -ge 2 ]
          isolation: worktree
          writes: [log.txt]
          retries: 1
          retry-delay: 10ms
        shared:
          run: printf "from shared\\n" > shared.txt
          isolation: shared
          writes: [shared.txt]
        after:
          needs: [flaky, shared]
          run: cat shared.txt log.txt > after.txt
          isolation: worktree
          writes: [after.txt]
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.status, 'succeeded', JSON.stringify(record.steps));
    assert.equal(record.steps.flaky!.attempts.length, 2);
    assert.equal(r.read('log.txt'), 'attempt 2\n', 'the failed attempt’s change was discarded with its worktree');
    assert.equal(r.read('after.txt'), 'from shared\nattempt 2\n');
    assertNoLeftovers(r);
  });

  it('set-up from the plan: copy brings untracked files in, setup runs first and its changes are not the step’s', async () => {
    const r = repo({ 'README.md': 'hello\n', '.gitignore': '.env\n' });
    r.write('.env', 'SECRET=1\n');
    const planPath = planFile(plan`
      version: 1
      steps:
        configured:
          run: cat .env generated.txt > out.txt
          isolation: worktree
          writes: [out.txt]
          copy: [.env]
          setup: printf "generated\\n" > generated.txt
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.steps.configured!.status, 'succeeded', record.steps.configured!.message);
    assert.equal(r.read('out.txt'), 'SECRET=1\ngenerated\n');
    assert.equal(existsSync(join(r.dir, 'generated.txt')), false, 'what setup made stays in the worktree');
    assert.equal(r.read('.env'), 'SECRET=1\n');
    assert.match(
      readFileSync(join(r.dir, '.braid', 'runs', record.id, 'logs', 'configured.log'), 'utf8'),
      /setup: printf/,
    );
    assertNoLeftovers(r);
  });

  it('a worktree is outside the workspace: climbing from its top level does not reach the workspace (#22 item 2)', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        climb:
          isolation: worktree
          writes: [top.txt]
          run: top=$(git rev-parse --show-toplevel); printf %s "$top" > top.txt; echo pwn > "$top/../../../escaped.txt"
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.steps.climb!.status, 'succeeded', record.steps.climb!.message);
    const top = r.read('top.txt');
    assert.ok(!top.startsWith(`${r.dir}/`), `the worktree ${top} is inside the workspace`);
    assert.ok(top.startsWith(join(process.env.BRAID_CACHE_DIR!, '')), top);
    assert.equal(existsSync(join(r.dir, 'escaped.txt')), false, 'the climb reached the workspace');
    assertNoLeftovers(r);
  });

  it('git-ignored files a step writes inside its writes land; changes inside a submodule are named (#22 item 3)', async () => {
    const sub = repo({ 'lib.txt': 'lib\n' });
    const r = repo({ 'README.md': 'hello\n', '.gitignore': 'build/\n*.log\n' });
    r.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub.dir, 'vendor']);
    r.commitAll('submodule');
    const planPath = planFile(plan`
      version: 1
      steps:
        make:
          isolation: worktree
          writes: [build/**, vendor/**, notes.md]
          run: mkdir -p build/js && echo out > build/js/app.js && echo x > debug.log && echo n > notes.md && echo changed > vendor/lib.txt
      `);
    const { record } = await run(r, planPath);
    const step = record.steps.make!;
    assert.equal(step.status, 'succeeded', step.message);
    assert.equal(r.read('build/js/app.js'), 'out\n', 'the ignored build output landed');
    assert.equal(r.read('notes.md'), 'n\n');
    assert.equal(existsSync(join(r.dir, 'debug.log')), false, 'an ignored file outside the writes does not land');
    assert.match(step.message ?? '', /did not land: changes inside submodule vendor/);
  });

  it('templates in setup are expanded as in run: environment-variable references, never source (#22 item 15)', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        src:
          run: printf '%s' '$(touch pwned)'
        configured:
          needs: [src]
          matrix:
            k: [x]
          run: cat generated.txt > out.txt
          isolation: worktree
          writes: [out.txt]
          setup: printf "%s %s\\n" "\${{ matrix.k }}" "\${{ steps.src.output }}" > generated.txt
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.steps['configured-x']!.status, 'succeeded', record.steps['configured-x']!.message);
    assert.equal(r.read('out.txt'), 'x $(touch pwned)\n');
    assert.equal(existsSync(join(r.dir, 'pwned')), false);
    assertNoLeftovers(r);
  });

  it('shared steps still run in the workspace itself, and runs outside git ignore isolation', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        here:
          run: basename "$PWD"
          isolation: shared
      `);
    const { record } = await run(r, planPath);
    assert.equal(
      readFileSync(join(r.dir, '.braid', 'runs', record.id, 'outputs', 'here'), 'utf8'),
      r.dir.split('/').pop(),
    );

    const plain = mkdtempSync(join(tmpdir(), 'braid-iso-plain-'));
    cleanup.push(() => rmSync(plain, { recursive: true, force: true }));
    const worktreePlan = planFile(plan`
      version: 1
      steps:
        w:
          run: echo hi
          isolation: worktree
      `);
    const outcome = await runPlan({ planFile: worktreePlan, workspace: plain, compile: { isGit: true } });
    assert.ok(
      !outcome.ok && outcome.diagnostics.some((d) => d.code === 'isolation' && d.severity === 'error'),
      JSON.stringify(outcome),
    );
  });
});
