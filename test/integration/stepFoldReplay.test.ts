// run.json is the engine's events folded (records/stepFold.ts), so a live view folding the same
// events cannot drift from it: a real run in a real git repository (a retry, a best-of race with a
// failed alternative waiting for a pick, a step whose change waits in review, a failure and what it
// skipped) is replayed event by event through the fold from the record the run started with, and
// the result is the run.json the recorder wrote, field for field. The views' model folded from the
// same events shows each step as the model read back from run.json shows it.
import { strict as assert } from 'node:assert';
import { main } from '../../src/cli/main';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import { RunStore } from '../../src/core/engine/records/runStore';
import { foldStep } from '../../src/core/engine/records/stepFold';
import { reviewSteps } from '../../src/core/engine/review/reviewSteps';
import { runPlan } from '../../src/core/engine/runPlan';
import type { EngineEvent } from '../../src/core/engine/types';
import { applyStepEvent, viewOf } from '../../src/extension/runs/runView';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { until } from '../helpers/until';
import { plan } from '../helpers/planText';

// flaky fails its first attempt (the marker is outside git's view) and passes its second; race's
// alternative 2 fails, 1 and 3 pass and wait for a pick; gated's change waits in review until approved.
const PLAN = plan`
  version: 1
  steps:
    flaky:
      retries: 1
      retry-delay: 10ms
      run: test -f .git/flaky-tried || { touch .git/flaky-tried; echo first try; exit 1; }
    race:
      best-of: 3
      pick: review
      run: echo "from $BRAID_ALTERNATIVE" > race.txt; [ "$BRAID_ALTERNATIVE" != 2 ]
    gated:
      isolation: worktree
      review: true
      writes: [gated.txt]
      run: echo gated > gated.txt
    broken:
      run: echo broken; exit 3
    after:
      needs: [broken]
      run: echo never
  `;

describe('run.json is the run’s events folded', function () {
  this.timeout(120_000);
  let repo: TestRepo | undefined;
  afterEach(() => repo?.cleanup());

  it('replays a real run with a retry, a pick, a review and a failure into the run.json it wrote', async () => {
    repo = makeRepo({ 'p.braid.yaml': PLAN });
    const dir = repo.dir;
    const events: EngineEvent[] = [];
    let started: RunRecord | undefined;
    let picked = false;
    let approved = false;
    const decisions: Promise<unknown>[] = [];
    const outcome = await runPlan({
      planFile: `${dir}/p.braid.yaml`,
      workspace: dir,
      graceMs: 200,
      // The record as the run began, before its first step event: what the replay starts from.
      onStart: (_id, _sched, _graph, record) => {
        started = structuredClone(record);
      },
      onEvent: (e) => {
        events.push(e);
        // Decisions from elsewhere, as a user makes them: once each step waits for one.
        if (e.type === 'step' && e.id === 'race' && e.status === 'waiting' && e.reason === 'pick' && !picked) {
          picked = true;
          // `braid pick` reads run.json, which the recorder writes a moment after the event: pick
          // once the record on disk shows the race over, as a person reading it would.
          const store = new RunStore(dir);
          decisions.push(
            until(
              () => store.load(e.run),
              (r) => r?.steps.race?.alternatives?.every((a) => a.status !== 'running') === true,
              'the race over in run.json',
            ).then(() => main(['pick', e.run, 'race', '3', '--workspace', dir])),
          );
        }
        if (e.type === 'step' && e.id === 'gated' && e.status === 'review' && !approved) {
          approved = true;
          decisions.push(reviewSteps(dir, e.run, { action: 'approve', steps: ['gated'] }));
        }
      },
    });
    await Promise.all(decisions);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.ok(started);
    const written = await new RunStore(dir).load(outcome.runId);
    assert.ok(written);

    // The run went through everything the fold has a rule for.
    const seen = new Set(events.map((e) => (e.type === 'step' ? `${e.id}:${e.status}:${e.reason ?? ''}` : e.type)));
    for (const s of [
      'flaky:waiting:retry-delay',
      'race:waiting:pick',
      'gated:review:',
      'broken:failed:exit',
      'after:skipped:skipped',
    ])
      assert.ok(seen.has(s), `${s} in ${[...seen].join(', ')}`);
    assert.deepEqual(Object.fromEntries(Object.values(written.steps).map((s) => [s.id, s.status])), {
      flaky: 'succeeded',
      race: 'succeeded',
      gated: 'succeeded',
      broken: 'failed',
      after: 'skipped',
    });
    assert.equal(written.steps.flaky!.attempts.length, 2);
    assert.equal(written.steps.race!.winner, 3);
    assert.ok(written.steps.gated!.changes?.files.some((f) => f.path === 'gated.txt'));

    // The replay: the run's events folded from the record it started with.
    const replayed = structuredClone(started);
    for (const e of events)
      if (e.type === 'step' || e.type === 'agent') replayed.steps[e.id] = foldStep(replayed.steps[e.id], e);
    for (const id of Object.keys(written.steps))
      assert.deepEqual(replayed.steps[id], written.steps[id], `step ${id}: the replay and run.json`);

    // The views' model folded from the same events, and the one read from run.json, show the same steps.
    const live = viewOf(structuredClone(started));
    for (const e of events) {
      if (e.type === 'run' || e.type === 'budget') continue;
      const step = live.steps.get(e.id);
      if (step) applyStepEvent(step, e);
    }
    const reloaded = viewOf(written);
    for (const [id, s] of reloaded.steps) {
      const { lastLine: _l, activity: _a, ...liveStep } = live.steps.get(id)!;
      assert.deepEqual(liveStep, s, `step ${id}: the live view and the reloaded one`);
    }
  });
});
