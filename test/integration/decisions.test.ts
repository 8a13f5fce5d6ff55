// Exactly one decision a step (issue 31 §3): `braid approve RUN a` and `braid reject RUN a` at the
// same moment, as real CLI processes beside two busy loops at nice 19, on a live run and on an
// ended one: one wins and everything agrees with it; the other exits 1 told who decided. The
// bench (BRAID_BENCH_ONLY=decisions) races hundreds of pairs; the window a stale read of a run
// ending meanwhile went through is held open on purpose in store.test.ts.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimDecision, decidedMessage, decisionOf } from '../../src/core/engine/review/decisionClaim';
import { buildCli } from '../helpers/cliRun';
import { cpuLoad, racePair, RACE_PLAN, type PairResult } from '../helpers/decisionRace';
import { throwaway } from '../helpers/throwaway';

const { repo, planFile, cleanup } = throwaway('braid-decisions-');

describe('one decision a step', function () {
  this.timeout(300_000);
  before(() => { assert.ok(buildCli()); });

  it('claims: of 50 claims on one change at once exactly one wins; the others read who decided', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-claim-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const claims = await Promise.all(Array.from({ length: 50 }, (_, i) =>
      claimDecision(dir, 'a@1-abc', { action: i % 2 === 0 ? 'approve' : 'reject', by: `test ${i}`, at: '2026-12-07T01:02:03.456Z' })));
    const won = claims.filter((c) => c.ok);
    assert.equal(won.length, 1);
    const decided = (await decisionOf(dir, 'a@1-abc'))!;
    for (const c of claims) if (!c.ok) assert.deepEqual(c.decided, decided);
    assert.match(decidedMessage('a', decided), /^step a was (approved|rejected) by test \d+ at 01:02:03\.456 UTC; nothing was done$/);
    // Released (nothing was done): the next claim wins.
    if (won[0]!.ok) await won[0]!.release();
    assert.ok((await claimDecision(dir, 'a@1-abc', { action: 'reject', by: 'later', at: '2026-12-07T01:02:04.000Z' })).ok);
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
      for (const l of loser) assert.match(l, /^braid: step a was (approved|rejected) by braid (approve|reject) \(pid \d+\) at [\d:.]+ UTC; nothing was done\n$/);
    });
  }
});
