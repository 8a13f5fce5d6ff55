// Best-of steps with real processes and real git: the losers' process trees (background children
// and a TERM-ignoring one included) are gone within the kill grace of the winner's choice, their worktrees removed, and
// only the winner's change lands; the example plan runs as documented.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main';
import { RunStore } from '../../src/core/engine/records/runStore';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { isGone } from '../helpers/processes';
import { assertNoLeftovers, runInRepo, userState } from '../helpers/runInRepo';
import { plan } from '../helpers/planText';
import { until } from '../helpers/until';

const ROOT = join(__dirname, '..', '..');

describe('best-of with real processes', function () {
  this.timeout(60_000);
  let repo: TestRepo;
  let pids: string;
  beforeEach(() => {
    pids = mkdtempSync(join(tmpdir(), 'braid-bestof-pids-'));
  });
  afterEach(() => {
    repo?.cleanup();
    rmSync(pids, { recursive: true, force: true });
  });

  it("pick first: the losers' whole process trees are gone once the winner is chosen, long before their own end; only its change lands", async () => {
    repo = makeRepo({ 'base.txt': 'base\n' });
    // Alternative 1 passes once 2 and 3 have written their pids (outside their worktrees); 2 and 3
    // leave background sleeps, and 3 also ignores SIGTERM (only the kill after the grace ends it).
    repo.write(
      'p.braid.yaml',
      plan`
        version: 1
        steps:
          race:
            best-of: 3
            env: { PIDS: ${JSON.stringify(pids)} }
            run: |
              echo "alt $BRAID_ALTERNATIVE" > "won-$BRAID_ALTERNATIVE.txt"
              if [ "$BRAID_ALTERNATIVE" = 1 ]; then
                while [ ! -s "$PIDS/sh-2" ] || [ ! -s "$PIDS/sh-3" ] || [ ! -s "$PIDS/bg-2" ] || [ ! -s "$PIDS/bg-3" ]; do sleep 0.02; done; exit 0
              fi
              if [ "$BRAID_ALTERNATIVE" = 3 ]; then trap "" TERM; fi
              sleep 30 & echo $! > "$PIDS/bg-$BRAID_ALTERNATIVE.tmp" && mv "$PIDS/bg-$BRAID_ALTERNATIVE.tmp" "$PIDS/bg-$BRAID_ALTERNATIVE"
              echo $$ > "$PIDS/sh-$BRAID_ALTERNATIVE.tmp" && mv "$PIDS/sh-$BRAID_ALTERNATIVE.tmp" "$PIDS/sh-$BRAID_ALTERNATIVE"
              wait
            check: test -f "won-$BRAID_ALTERNATIVE.txt"
        `,
    );
    repo.commitAll('plan');
    // From the moment the winner is announced (live, as an event), watch the losers' processes go:
    // within 15 s, half the 30 s their sleeps would live on (a TERM-ignoring one ends only by the kill
    // after the 1 s grace). How soon after the grace they go is a timing claim, bench/'s to measure.
    let watching: Promise<boolean> | undefined;
    const watch = (): Promise<boolean> => {
      const all = ['sh-2', 'sh-3', 'bg-2', 'bg-3'].map((f) => Number(readFileSync(join(pids, f), 'utf8')));
      return until(
        () => Promise.resolve(all.every(isGone)),
        (gone) => gone,
        `the losers' processes ${all.join(', ')} gone`,
        15_000,
      );
    };
    const { record } = await runInRepo(repo, join(repo.dir, 'p.braid.yaml'), {
      graceMs: 1000,
      onEvent: (e) => {
        if (watching === undefined && e.type === 'step' && e.id === 'race' && e.winner !== undefined)
          watching = watch();
      },
    });
    const step = record.steps.race!;
    assert.equal(record.status, 'succeeded', JSON.stringify(step));
    assert.equal(step.winner, 1);
    assert.equal(step.winnerWhy, 'first to pass');
    assert.deepEqual(
      step.alternatives!.map((a) => [a.index, a.status]),
      [
        [1, 'succeeded'],
        [2, 'canceled'],
        [3, 'canceled'],
      ],
    );
    assert.ok(watching, 'the winner was announced before the step ended');
    await watching;
    const state = userState(repo);
    assert.equal(repo.read('won-1.txt'), 'alt 1\n');
    assert.equal(state.files.has('won-2.txt') || state.files.has('won-3.txt'), false, "no loser's change landed");
    assertNoLeftovers(repo);
  });

  it('examples/best-of.braid.yaml: pick check lands the highest score, and the dependent reads its output', async () => {
    repo = makeRepo({ 'best-of.braid.yaml': readFileSync(join(ROOT, 'examples/best-of.braid.yaml'), 'utf8') });
    const { record } = await runInRepo(repo, join(repo.dir, 'best-of.braid.yaml'));
    assert.equal(record.status, 'succeeded');
    const greet = record.steps.greet!;
    assert.equal(greet.winner, 2);
    assert.equal(greet.winnerWhy, 'score 96');
    assert.deepEqual(
      greet.alternatives!.map((a) => a.score),
      [59, 96, 80],
    );
    assert.equal(repo.read('.braid-example/greeting.txt'), 'Hi!\n');
    const out = readFileSync(join(repo.dir, '.braid', 'runs', record.id, 'outputs', 'report'), 'utf8');
    assert.match(out, /landed alternative 2 wrote +4 bytes; the file says Hi!/);
    assertNoLeftovers(repo);
  });

  it('pick check reads a score only from `score: N` or $BRAID_SCORE_FILE (the file first), never a test count printed last', async () => {
    const text = plan`
        version: 1
        steps:
          s:
            best-of: 3
            pick: check
            isolation: worktree
            writes: [a.txt]
            run: echo "$BRAID_ALTERNATIVE" > a.txt
            check: |
              case "$BRAID_ALTERNATIVE" in
                1) echo "score: 7" ;;
                2) echo "score: 1"; echo 40 > "$BRAID_SCORE_FILE" ;;
              esac
              echo "99 tests passed"
        `;
    repo = makeRepo({ 'p.braid.yaml': text });
    const { record } = await runInRepo(repo, join(repo.dir, 'p.braid.yaml'));
    const s = record.steps.s!;
    assert.deepEqual(
      s.alternatives!.map((a) => a.score),
      [7, 40, undefined],
    );
    assert.equal(s.winner, 2);
    assert.equal(s.winnerWhy, 'score 40');
    assert.equal(repo.read('a.txt'), '2\n');
  });

  it('when every alternative fails, their worktrees are kept for a look and named in the record', async () => {
    repo = makeRepo({
      'p.braid.yaml':
        'version: 1\nsteps:\n  race:\n    best-of: 2\n    run: echo "try $BRAID_ALTERNATIVE" > f.txt; exit 3\n',
    });
    const { record } = await runInRepo(repo, join(repo.dir, 'p.braid.yaml'));
    const step = record.steps.race!;
    assert.equal(step.status, 'failed');
    assert.match(step.message!, /^all 2 alternatives failed/);
    const kept = step.alternatives!.map((a) => a.worktree);
    assert.equal(kept.length, 2);
    // Absolute: worktrees live in the user's cache (worktreeHome.ts), not under the workspace.
    for (const [i, wt] of kept.entries()) assert.equal(readFileSync(join(wt!, 'f.txt'), 'utf8'), `try ${i + 1}\n`);
  });

  it('pick review: the step waits; `braid pick` from another terminal refuses a failed alternative and lands a passed one', async () => {
    repo = makeRepo({
      'p.braid.yaml': plan`
        version: 1
        steps:
          race:
            pick: review
            best-of: 3
            run: echo "from $BRAID_ALTERNATIVE" > pick.txt; echo "alt $BRAID_ALTERNATIVE"; [ "$BRAID_ALTERNATIVE" != 2 ]
        `,
    });
    let runId = '';
    const running = runInRepo(repo, join(repo.dir, 'p.braid.yaml'), {
      onStart: (id) => {
        runId = id;
      },
    });
    const store = new RunStore(repo.dir);
    await until(
      async () => (runId ? await store.load(runId) : undefined),
      (rec) => rec?.steps.race?.alternatives?.every((a) => a.status === 'succeeded' || a.status === 'failed') === true,
      'every alternative to end with the step waiting for a pick',
    );
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    };
    let refused: number, picked: number;
    try {
      refused = await main(['pick', runId, 'race', '2', '--workspace', repo.dir]);
      picked = await main(['pick', runId, 'race', '3', '--workspace', repo.dir]);
    } finally {
      process.stderr.write = write;
    }
    assert.equal(refused, 1);
    assert.match(stderr.join(''), /alternative 2 of race did not pass \(it is failed\)/);
    assert.equal(picked, 0);
    const { record } = await running;
    assert.equal(record.steps.race!.winner, 3);
    assert.equal(record.steps.race!.winnerWhy, 'picked');
    assert.equal(repo.read('pick.txt'), 'from 3\n');
  });
});
