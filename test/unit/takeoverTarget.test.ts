// The one verdict on which step a person may step into, asked by `braid attach`/`braid say` and by
// the extension's Continue in Terminal/Send to Step: over a run's record, live or ended.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { worktreePath } from '../../src/core/engine/isolation/worktree';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import { snapshotGraph } from '../../src/core/engine/records/snapshot';
import { takeoverTarget } from '../../src/core/engine/takeoverTarget';
import type { StepStatus } from '../../src/core/status';
import { makeGraph } from '../helpers/graph';

const WS = join('/w', 'repo');
const graph = makeGraph([
  { id: 'agent', prompt: 'work' },
  { id: 'tree', prompt: 'work', isolation: 'worktree' },
  { id: 'script', prompt: 'echo hi', agent: 'shell' },
  { id: 'build', run: 'make' },
]);

function record(status: StepStatus, over: Partial<RunRecord['steps'][string]> = {}): RunRecord {
  const steps = Object.fromEntries(graph.order.map((id) => [id, { id, status, attempts: [], ...over }]));
  return {
    version: 1,
    id: 'r1',
    planFile: join(WS, 'p.braid.yaml'),
    planName: 'p',
    workspace: WS,
    status: 'running',
    createdAt: '2026-12-07T12:00:00.000Z',
    host: { pid: 1, hostname: 'h' },
    graph: snapshotGraph(graph),
    steps,
  };
}

describe('takeoverTarget', () => {
  it("takes a live run's running agent step, there: in its worktree when it has one", () => {
    assert.deepEqual(takeoverTarget(record('running'), 'agent', 'attach', true), { ok: true, how: 'live' });
    assert.deepEqual(takeoverTarget(record('running'), 'tree', 'attach', true), {
      ok: true,
      how: 'live',
      worktree: worktreePath(WS, 'r1', 'tree'),
    });
    assert.deepEqual(takeoverTarget(record('running'), 'agent', 'say', true), { ok: true, how: 'live' });
  });

  it("retries an ended run's step that went wrong or waits in review, in the worktree it kept", () => {
    for (const status of ['failed', 'conflict', 'review', 'canceled', 'interrupted'] as const)
      assert.deepEqual(takeoverTarget(record(status), 'agent', 'attach', false), { ok: true, how: 'retry' }, status);
    const kept = takeoverTarget(record('failed', { worktree: '/kept/tree' }), 'tree', 'attach', false);
    assert.deepEqual(kept, { ok: true, how: 'retry', worktree: '/kept/tree' });
  });

  it("leaves a live run's step it is done with to the run, and says when it can be taken", () => {
    const t = takeoverTarget(record('review'), 'agent', 'attach', true);
    assert.equal(t.ok, false);
    assert.match(!t.ok ? t.message : '', /agent is review in run r1, which is still going: .*braid reject r1 agent/);
    const done = takeoverTarget(record('succeeded'), 'agent', 'attach', false);
    assert.match(!done.ok ? done.message : '', /agent is succeeded: attach takes a running, failed/);
  });

  it("judges by the live view's status where run.json has not caught up with the step's end", () => {
    const t = takeoverTarget(record('running'), 'agent', 'attach', true, 'failed');
    assert.equal(t.ok, false);
    assert.match(!t.ok ? t.message : '', /agent is failed in run .*attach continues this one once the run has ended/);
  });

  it('says to a live run only', () => {
    const t = takeoverTarget(record('running'), 'agent', 'say', false);
    assert.match(!t.ok ? t.message : '', /run r1 is not running: say reaches a running step/);
  });

  it('refuses a shell step, a shell agent and an unknown step, whatever the run', () => {
    const why = (id: string): string => {
      const t = takeoverTarget(record('running'), id, 'attach', true);
      return t.ok ? 'taken' : t.message;
    };
    assert.match(why('build'), /build is a shell step/);
    assert.match(why('script'), /script's agent shell runs its prompt as a shell script/);
    assert.match(why('nope'), /run r1 has no step nope/);
  });
});
