// Which needs `--only` may reuse, read from records in a throwaway `.braid/`: the newest run that
// ran a step decides, and only a success with the same content, still in the workspace, counts.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../../src/core/engine/records/runStore';
import type { RunRecord, StepRecord } from '../../src/core/engine/records/runRecord';
import { snapshotGraph } from '../../src/core/engine/records/snapshot';
import { contentKeys } from '../../src/core/engine/reuse/contentKey';
import { findReusable, reusedRecord } from '../../src/core/engine/reuse/reusable';
import { makeGraph } from '../helpers/graph';

const graph = makeGraph([
  { id: 'a', run: 'echo a' },
  { id: 'b', run: 'echo b', needs: ['a'] },
  { id: 'c', run: 'echo c', needs: ['b'] },
]);
const keys = contentKeys(graph);
const PLAN = '/w/p.braid.yaml';

describe('reusable needs', () => {
  let dir: string;
  let store: RunStore;
  let n = 0;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-reusable-'));
    store = new RunStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const ok = (id: string, over: Partial<StepRecord> = {}): StepRecord => ({
    id,
    status: 'succeeded',
    contentKey: keys.get(id)!,
    startedAt: at(n, 1),
    endedAt: at(n, 3),
    durationMs: 2000,
    attempts: [{ attempt: 1, startedAt: at(n, 1), endedAt: at(n, 3), durationMs: 2000, status: 'succeeded' }],
    ...over,
  });
  const at = (run: number, s: number) => new Date(Date.UTC(2026, 11, 6, 10, run, s)).toISOString();
  /** A finished run of the plan, newer than the ones before; each step's output is `<id>@<run>`. */
  async function run(steps: Record<string, StepRecord>, outputs = Object.keys(steps)): Promise<string> {
    const id = `20261206-10${String(n).padStart(2, '0')}00-abcd`;
    const rec: RunRecord = {
      version: 1,
      id,
      planFile: PLAN,
      planName: 'p',
      workspace: dir,
      status: 'succeeded',
      createdAt: at(n, 0),
      endedAt: at(n, 9),
      host: { pid: 1, hostname: 'h' },
      graph: snapshotGraph(graph),
      steps,
    };
    await store.create(rec);
    for (const s of outputs) await store.writeOutput(id, s, `${s}@${id}`);
    await store.flush();
    n++;
    return id;
  }
  const find = () => findReusable(store, PLAN, graph, new Set(['a', 'b']), keys);

  it('reuses a chain that succeeded with the same content, with its output and the run that ran it', async () => {
    const r1 = await run({ a: ok('a'), b: ok('b'), c: ok('c') });
    const found = await find();
    assert.deepEqual([...found.keys()], ['a', 'b']);
    assert.equal(found.get('b')!.output, `b@${r1}`);
    assert.equal(found.get('b')!.run, r1);
    const rec = reusedRecord(found.get('b')!);
    assert.deepEqual(
      [rec.status, rec.attempts, rec.reused, rec.message],
      ['succeeded', [], { run: r1, endedAt: at(0, 3), durationMs: 2000 }, `reused from run ${r1}`],
    );
  });

  it('the newest run that ran the step decides: a later failure is not hidden by an older success', async () => {
    await run({ a: ok('a'), b: ok('b') });
    await run({ a: ok('a'), b: ok('b', { status: 'failed', reason: 'exit', exitCode: 1 }) });
    assert.deepEqual([...(await find()).keys()], ['a']);
  });

  it('runs that did not run the step (not selected, skipped, canceled before it started, kept by --from) do not decide', async () => {
    const r1 = await run({ a: ok('a'), b: ok('b') });
    const kept = ok('b'); // --from keeps the older record as it was
    await run({
      a: { id: 'a', status: 'skipped', reason: 'not-selected', attempts: [] },
      b: { id: 'b', status: 'canceled', attempts: [] },
    });
    await run({ a: kept, b: kept }, []);
    const found = await find();
    assert.deepEqual([...found.keys()], ['a', 'b']);
    assert.equal(found.get('a')!.output, `a@${r1}`);
  });

  it('not reused: another content, a change reverted or waiting for review, an output gone, a need that runs', async () => {
    await run({ a: ok('a', { contentKey: 'other' }), b: ok('b') });
    assert.deepEqual([...(await find()).keys()], [], 'a ran with other content; b needs a, so it runs too');
    await run({ a: ok('a'), b: ok('b', { revertedAt: at(n, 5) }) });
    assert.deepEqual([...(await find()).keys()], ['a'], "b's change was reverted out of the workspace");
    await run({ a: ok('a'), b: ok('b', { status: 'review' }) });
    assert.deepEqual([...(await find()).keys()], ['a'], "b's change never landed");
    await run({ a: ok('a'), b: ok('b') }, ['a']);
    assert.deepEqual([...(await find()).keys()], ['a'], "b's output is gone");
    // A change landed in one run, reused by the next, then reverted in the first: not in the workspace.
    const landedSteps = { a: ok('a'), b: ok('b') };
    const landed = await run(landedSteps);
    await run({
      a: reusedRecord({ id: 'a', run: landed, record: landedSteps.a, output: 'a', key: keys.get('a')! }),
      b: reusedRecord({ id: 'b', run: landed, record: landedSteps.b, output: 'b', key: keys.get('b')! }),
    });
    const again = await find();
    assert.deepEqual([...again.keys()], ['a', 'b'], 'reused from a reuse');
    assert.deepEqual(
      reusedRecord(again.get('b')!).reused,
      { run: landed, endedAt: landedSteps.b.endedAt, durationMs: 2000 },
      'named after the run that ran it, with its end and time',
    );
    const first = (await store.load(landed))!;
    first.steps['b']!.revertedAt = at(n, 7);
    await store.save(first);
    await store.flush();
    assert.deepEqual([...(await find()).keys()], ['a'], "b's change was reverted where it landed");
  });

  it("a run still going is not history yet; another plan's runs are not this plan's", async () => {
    const r = await run({ a: ok('a'), b: ok('b') });
    const rec = (await store.load(r))!;
    await store.save({ ...rec, status: 'running' });
    await store.flush();
    assert.deepEqual([...(await find()).keys()], []);
    assert.deepEqual([...(await findReusable(store, '/w/other.braid.yaml', graph, new Set(['a']), keys)).keys()], []);
  });
});
