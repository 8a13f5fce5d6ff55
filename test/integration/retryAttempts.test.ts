// A retry of a run numbers its attempts on from those the run recorded, in the log, the events and
// the record, and its steps get their `retries` afresh.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan } from '../../src/core/engine/runPlan';
import type { EngineEvent } from '../../src/core/engine/types';
import { plan } from '../helpers/planText';

describe('retry attempt numbers', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-retry-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('go on from the recorded attempts; retries apply again in the retry', async () => {
    const count = join(dir, 'count');
    const planFile = join(dir, 'p.braid.yaml');
    // Fails on its first three runs, then succeeds: run 1 spends attempts 1–2 (retries: 1), the retry 3–4.
    writeFileSync(
      planFile,
      plan`
        version: 1
        steps:
          shaky:
            retries: 1
            retry-delay: 10ms
            run: n=$(cat "${count}" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${count}"; echo "try $n"; [ $n -ge 4 ]
        `,
    );
    const first = await runPlan({ planFile, workspace: dir });
    assert.ok(first.ok);
    assert.equal(first.record.steps.shaky?.status, 'failed');
    assert.deepEqual(
      first.record.steps.shaky?.attempts.map((a) => a.attempt),
      [1, 2],
    );

    const events: EngineEvent[] = [];
    const again = await runPlan({
      planFile,
      workspace: dir,
      retry: { runId: first.runId },
      onEvent: (e) => events.push(e),
    });
    assert.ok(again.ok);
    assert.equal(again.record.steps.shaky?.status, 'succeeded');
    assert.deepEqual(
      again.record.steps.shaky?.attempts.map((a) => a.attempt),
      [1, 2, 3, 4],
    );
    const running = events
      .filter((e) => e.type === 'step' && e.status === 'running')
      .map((e) => (e as { attempt: number }).attempt);
    assert.deepEqual(running, [3, 4]);
    const log = readFileSync(join(dir, '.braid', 'runs', first.runId, 'logs', 'shaky.log'), 'utf8');
    assert.deepEqual(
      [...log.matchAll(/──── attempt (\d+) ·/g)].map((m) => Number(m[1])),
      [1, 2, 3, 4],
    );
  });
});
