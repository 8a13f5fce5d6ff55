import { strict as assert } from 'node:assert';
import type { StepStatus } from '../../src/core/status';
import { nextTerminal, runningNeeds, type PlannedRun } from '../../src/extension/terminals/nextTerminal';

/** A run from `id: status <- needs` entries, in plan order. */
function run(steps: Record<string, [StepStatus, string[]?]>): PlannedRun {
  return {
    order: Object.keys(steps),
    steps: new Map(Object.entries(steps).map(([id, [status, needs]]) => [id, { status, ...(needs ? { needs } : {}) }])),
  };
}

describe('which pending step gets its terminal opened ahead', () => {
  it('a → b: b while a runs, none before a runs or once b runs', () => {
    assert.equal(nextTerminal(run({ a: ['running'], b: ['pending', ['a']] })), 'b');
    assert.equal(nextTerminal(run({ a: ['pending'], b: ['pending', ['a']] })), undefined);
    assert.equal(nextTerminal(run({ a: ['succeeded'], b: ['running', ['a']] })), undefined);
  });

  it('never a step with a need that is pending, failed or waiting for review', () => {
    for (const status of ['pending', 'waiting', 'review', 'failed', 'skipped', 'canceled'] as const) {
      assert.equal(nextTerminal(run({ a: ['running'], x: [status], b: ['pending', ['a', 'x']] })), undefined, status);
    }
  });

  it('a step whose needs all succeeded starts on its own: no terminal ahead for it', () => {
    assert.equal(nextTerminal(run({ a: ['succeeded'], b: ['pending', ['a']] })), undefined);
  });

  it('prefers the step waiting on fewest running needs, then plan order', () => {
    const r = run({
      a: ['running'],
      b: ['running'],
      c: ['succeeded'],
      join: ['pending', ['a', 'b']],
      one: ['pending', ['a', 'c']],
      two: ['pending', ['b']],
    });
    assert.equal(nextTerminal(r), 'one');
    assert.deepEqual(runningNeeds(r, 'join'), ['a', 'b']);
  });

  it('the step holding the terminal keeps it while it still qualifies, and loses it when it does not', () => {
    const r = run({ a: ['running'], b: ['running'], join: ['pending', ['a', 'b']], one: ['pending', ['a']] });
    assert.equal(nextTerminal(r, 'join'), 'join');
    const failed = run({ a: ['running'], b: ['failed'], join: ['pending', ['a', 'b']], one: ['pending', ['a']] });
    assert.equal(nextTerminal(failed, 'join'), 'one');
    assert.equal(nextTerminal(r, 'gone'), 'one');
    // Its needs all ended well: it is about to start, and keeps the terminal until it does.
    assert.equal(nextTerminal(run({ a: ['succeeded'], b: ['pending', ['a']] }), 'b'), 'b');
    assert.equal(nextTerminal(run({ a: ['succeeded'], b: ['waiting', ['a']] }), 'b'), 'b');
    assert.equal(nextTerminal(run({ a: ['succeeded'], b: ['running', ['a']] }), 'b'), undefined);
  });
});
