// Exactly one decision a step (issue 31 §3): `braid approve RUN a` and `braid reject RUN a` at the
// same moment, as real CLI processes beside two busy loops at nice 19, on a live run and on an
// ended one: one wins and everything agrees with it; the other exits 1 told who decided. The
// claim itself is raced 200 times across two processes under the same load (the issue's
// "hundreds of pairs"); the bench (BRAID_BENCH_ONLY=decisions) races hundreds through the CLI;
// the window a stale read of a run ending meanwhile went through is held open on purpose in
// store.test.ts.
import { strict as assert } from 'node:assert';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimDecision, decidedMessage, decisionOf } from '../../src/core/engine/review/decisionClaim';
import { buildCli } from '../helpers/cliRun';
import { cpuLoad, racePair, RACE_PLAN, type PairResult } from '../helpers/decisionRace';
import type { Answer, Go } from '../helpers/claimWorker';
import { throwaway } from '../helpers/throwaway';

const { repo, planFile, cleanup } = throwaway('braid-decisions-');

describe('one decision a step', function () {
  this.timeout(300_000);
  before(() => {
    assert.ok(buildCli());
  });

  it('claims: of 50 claims on one change at once exactly one wins; the others read who decided', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-claim-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const claims = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        claimDecision(dir, 'a@1-abc', {
          action: i % 2 === 0 ? 'approve' : 'reject',
          by: `test ${i}`,
          at: '2026-12-07T01:02:03.456Z',
        }),
      ),
    );
    const won = claims.filter((c) => c.ok);
    assert.equal(won.length, 1);
    const decided = (await decisionOf(dir, 'a@1-abc'))!;
    for (const c of claims) if (!c.ok) assert.deepEqual(c.decided, decided);
    assert.match(
      decidedMessage('a', decided),
      /^step a was (approved|rejected) by test \d+ at 01:02:03\.456 UTC; nothing was done$/,
    );
    // Released (nothing was done): the next claim wins.
    if (won[0]!.ok) await won[0]!.release();
    assert.ok(
      (await claimDecision(dir, 'a@1-abc', { action: 'reject', by: 'later', at: '2026-12-07T01:02:04.000Z' })).ok,
    );
  });

  it('200 pairs of approve and reject claims from two processes at once, under load: one winner a pair, the loser told who decided', async () => {
    const base = mkdtempSync(join(tmpdir(), 'braid-claim-race-'));
    cleanup.push(() => rmSync(base, { recursive: true, force: true }));
    const worker = join(__dirname, '..', 'helpers', 'claimWorker.ts');
    const sides = ['approve', 'reject'].map((a) =>
      fork(worker, [a], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    );
    const next = (c: ChildProcess) =>
      new Promise<Answer | 'ready'>((res, rej) => {
        const exit = (code: number | null) => rej(new Error(`a claim worker exited ${code}`));
        c.once('exit', exit);
        c.once('message', (m: Answer | 'ready') => {
          c.off('exit', exit);
          res(m);
        });
      });
    const stop = cpuLoad();
    const bad: string[] = [];
    try {
      await Promise.all(sides.map(next));
      for (let i = 0; i < 200; i++) {
        // A run folder of its own a pair: the two also race to make its decisions/ folder.
        const go: Go = { dir: join(base, `run${i}`), key: `a@1-${i}` };
        const answers = (await Promise.all(
          sides.map((c) => {
            const a = next(c);
            c.send(go);
            return a;
          }),
        )) as Answer[];
        const won = answers.filter((a) => a.won);
        const winner = won.length === 1 ? (answers[0]!.won ? 'approve' : 'reject') : undefined;
        const loser = answers.find((a) => !a.won);
        if (!winner) bad.push(`pair ${i}: ${won.length} winners`);
        else if (
          !loser ||
          loser.won ||
          loser.action !== winner ||
          !loser.by.startsWith(`claimWorker ${winner} (pid ${sides[winner === 'approve' ? 0 : 1]!.pid})`)
        )
          bad.push(`pair ${i}: the loser heard ${JSON.stringify(loser)}`);
        else if ((await decisionOf(go.dir, go.key))?.action !== winner) bad.push(`pair ${i}: the record disagrees`);
      }
    } finally {
      stop();
      for (const c of sides) c.kill();
    }
    assert.deepEqual(bad, []);
  });

  for (const live of [true, false]) {
    const pairs = live ? 8 : 4;
    it(`${pairs} pairs of approve and reject at once on ${live ? 'a live run' : 'an ended run'}, under load: one winner, the loser told who decided`, async () => {
      const plan = planFile(RACE_PLAN);
      const stop = cpuLoad();
      const results: PairResult[] = [];
      try {
        for (let i = 0; i < pairs; i++) results.push(await racePair(repo({ 'f.txt': 'base\n' }), plan, cleanup, live));
      } finally {
        stop();
      }
      const bad = results.filter((r) => !r.ok);
      assert.deepEqual(bad, [], JSON.stringify(bad, null, 2));
      const loser = results.map((r) => (r.approve.code === 0 ? r.reject : r.approve).stderr);
      for (const l of loser)
        assert.match(
          l,
          /^braid: step a was (approved|rejected) by braid (approve|reject) \(pid \d+\) at [\d:.]+ UTC; nothing was done\n$/,
        );
    });
  }
});
