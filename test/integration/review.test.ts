// `review: true` and the review commands (approve, reject, merge, revert) on real runs in throwaway
// repositories: while the run's process goes on (the request goes through its inbox) and after
// it ended (carried out from the record).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { runPlan, type RunOutcome, type RunRequest } from '../../src/core/engine/runPlan';
import { RunStore } from '../../src/core/engine/records/runStore';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import { reviewSteps } from '../../src/core/engine/review/reviewSteps';
import { writeConflictMarkers } from '../../src/core/engine/review/resolveByHand';
import type { EngineEvent } from '../../src/core/engine/types';
import { type TestRepo } from '../helpers/gitRepo';
import { numbered, REVIEWED, throwaway } from '../helpers/throwaway';
import { runInRepo as run, userState } from '../helpers/runInRepo';
import { plan } from '../helpers/planText';

const { repo, planFile, cleanup } = throwaway('braid-review-plan-');

const body = numbered;

/** A run started in the background, with a promise for the first event matching a test. */
function startRun(r: TestRepo, plan: string, signal?: AbortSignal, extra: Partial<RunRequest> = {}) {
  const events: EngineEvent[] = [];
  const waiters: Array<{ test: (e: EngineEvent) => boolean; resolve: (e: EngineEvent) => void }> = [];
  const done: Promise<RunOutcome> = runPlan({
    planFile: plan,
    workspace: r.dir,
    graceMs: 200,
    ...(signal ? { signal } : {}),
    ...extra,
    onEvent: (e) => {
      events.push(e);
      for (const w of waiters.splice(0))
        if (w.test(e)) w.resolve(e);
        else waiters.push(w);
    },
  });
  const when = (test: (e: EngineEvent) => boolean): Promise<EngineEvent> => {
    const seen = events.find(test);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ test, resolve }));
  };
  const step = (id: string, status: string) => when((e) => e.type === 'step' && e.id === id && e.status === status);
  return { events, done, when, step };
}

/** run.json once it satisfies `ok`: run.json is written a moment after the event, so its folder is watched. */
async function recordWhen(r: TestRepo, runId: string, ok: (rec: RunRecord) => boolean): Promise<RunRecord> {
  const store = new RunStore(r.dir);
  const dir = store.paths(runId).dir;
  return new Promise((resolve) => {
    let done = false;
    const look = async (): Promise<void> => {
      const rec = await store.load(runId);
      if (done || !rec || !ok(rec)) return;
      done = true;
      watcher.close();
      resolve(rec);
    };
    const watcher = watch(dir, () => void look());
    void look();
  });
}

async function record(r: TestRepo, runId: string): Promise<RunRecord> {
  const rec = await new RunStore(r.dir).load(runId);
  assert.ok(rec);
  return rec;
}

describe('review: true and the review commands', function () {
  this.timeout(60_000);

  it('holds a step’s change in `review`, its dependent waiting, until approve lands it from another command', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const live = startRun(r, planFile(REVIEWED));
    const ev = await live.step('a', 'review');
    assert.equal(existsSync(join(r.dir, 'a.txt')), false, 'nothing landed yet');
    const rec = await recordWhen(r, ev.run, (x) => x.steps.a!.status === 'review');
    assert.deepEqual(
      rec.steps.a!.changes!.files.map((f) => f.path),
      ['a.txt'],
    );
    assert.equal(rec.steps.b!.status, 'pending', 'the dependent waits');
    assert.ok(rec.steps.a!.worktree, 'its worktree is there to look at');

    const res = await reviewSteps(r.dir, ev.run, { action: 'approve', steps: ['a'] });
    assert.deepEqual(res, { ok: true, results: [{ step: 'a', ok: true, status: 'succeeded' }] });
    const outcome = await live.done;
    assert.ok(outcome.ok);
    assert.equal(outcome.record.status, 'succeeded');
    assert.equal(r.read('a.txt'), 'from a\n');
    assert.equal(r.read('b.txt'), 'from a\n', 'the dependent ran after the approval, on the landed change');
    assert.equal(outcome.record.steps.a!.worktree, undefined, 'the worktree went once it landed');
  });

  it('a best-of step with `review: true`: its winner waits in `review` as the step, and approve lands only its change', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const live = startRun(
      r,
      planFile(plan`
        version: 1
        steps:
          a:
            best-of: 2
            review: true
            writes: [a.txt]
            run: printf "from %s\\n" "$BRAID_ALTERNATIVE" > a.txt; [ "$BRAID_ALTERNATIVE" = 2 ] || sleep 5
          b:
            needs: [a]
            run: cat a.txt > b.txt
            writes: [b.txt]
        `),
    );
    const ev = await live.step('a', 'review');
    assert.equal(existsSync(join(r.dir, 'a.txt')), false, 'nothing landed yet');
    const rec = await recordWhen(r, ev.run, (x) => x.steps.a!.status === 'review');
    assert.equal(rec.steps.a!.winner, 2);
    assert.deepEqual(
      rec.steps.a!.changes!.files.map((f) => f.path),
      ['a.txt'],
      "the step's change is its winner's",
    );
    assert.ok(rec.steps.a!.worktree && existsSync(rec.steps.a!.worktree), "the winner's worktree is there to look at");

    const res = await reviewSteps(r.dir, ev.run, { action: 'approve', steps: ['a'] });
    assert.deepEqual(res, { ok: true, results: [{ step: 'a', ok: true, status: 'succeeded' }] });
    const outcome = await live.done;
    assert.ok(outcome.ok);
    assert.equal(outcome.record.status, 'succeeded');
    assert.equal(r.read('a.txt'), 'from 2\n');
    assert.equal(r.read('b.txt'), 'from 2\n', 'the dependent ran on the landed change');
    assert.equal(outcome.record.steps.a!.worktree, undefined, 'the worktree went once it landed');
  });

  it("a best-of step's winner rejected: the step fails (rejected), nothing lands, the winner's worktree stays", async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const live = startRun(
      r,
      planFile(plan`
        version: 1
        steps:
          a:
            best-of: 2
            review: true
            writes: [a.txt]
            run: printf "from %s\\n" "$BRAID_ALTERNATIVE" > a.txt
        `),
    );
    const ev = await live.step('a', 'review');
    const res = await reviewSteps(r.dir, ev.run, { action: 'reject', steps: ['a'] });
    assert.ok(res.ok && res.results[0]!.ok);
    const outcome = await live.done;
    assert.ok(outcome.ok);
    const a = outcome.record.steps.a!;
    assert.deepEqual([a.status, a.reason], ['failed', 'rejected']);
    assert.equal(existsSync(join(r.dir, 'a.txt')), false);
    assert.ok(a.worktree && existsSync(a.worktree), "the winner's worktree stays for the user");
  });

  it('reject ends the step failed (rejected), skips its dependent, keeps its worktree; retry runs it again', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const plan = planFile(REVIEWED);
    const live = startRun(r, plan);
    const ev = await live.step('a', 'review');
    const res = await reviewSteps(r.dir, ev.run, { action: 'reject', steps: ['a'], reason: 'not what I asked' });
    assert.ok(res.ok && res.results[0]!.ok);
    const outcome = await live.done;
    assert.ok(outcome.ok);
    const a = outcome.record.steps.a!;
    assert.equal(a.status, 'failed');
    assert.equal(a.reason, 'rejected');
    assert.equal(a.message, 'rejected: not what I asked');
    assert.equal(outcome.record.steps.b!.status, 'skipped');
    assert.ok(a.worktree && existsSync(resolve(r.dir, a.worktree)), 'its worktree stays for the user'); // absolute: worktrees live in the user's cache
    assert.equal(existsSync(join(r.dir, 'a.txt')), false);

    // `braid retry` runs it again (and it waits for review again).
    const again = startRun(r, plan, undefined, { retry: { runId: ev.run } });
    await again.step('a', 'review');
    const approved = await reviewSteps(r.dir, ev.run, { action: 'approve', steps: ['a'] });
    assert.ok(approved.ok && approved.results[0]!.ok, JSON.stringify(approved));
    const second = await again.done;
    assert.ok(second.ok);
    assert.equal(second.record.steps.b!.status, 'succeeded');
    assert.equal(second.record.steps.a!.attempts.length, 2);
    assert.equal(r.read('b.txt'), 'from a\n');
  });

  it('approve on a run whose process ended lands the change then; its dependents stay for a retry', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const ac = new AbortController();
    const live = startRun(r, planFile(REVIEWED), ac.signal);
    const ev = await live.step('a', 'review');
    ac.abort();
    const outcome = await live.done;
    assert.ok(outcome.ok);
    assert.equal(outcome.record.status, 'canceled');
    assert.equal(outcome.record.steps.a!.status, 'review', 'a canceled run leaves its change waiting');
    assert.equal(outcome.record.steps.b!.status, 'canceled');

    const res = await reviewSteps(r.dir, ev.run, { action: 'approve', steps: ['a'] });
    // The dependents it blocked are named, for `--continue` or a retry (#31 §2).
    assert.deepEqual(res, { ok: true, results: [{ step: 'a', ok: true, status: 'succeeded', dependents: ['b'] }] });
    assert.equal(r.read('a.txt'), 'from a\n');
    const rec = await record(r, ev.run);
    assert.equal(rec.steps.a!.status, 'succeeded');
    assert.equal(rec.steps.a!.worktree, undefined);
    assert.equal(
      r
        .git(['worktree', 'list', '--porcelain'])
        .split('\n')
        .filter((l) => l.startsWith('worktree ')).length,
      1,
    );
  });

  it('an approval killed after its merge-back landed but before its record was written is never applied twice', async () => {
    const r = repo({ 'log.txt': 'start\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        a:
          isolation: worktree
          review: true
          writes: [log.txt]
          run: echo added >> log.txt
      `);
    const ac = new AbortController();
    const live = startRun(r, planPath, ac.signal);
    const ev = await live.step('a', 'review');
    ac.abort();
    assert.ok((await live.done).ok);
    // What a kill -9 between the landing and the record's save leaves: the change in the
    // workspace, the record still saying `review`, the decision claimed by a process now gone.
    const file = new RunStore(r.dir).paths(ev.run).runJson;
    const before = readFileSync(file, 'utf8');
    const first = await reviewSteps(r.dir, ev.run, { action: 'approve', steps: ['a'] });
    assert.deepEqual(first, { ok: true, results: [{ step: 'a', ok: true, status: 'succeeded' }] });
    assert.equal(r.read('log.txt'), 'start\nadded\n');
    writeFileSync(file, before);
    const decisions = join(dirname(file), 'decisions');
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    for (const f of readdirSync(decisions)) {
      const d = JSON.parse(readFileSync(join(decisions, f), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(decisions, f), JSON.stringify({ ...d, pid: gone }));
    }
    // Another action stays refused: the change landed; only the approval it was may complete.
    const reject = await reviewSteps(r.dir, ev.run, { action: 'reject', steps: ['a'] });
    assert.match(!reject.ok ? reject.message : '', /^step a was approved by braid approve/);
    const again = await reviewSteps(r.dir, ev.run, { action: 'approve', steps: ['a'] });
    assert.ok(again.ok, JSON.stringify(again));
    assert.equal(r.read('log.txt'), 'start\nadded\n', 'the append landed once');
    assert.equal((await record(r, ev.run)).steps.a!.status, 'succeeded');
  });

  it('refuses an unknown run or step and a wrong state with a message, changing nothing', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const { record: rec } = await run(
      r,
      planFile(plan`
        version: 1
        steps:
          s:
            isolation: worktree
            run: printf "x\\n" > x.txt
        `),
    );
    const before = userState(r);
    const json = await new RunStore(r.dir).load(rec.id);
    assert.deepEqual(await reviewSteps(r.dir, 'nope-123', { action: 'approve', steps: ['s'] }), {
      ok: false,
      message: 'unknown run nope-123',
    });
    const unknown = await reviewSteps(r.dir, rec.id, { action: 'approve', steps: ['zz'] });
    assert.equal(unknown.ok, false);
    assert.match(!unknown.ok ? unknown.message : '', /has no step zz/);
    const wrong = await reviewSteps(r.dir, rec.id, { action: 'approve', steps: ['s'] });
    assert.match(
      !wrong.ok ? wrong.message : '',
      /step s is succeeded, not in review: nothing to approve; nothing was done/,
    );
    const merge = await reviewSteps(r.dir, rec.id, { action: 'merge', steps: ['s'] });
    assert.match(!merge.ok ? merge.message : '', /not conflict/);
    assert.deepEqual(userState(r), before);
    assert.deepEqual(await new RunStore(r.dir).load(rec.id), json);
  });

  it('two commands on one ended run at once: the second waits, is refused, told who decided, and changes nothing', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const ac = new AbortController();
    const live = startRun(r, planFile(REVIEWED), ac.signal);
    const ev = await live.step('a', 'review');
    ac.abort();
    await live.done;
    const [x, y] = await Promise.all([
      reviewSteps(r.dir, ev.run, { action: 'approve', steps: ['a'] }),
      reviewSteps(r.dir, ev.run, { action: 'reject', steps: ['a'] }),
    ]);
    const oks = [x, y].filter((o) => o.ok);
    assert.equal(oks.length, 1, JSON.stringify([x, y]));
    const refused = [x, y].find((o) => !o.ok)!;
    assert.match(
      !refused.ok ? refused.message : '',
      /^step a was (approved|rejected) by braid (approve|reject) \(pid \d+\) at [\d:.]+ UTC; nothing was done$/,
    );
  });

  it('merge lands a conflict step’s kept change onto the workspace as it is now, without running it again', async () => {
    const r = repo({ 'f.txt': body(5) });
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: worktree
          run: printf "step\\n" >> f.txt && echo ran >> "$BRAID_TEST_COUNT" && sleep 0.3
      `);
    const count = join(mkdtempSync(join(tmpdir(), 'braid-count-')), 'n');
    cleanup.push(() => rmSync(count, { force: true }));
    process.env.BRAID_TEST_COUNT = count;
    try {
      const { record: rec } = await run(r, planPath, {
        onEvent: (e) => {
          if (e.type === 'step' && e.status === 'running') r.write('f.txt', body(5) + 'user\n');
        },
      });
      assert.equal(rec.steps.s!.status, 'conflict', JSON.stringify(rec.steps.s));
      // The user settles their side (say, undoes their edit): now the change merges.
      r.git(['checkout', '--', 'f.txt']);
      const res = await reviewSteps(r.dir, rec.id, { action: 'merge', steps: ['s'] });
      assert.deepEqual(res, { ok: true, results: [{ step: 's', ok: true, status: 'succeeded' }] });
      assert.equal(r.read('f.txt'), body(5) + 'step\n');
      assert.equal((await record(r, rec.id)).steps.s!.status, 'succeeded');
      assert.equal(readFileSync(count, 'utf8'), 'ran\n', 'the step ran once');
    } finally {
      delete process.env.BRAID_TEST_COUNT;
    }
  });

  it('writing a conflict step’s change by hand (Resolve in Merge Editor): markers where both changed, the rest merged, the workspace’s text kept aside', async () => {
    const r = repo({ 'f.txt': body(10), 'g.txt': body(10, 'g') });
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: worktree
          run: sed -i "s/^line 2$/STEP 2/" f.txt && sed -i "s/^g 9$/G 9/" g.txt && printf "new\\n" > n.txt && sleep 0.3
      `);
    const { record: rec } = await run(r, planPath, {
      onEvent: (e) => {
        if (e.type === 'step' && e.status === 'running') r.write('f.txt', body(10).replace('line 2\n', 'USER 2\n'));
      },
    });
    assert.equal(rec.steps.s!.status, 'conflict');
    const m = await writeConflictMarkers(r.dir, 's', rec.steps.s!.changes!);
    assert.deepEqual(
      m.conflicted.map((c) => c.path),
      ['f.txt'],
    );
    assert.deepEqual([...m.merged].sort(), ['g.txt', 'n.txt']);
    assert.match(r.read('f.txt'), /<<<<<<< workspace\nUSER 2\n=======\nSTEP 2\n>>>>>>> s\n/);
    assert.equal(
      readFileSync(m.conflicted[0]!.before, 'utf8'),
      body(10).replace('line 2\n', 'USER 2\n'),
      'what the workspace held, for the merge editor',
    );
    assert.equal(r.read('g.txt'), body(10, 'g').replace('g 9\n', 'G 9\n'));
    assert.equal(r.read('n.txt'), 'new\n');
  });

  it('revert takes a landed change back out; with later edits on the same lines it changes nothing and names the files', async () => {
    const r = repo({ 'f.txt': body(10), 'g.txt': body(10, 'g') });
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: worktree
          run: sed -i "s/^line 2$/LINE 2/" f.txt && printf "new\\n" > n.txt
      `);
    const { record: rec } = await run(r, planPath);
    assert.equal(r.read('f.txt'), body(10).replace('line 2\n', 'LINE 2\n'));
    // A later edit on the same line: refused, nothing touched.
    r.write('f.txt', body(10).replace('line 2\n', 'LINE 2 and more\n'));
    const before = userState(r);
    const refused = await reviewSteps(r.dir, rec.id, { action: 'revert', steps: ['s'] });
    assert.ok(refused.ok);
    assert.equal(refused.results[0]!.ok, false);
    assert.match(
      !refused.results[0]!.ok ? refused.results[0]!.message : '',
      /nothing was reverted: .*same lines in f\.txt/,
    );
    assert.deepEqual(userState(r), before);
    // A later edit elsewhere in the file: the revert keeps it.
    r.write('f.txt', body(10).replace('line 2\n', 'LINE 2\n').replace('line 9\n', 'line nine\n'));
    const ok = await reviewSteps(r.dir, rec.id, { action: 'revert', steps: ['s'] });
    assert.deepEqual(ok.ok && ok.results[0], { step: 's', ok: true, status: 'succeeded', message: 'reverted' });
    assert.equal(r.read('f.txt'), body(10).replace('line 9\n', 'line nine\n'));
    assert.equal(existsSync(join(r.dir, 'n.txt')), false, 'the added file is gone');
    assert.ok((await record(r, rec.id)).steps.s!.revertedAt);
    const twice = await reviewSteps(r.dir, rec.id, { action: 'revert', steps: ['s'] });
    assert.match(!twice.ok ? twice.message : '', /reverted already/);
  });
});
