// Worktree steps lock only their merge-back, through runPlan against a real git: overlapping
// worktree steps run side by side; a shared step writing the same paths keeps a merge-back out
// while it runs; a step canceled while its merge-back waits leaves the workspace clean.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent } from '../../src/core/engine/types';
import { throwaway } from '../helpers/throwaway';
import { assertNoLeftovers, runInRepo as run, userState } from '../helpers/runInRepo';
import { worktreesRoot } from '../../src/core/engine/records/worktreeHome';
import { plan } from '../helpers/planText';

const { repo, planFile, cleanup } = throwaway('braid-ml-');

function tempDir(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), `braid-ml-${tag}-`));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A shell fragment that waits (up to 30 s) for `file`, then fails if it never came. */
const waitFor = (file: string) => `for i in $(seq 600); do [ -f ${file} ] && break; sleep 0.05; done; [ -f ${file} ]`;

const ms = (iso: string | undefined) => {
  assert.ok(iso);
  return Date.parse(iso);
};
const ranBeforeWait = (events: EngineEvent[], id: string) => {
  const running = events.findIndex((e) => e.type === 'step' && e.id === id && e.status === 'running');
  const wait = events.findIndex((e) => e.type === 'lock' && e.id === id);
  return running >= 0 && running < wait;
};
const lockEvents = (events: EngineEvent[]) =>
  events.filter((e): e is Extract<EngineEvent, { type: 'lock' }> => e.type === 'lock');

describe('merge-back locks of worktree steps', function () {
  this.timeout(60_000);

  it('two worktree steps with overlapping writes run at the same time, and both merge cleanly', async () => {
    const r = repo({ 'src/x.ts': 'x\n', 'src/y.ts': 'y\n' });
    const m = tempDir('markers');
    // Each waits for the other's marker: only running at once lets both succeed.
    const planPath = planFile(plan`
      version: 1
      steps:
        wide:
          run: printf "x by wide\\n" > src/x.ts && touch ${m}/wide && ${waitFor(`${m}/narrow`)}
          isolation: worktree
          writes: ["src/**"]
        narrow:
          run: printf "y by narrow\\n" > src/y.ts && touch ${m}/narrow && ${waitFor(`${m}/wide`)}
          isolation: worktree
          writes: [src/y.ts]
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.status, 'succeeded', JSON.stringify(record.steps));
    const [w, n] = [record.steps.wide!, record.steps.narrow!];
    assert.ok(ms(w.startedAt) < ms(n.endedAt) && ms(n.startedAt) < ms(w.endedAt), 'their attempts overlap');
    assert.equal(r.read('src/x.ts'), 'x by wide\n');
    assert.equal(r.read('src/y.ts'), 'y by narrow\n');
    assertNoLeftovers(r);
  });

  it('a shared step writing the same paths keeps a worktree step’s merge-back waiting until it ends', async () => {
    const r = repo({ 'src/x.ts': 'x\n' });
    const m = tempDir('markers');
    // The shared step holds src/** and goes on only once the worktree step's merge-back waits for it.
    const planPath = planFile(plan`
      version: 1
      steps:
        here:
          run: ${waitFor(`${m}/merge-waits`)} && printf "s\\n" > src/s.ts
          isolation: shared
          writes: ["src/**"]
        tree:
          run: printf "x by tree\\n" > src/x.ts
          isolation: worktree
          writes: ["src/**"]
      `);
    const { record, events } = await run(r, planPath, {
      onEvent: (e) => {
        if (e.type === 'lock' && e.id === 'tree') writeFileSync(join(m, 'merge-waits'), '');
      },
    });
    assert.equal(record.status, 'succeeded', JSON.stringify(record.steps));
    const waits = lockEvents(events).filter((e) => e.id === 'tree');
    assert.equal(waits.length, 1);
    assert.equal(waits[0]!.waitingFor, 'here', 'the lock event names the holder');
    assert.ok(waits[0]!.paths.includes('src/**'));
    assert.ok(ranBeforeWait(events, 'tree'), 'it ran while the shared step held src/**; only its merge-back waited');
    assert.ok(!lockEvents(events).some((e) => e.id === 'here'), 'the shared step never waited for the worktree step');
    const doneAt = (id: string) =>
      events.findIndex((e) => e.type === 'step' && e.id === id && e.status === 'succeeded');
    assert.ok(
      doneAt('here') >= 0 && doneAt('here') < doneAt('tree'),
      'the merge-back landed after the shared step ended',
    );
    assert.ok(ms(record.steps.here!.endedAt) <= ms(record.steps.tree!.endedAt));
    assert.equal(r.read('src/x.ts'), 'x by tree\n');
    assert.equal(r.read('src/s.ts'), 's\n');
    assertNoLeftovers(r);
  });

  it('cancel while the merge-back waits for its lock removes the worktree and leaves the workspace clean', async () => {
    const r = repo({ 'src/x.ts': 'x\n' });
    r.write('untracked.txt', 'mine\n');
    const before = userState(r);
    const planPath = planFile(plan`
      version: 1
      steps:
        here:
          run: sleep 30
          isolation: shared
          writes: ["src/**"]
        tree:
          run: printf "x by tree\\n" > src/x.ts
          isolation: worktree
          writes: ["src/**"]
      `);
    const ac = new AbortController();
    const { record, events } = await run(r, planPath, {
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type === 'lock' && e.id === 'tree') ac.abort();
      },
    });
    assert.equal(lockEvents(events).filter((e) => e.id === 'tree').length, 1);
    assert.ok(ranBeforeWait(events, 'tree'), 'it was canceled waiting for the merge lock, not for its start');
    assert.equal(record.status, 'canceled');
    assert.equal(record.steps.tree!.status, 'canceled');
    assert.equal(record.steps.tree!.worktree, undefined);
    assert.equal(existsSync(join(worktreesRoot(r.dir), record.id, 'tree')), false);
    assert.deepEqual(userState(r), before, 'nothing of it landed');
    assertNoLeftovers(r);
  });
});
