import { strict as assert } from 'node:assert';
import { groupCounts, groupCountsText } from '../../src/core/plan/groupCounts';

describe('group counts: what a matrix group amounts to, in one line', () => {
  it('succeeded of all, then running, failed and stopped, each only when there are some', () => {
    const c = groupCounts([
      'succeeded',
      'succeeded',
      'running',
      'waiting',
      'failed',
      'pending',
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    assert.deepEqual(c, { total: 10, succeeded: 6, active: 2, failed: 1, stopped: 0 });
    assert.equal(groupCountsText(c), '6/10 ✓ · 2 ▶ · 1 ✗');
    assert.equal(groupCountsText(groupCounts(['pending', 'pending'])), '0/2 ✓');
  });

  it('conflicts and interruptions count as failures; canceled and skipped as stopped; the lens drops the total', () => {
    const c = groupCounts(['conflict', 'interrupted', 'canceled', 'skipped', 'succeeded']);
    assert.equal(groupCountsText(c), '1/5 ✓ · 2 ✗ · 2 ⊘');
    assert.equal(groupCountsText(groupCounts(['succeeded', 'failed']), true), '1 ✓ · 1 ✗');
  });
});
