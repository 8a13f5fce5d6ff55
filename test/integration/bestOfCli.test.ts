// Best-of through the bundled CLI in real processes: every alternative's change recorded (a ref
// each, `changes` in run.json, `braid diff --alternative`), the race live on the `--json` stream,
// and a `pick: review` step that waits for its pick holding no slot while another step runs.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../../src/core/engine/records/runStore';
import { braid, buildCli, runInBackground } from '../helpers/cliRun';
import { assertNoLeftovers } from '../helpers/runInRepo';
import { throwaway } from '../helpers/throwaway';
import { plan } from '../helpers/planText';
import { until } from '../helpers/until';

const { repo, planFile, cleanup } = throwaway('braid-bestof-cli-');

type Alt = { index: number; status: string };
const TERMINAL_ALT = new Set(['succeeded', 'failed', 'canceled', 'conflict']);

describe('best-of through the CLI', function () {
  this.timeout(60_000);
  before(() => {
    assert.ok(buildCli());
  });

  it("records every alternative's change (the winner's, a failed one's, a canceled loser's), shows each live, and diffs each", async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const sync = mkdtempSync(join(tmpdir(), 'braid-bestof-sync-'));
    cleanup.push(() => rmSync(sync, { recursive: true, force: true }));
    // 1 passes once 2 and 3 have written their files; 2 fails; 3 would sleep on, and is canceled.
    const planPath = planFile(plan`
      version: 1
      steps:
        race:
          best-of: 3
          env: { SYNC: ${JSON.stringify(sync)} }
          run: |
            echo "alt $BRAID_ALTERNATIVE" > "mine-$BRAID_ALTERNATIVE.txt"; echo "says $BRAID_ALTERNATIVE"
            case "$BRAID_ALTERNATIVE" in
              1) while [ ! -f "$SYNC/2" ] || [ ! -f "$SYNC/3" ]; do sleep 0.05; done ;;
              2) touch "$SYNC/2"; exit 4 ;;
              3) touch "$SYNC/3"; exec sleep 30 ;;
            esac
      `);
    const run = runInBackground(r, planPath, cleanup);
    assert.equal(await run.exited, 0);
    const events = run.events.filter((e) => e.type === 'step' && e.id === 'race');
    const end = events.findIndex((e) => e.status === 'succeeded');
    assert.ok(end > 0, JSON.stringify(events));
    // Live: before the step's end, the stream showed each alternative running and then ended.
    for (const i of [1, 2, 3]) {
      const seen = events
        .slice(0, end)
        .map((e) => (e.alternatives as Alt[] | undefined)?.find((a) => a.index === i)?.status);
      const running = seen.indexOf('running');
      assert.ok(running >= 0, `alternative ${i} was shown running: ${seen.join(' ')}`);
      assert.ok(
        seen.slice(running).some((s) => s !== undefined && TERMINAL_ALT.has(s)),
        `alternative ${i} was shown ending before the step ended: ${seen.join(' ')}`,
      );
    }

    // Their output: each event is one alternative's, tagged with it (the views tell them apart).
    const said = run.events
      .filter((e) => e.type === 'output' && e.id === 'race')
      .map((e) => [e.alternative, String(e.text).trim()]);
    for (const i of [1, 2, 3])
      assert.deepEqual(
        said.filter(([a]) => a === i),
        [[i, `says ${i}`]],
        JSON.stringify(said),
      );

    const runId = String(events[0]!.run);
    const step = (await new RunStore(r.dir).load(runId))!.steps.race!;
    assert.equal(step.winner, 1);
    const alts = step.alternatives!;
    assert.deepEqual(
      alts.map((a) => a.changes?.files.map((f) => [f.path, f.status, f.added, f.removed])),
      [[['mine-1.txt', 'added', 1, 0]], [['mine-2.txt', 'added', 1, 0]], [['mine-3.txt', 'added', 1, 0]]],
    );
    assert.equal(alts[2]!.status, 'canceled');
    for (const a of alts) {
      const ref = r.git(['rev-parse', `refs/braid/runs/${runId}/race.alt${a.index}`]).trim();
      assert.equal(ref, a.changes!.commit, `alternative ${a.index}'s ref holds its change`);
      assert.equal(r.git(['rev-parse', `${a.changes!.commit}^`]).trim(), a.changes!.base, 'parent: its base');
    }
    assert.deepEqual(step.changes, alts[0]!.changes, "the step's change is its winner's");
    assert.equal(r.read('mine-1.txt'), 'alt 1\n');
    assert.deepEqual(
      r
        .git(['status', '--porcelain', '--untracked-files=all'])
        .split('\n')
        .filter((l) => l && !l.includes('.braid/')),
      ['?? mine-1.txt'],
      "only the winner's change landed",
    );
    assertNoLeftovers(r);

    const loser = braid(['diff', runId, 'race', '--alternative', '3'], r.dir);
    assert.equal(loser.status, 0, loser.stderr);
    assert.match(loser.stdout, /^── race · alternative 3 \(canceled\) ──\n/);
    assert.match(loser.stdout, /\+\+\+ b\/mine-3\.txt\n@@ -0,0 \+1 @@\n\+alt 3\n/);
    assert.match(
      braid(['diff', runId, 'race', '--alternative', '1', '--stat'], r.dir).stdout,
      /── race · alternative 1 \(succeeded, the winner\) ──\n mine-1\.txt \| 1 \+/,
    );
    const none = braid(['diff', runId, 'race', '--alternative', '7'], r.dir);
    assert.equal(none.status, 1);
    assert.match(none.stderr, /step race has alternatives 1 to 3, not 7/);
    assert.equal(braid(['diff', runId, '--alternative', '2'], r.dir).status, 2, 'usage: --alternative names one STEP');
    // Kept until `braid clean`, which drops every alternative's ref with the run's.
    assert.equal(braid(['clean', runId], r.dir).status, 0);
    assert.equal(r.git(['for-each-ref', `refs/braid/runs/${runId}/`]).trim(), '');
  });

  it('pick: review waits for the pick holding no slot: a ready step runs meanwhile; braid pick then lands the one picked', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    // Concurrency 2: the race (ranked first by its dependent) takes both slots; `other` waits for one.
    const planPath = planFile(plan`
      version: 1
      steps:
        race:
          best-of: 2
          pick: review
          run: echo "from $BRAID_ALTERNATIVE" > pick.txt
        tail:
          needs: [race]
          run: cat pick.txt
        other:
          run: echo other
      `);
    const run = runInBackground(r, planPath, cleanup, ['--concurrency', '2']);
    const wait = await run.when((e) => e.type === 'step' && e.id === 'race' && e.status === 'waiting');
    assert.equal(wait.reason, 'pick');
    assert.match(String(wait.message), /^waiting for a pick: alternatives 1, 2 passed \(braid pick \S+ race N\)$/);
    const runId = String(wait.run);
    // Not picked yet: `other` runs and ends in the slots the waiting step gave up.
    await run.when((e) => e.type === 'step' && e.id === 'other' && e.status === 'succeeded');
    // run.json is written at most every so often (runStore.ts): a liveness bound, not a timing claim.
    const rec = (await until(
      () => new RunStore(r.dir).load(runId),
      (x) => x?.steps.other?.status === 'succeeded',
      'run.json to show other succeeded',
    ))!;
    assert.equal(rec.steps.race!.status, 'waiting');
    assert.equal(rec.steps.race!.winner, undefined);
    assert.equal(rec.steps.race!.attempts.length, 1);
    assert.equal(rec.steps.race!.attempts[0]!.endedAt, undefined, 'its attempt goes on: the pick finishes it');
    const status = braid(['status', runId], r.dir);
    assert.match(status.stdout, /waiting +race · waiting for a pick/);

    const picked = braid(['pick', runId, 'race', '2'], r.dir);
    assert.equal(picked.status, 0, picked.stderr);
    assert.equal(await run.exited, 0);
    assert.equal(r.read('pick.txt'), 'from 2\n');
    const done = (await new RunStore(r.dir).load(runId))!.steps.race!;
    assert.deepEqual(
      [done.status, done.winner, done.attempts.length, done.attempts[0]!.status],
      ['succeeded', 2, 1, 'succeeded'],
    );
  });
});
