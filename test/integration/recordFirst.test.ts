// The run's record is the one source every view projects: it is current in memory at every event
// (the engine host serves snapshots of it), and saved before the run's end is announced (so a
// view reads the end once, without polling).
import { strict as assert } from 'node:assert';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan } from '../../src/core/engine/runPlan';
import { RunStore } from '../../src/core/engine/records/runStore';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import type { EngineEvent } from '../../src/core/engine/types';
import { plan } from '../helpers/planText';

describe('the run record comes first', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'braid-record-')));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is current in memory at every step event, and on disk before the run ends', async () => {
    const planFile = join(dir, 'p.braid.yaml');
    writeFileSync(
      planFile,
      plan`
        version: 1
        steps:
          a:
            run: echo a
          b:
            run: exit 3
            needs: [a]
          c:
            run: echo c
            needs: [b]
        `,
    );
    let record: Readonly<RunRecord> | undefined;
    const checked: string[] = [];
    let endOnDisk: string | undefined;
    const pending: Promise<void>[] = [];
    const outcome = await runPlan({
      planFile,
      workspace: dir,
      compile: { isGit: false },
      onStart: (_id, _s, _g, rec) => {
        record = rec;
      },
      onEvent: (e: EngineEvent) => {
        if (e.type === 'step' && record) {
          const step = record.steps[e.id]!;
          assert.deepEqual(
            [step.status, step.reason, step.message, step.exitCode],
            [e.status, e.reason, e.message, e.exitCode],
            `${e.id} ${e.status}`,
          );
          checked.push(`${e.id}:${e.status}`);
        }
        if (e.type === 'run' && e.status !== 'started') {
          pending.push(
            new RunStore(dir).load(e.run).then((r) => {
              endOnDisk = r?.status;
            }),
          );
        }
      },
    });
    await Promise.all(pending);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.deepEqual(checked, ['a:running', 'a:succeeded', 'b:running', 'b:failed', 'c:skipped']);
    assert.equal(endOnDisk, 'failed', 'the end event comes after the record says so on disk');
    assert.equal(outcome.record, record, 'the engine host serves this very object');
  });
});
