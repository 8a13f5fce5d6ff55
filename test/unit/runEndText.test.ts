import { strict as assert } from 'node:assert';
import { endMessage } from '../../src/extension/runs/runEndText';

describe('the run-end notification', () => {
  it('names the failed steps, the first three and a count of the rest', () => {
    assert.equal(
      endMessage('Build', 'failed', ['failed', 'succeeded'], ['lint'], ' in 3s'),
      'Braid: Build failed in 3s — 1 step failed: lint.',
    );
    assert.equal(
      endMessage('Build', 'failed', [], ['a', 'b', 'c', 'd', 'e']),
      'Braid: Build failed — 5 steps failed: a, b, c, and 2 more.',
    );
  });
  it('says how far a canceled run got instead of repeating its status', () => {
    const text = endMessage('Build', 'canceled', ['succeeded', 'canceled', 'canceled'], []);
    assert.equal(text, 'Braid: Build canceled — 1 of 3 steps had succeeded.');
    assert.doesNotMatch(text, /canceled — canceled/);
  });
});
