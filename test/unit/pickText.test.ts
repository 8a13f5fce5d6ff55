// Which alternatives the user may pick, and how each reads in the pick list (extension/alternatives/pickText.ts).
import { strict as assert } from 'node:assert';
import type { RunRecord, StepRecord } from '../../src/core/engine/records/runRecord';
import { pickable, pickItemText, waitingForPick } from '../../src/extension/runs/pickText';

const waits = 'passed; waiting for the pick';
const step = (id: string, over: Partial<StepRecord>): StepRecord => ({ id, status: 'running', attempts: [], ...over });
const run = (steps: StepRecord[]): RunRecord =>
  ({ steps: Object.fromEntries(steps.map((s) => [s.id, s])) }) as unknown as RunRecord;

describe('picking an alternative (pickText.ts)', () => {
  it('only a passed alternative of a running step waiting for the pick, none landed, may be picked', () => {
    const alt = { status: 'succeeded', message: waits };
    assert.equal(pickable({ status: 'running' }, alt), true);
    assert.equal(pickable({ status: 'running', winner: 1 }, alt), false, 'one landed already');
    assert.equal(pickable({ status: 'succeeded' }, alt), false, 'the step ended');
    assert.equal(pickable({ status: 'running' }, { status: 'failed' }), false);
    assert.equal(
      pickable({ status: 'running' }, { status: 'succeeded', message: 'passed; waiting for the others' }),
      false,
      'pick: check decides itself',
    );
  });

  it('lists the steps waiting for a pick', () => {
    const rec = run([
      step('a', {
        alternatives: [
          { index: 1, status: 'succeeded', attempts: 1, message: waits },
          { index: 2, status: 'failed', attempts: 1 },
        ],
      }),
      step('b', { alternatives: [{ index: 1, status: 'running', attempts: 1 }] }),
      step('c', {}),
    ]);
    assert.deepEqual(waitingForPick(rec), ['a']);
  });

  it('an item says score, cost, attempts and what the alternative changed', () => {
    const change = {
      commit: 'c',
      base: 'b',
      files: [
        { path: 'a.ts', status: 'modified' as const, added: 3, removed: 1 },
        { path: 'b.ts', status: 'added' as const, added: 10, removed: 0 },
        { path: 'c.ts', status: 'deleted' as const, added: 0, removed: 4 },
        { path: 'd.ts', status: 'modified' as const, added: 1, removed: 1 },
      ],
    };
    assert.deepEqual(pickItemText({ index: 2, status: 'succeeded', attempts: 2, score: 0.9, costUsd: 0.125 }, change), {
      label: 'alternative 2',
      description: 'score 0.9 · $0.1250 · attempt 2',
      detail: '4 files · +14 −6 · a.ts, b.ts, c.ts, …',
    });
    assert.equal(
      pickItemText({ index: 1, status: 'succeeded', attempts: 1 }, { commit: 'c', base: 'b', files: [] }).detail,
      'changed nothing',
    );
    assert.equal(pickItemText({ index: 1, status: 'succeeded', attempts: 1 }, undefined).detail, 'no change recorded');
  });
});
