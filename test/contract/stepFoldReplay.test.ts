// run.json is `braid run --json`'s events folded (records/stepFold.ts), agents included: real
// claude and codex against the loopback model server, one retried after its check failed, their
// progress, tokens, sessions and costs (reported and estimated) folded from the events a reader
// gets into exactly the step records run.json holds.
import { strict as assert } from 'node:assert';
import type { StepRecord } from '../../src/core/engine/records/runRecord';
import { RunStore } from '../../src/core/engine/records/runStore';
import { foldStep } from '../../src/core/engine/records/stepFold';
import type { EngineEvent } from '../../src/core/engine/types';
import { type AgentHome } from './harness/agentHome';
import { makeWorkspace, runPlan } from './harness/braidRun';
import { scenarios } from './modelServer/scenario';
import type { ModelServer } from './modelServer/server';
import { withModelAndHome } from './harness/suite';
import { plan } from '../helpers/planText';

describe('run.json is the run’s --json events folded (contract)', function () {
  this.timeout(300_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: scenarios.answer('unused') }, (s, h) => {
    server = s;
    home = h;
  });

  it('claude retried after its check failed, and codex: the events replayed are the records written', async () => {
    server.serve(
      scenarios.costing(scenarios.writeFile('a.txt', 'a', 'Wrote a.txt.'), {
        input: 20_000,
        cached: 5_000,
        output: 1_000,
        reasoning: 100,
      }),
    );
    const ws = await makeWorkspace(home.dir, { git: false });
    // work fails once (the marker is the check's own), then passes.
    const text = plan`
      version: 1
      steps:
        work:
          agent: claude
          prompt: Write a.txt.
          retries: 1
          retry-delay: 10ms
          check: test -f tried || { touch tried; exit 1; }
        est:
          agent: codex
          prompt: Write a.txt.
      `;
    const r = await runPlan(ws, text, home.env, ['--json']);
    const events = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as EngineEvent);
    const written = await new RunStore(ws.dir).load(r.status.id);
    assert.ok(written, r.stderr);
    assert.equal(written.steps.work!.status, 'succeeded', `${r.stdout}\n${r.stderr}`);
    assert.equal(written.steps.work!.attempts.length, 2, 'the check failed once');
    assert.ok(written.steps.work!.costUsd! > 0 && written.steps.est!.costUsd! > 0);
    assert.ok(events.some((e) => e.type === 'agent'));

    // A fresh run starts each step pending with its content key; everything after is events.
    for (const [id, rec] of Object.entries(written.steps)) {
      let replayed: StepRecord = {
        id,
        status: 'pending',
        attempts: [],
        ...(rec.contentKey ? { contentKey: rec.contentKey } : {}),
      };
      for (const e of events)
        if ((e.type === 'step' || e.type === 'agent') && e.id === id) replayed = foldStep(replayed, e);
      assert.deepEqual(replayed, rec, `step ${id}: the replay and run.json`);
    }
  });
});
