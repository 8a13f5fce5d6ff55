import { strict as assert } from 'node:assert';
import { paletteContext, type RunLike } from '../../src/extension/runs/paletteContext';

const run = (status: string, steps: Record<string, string>, budget?: unknown): RunLike => ({
  status,
  ...(budget !== undefined ? { budget } : {}),
  steps: new Map(Object.entries(steps).map(([k, s]) => [k, { status: s }])),
});
const RETRYABLE = new Set(['failed', 'canceled', 'skipped', 'interrupted', 'conflict']);

describe('palette context: run commands only where a run can take them', () => {
  it('offers nothing for runs to act on when there are no runs', () => {
    assert.ok(Object.values(paletteContext([], RETRYABLE)).every((on) => !on));
  });
  it('cancel while a run is active; budget only while one is held; retry only with a retryable step', () => {
    const c = paletteContext([run('running', { a: 'running' }), run('succeeded', { b: 'succeeded' })], RETRYABLE);
    assert.deepEqual(c, {
      'braid.anyRunActive': true,
      'braid.anyRunAtBudget': false,
      'braid.anyRunInterrupted': false,
      'braid.anyRunEnded': true,
      'braid.anyRunRetryable': false,
    });
    const held = paletteContext([run('running', { a: 'pending' }, { spentUsd: 1, budgetUsd: 1 })], RETRYABLE);
    assert.equal(held['braid.anyRunAtBudget'], true);
    const failed = paletteContext(
      [run('failed', { a: 'failed' }), run('interrupted', { b: 'interrupted' })],
      RETRYABLE,
    );
    assert.equal(failed['braid.anyRunRetryable'], true);
    assert.equal(failed['braid.anyRunInterrupted'], true);
    assert.equal(failed['braid.anyRunActive'], false);
  });
});
