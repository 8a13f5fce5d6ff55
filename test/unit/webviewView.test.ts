import { strict as assert } from 'node:assert';
import { nodeStatus, stepStatuses, type StepStatus } from '../../src/protocol/webview';
import { alternativeActions, isRunActive, runActions, stepActions } from '../../webview/actions';
import {
  centreOn,
  clampPan,
  fitTransform,
  MAX_SCALE,
  MIN_SCALE,
  readableTransform,
  wheelFactor,
  zoomAt,
} from '../../webview/panZoom';
import { findSteps, nextMatch } from '../../webview/search';

describe('webview buttons: which apply', () => {
  it('offers each step action only for the statuses it can act on', () => {
    const table = Object.fromEntries(stepStatuses.map((s) => [s, stepActions(s, false).join(' ')]));
    assert.deepEqual(table, {
      pending: 'run-from',
      waiting: 'cancel',
      running: 'cancel',
      review: 'review-changes approve reject',
      succeeded: 'run-from review-changes',
      failed: 'retry run-from',
      conflict: 'retry run-from merge-again open-worktree review-changes',
      canceled: 'retry run-from',
      // one retryable set everywhere (status.ts): a skipped step is retried as the tree and the CLI do
      skipped: 'retry run-from',
      interrupted: 'retry run-from',
    });
    // during a run: a failed branch can be retried, but nothing starts a second run
    assert.deepEqual(stepActions('failed', true), ['retry']);
    assert.deepEqual(stepActions('succeeded', true), ['review-changes'], 'looking at a change starts nothing');
    assert.deepEqual(stepActions('review', true), ['review-changes', 'approve', 'reject']);
  });

  it('offers an alternative of a best-of step its change once it passed, and the pick only while its step waits', () => {
    assert.deepEqual(alternativeActions('running', false), []);
    assert.deepEqual(alternativeActions('failed', false), []);
    assert.deepEqual(alternativeActions('succeeded', false), ['review-changes']);
    assert.deepEqual(alternativeActions('succeeded', true), ['pick', 'review-changes']);
  });

  it('offers Run plan when idle, Retry all failed after a failed run, Cancel run while running', () => {
    assert.deepEqual(runActions(['pending', 'pending'], false), ['run-plan']);
    assert.deepEqual(runActions(['succeeded', 'failed', 'skipped'], true), ['run-plan', 'retry-failed']);
    assert.deepEqual(runActions(['succeeded', 'failed'], false), ['run-plan'], 'nothing to retry without a run');
    assert.deepEqual(runActions(['running', 'failed'], true), ['cancel-run']);
    assert.equal(isRunActive(['succeeded', 'waiting']), true);
    assert.equal(isRunActive([]), false);
  });

  it('shows a collapsed group as the member status that most needs attention', () => {
    const s = (...xs: StepStatus[]) => nodeStatus(xs);
    assert.equal(s('succeeded'), 'succeeded');
    assert.equal(s('succeeded', 'running', 'pending'), 'running');
    assert.equal(s('succeeded', 'failed', 'running'), 'failed');
    assert.equal(s('skipped', 'succeeded'), 'skipped');
  });
});

describe('webview search', () => {
  const items = [
    { stepId: 'build', name: 'Build all' },
    { stepId: 'research-aider', name: 'research-aider', group: 'research', agent: 'claude' },
    { stepId: 'rebuild', name: 'Rebuild docs' },
    { stepId: 'x', name: 'BUILD' },
  ];

  it('ranks exact, then prefix, then substring matches, case-insensitively, in graph order within a rank', () => {
    assert.deepEqual(findSteps(items, 'build'), ['build', 'x', 'rebuild']);
    assert.deepEqual(findSteps(items, ' RESEARCH '), ['research-aider']);
    assert.deepEqual(findSteps(items, 'claude'), ['research-aider']);
    assert.deepEqual(findSteps(items, ''), []);
    assert.deepEqual(findSteps(items, 'zzz'), []);
  });

  it('steps through matches, wrapping', () => {
    const m = ['a', 'b', 'c'];
    assert.equal(nextMatch(m, undefined), 'a');
    assert.equal(nextMatch(m, 'a'), 'b');
    assert.equal(nextMatch(m, 'c'), 'a');
    assert.equal(nextMatch(m, 'gone'), 'a');
    assert.equal(nextMatch([], 'a'), undefined);
  });
});

describe('webview pan and zoom math', () => {
  it('zooms about the pointer: the point under it stays put', () => {
    const t = { x: 30, y: -20, scale: 0.8 };
    const z = zoomAt(t, 1.5, 200, 100);
    const contentX = (200 - t.x) / t.scale;
    const contentY = (100 - t.y) / t.scale;
    assert.ok(Math.abs(contentX * z.scale + z.x - 200) < 1e-9);
    assert.ok(Math.abs(contentY * z.scale + z.y - 100) < 1e-9);
    assert.ok(Math.abs(z.scale - 1.2) < 1e-12);
  });

  it('clamps the scale', () => {
    assert.equal(zoomAt({ x: 0, y: 0, scale: 1 }, 1000, 0, 0).scale, MAX_SCALE);
    assert.equal(zoomAt({ x: 0, y: 0, scale: 1 }, 0.00001, 0, 0).scale, MIN_SCALE);
  });

  it('fits big content inside the view, centred, and never enlarges small content', () => {
    const big = fitTransform(2000, 500, 1000, 600, 0);
    assert.deepEqual(big, { scale: 0.5, x: 0, y: 175 });
    const small = fitTransform(100, 50, 1000, 600, 0);
    assert.deepEqual(small, { scale: 1, x: 450, y: 275 });
    assert.deepEqual(fitTransform(0, 0, 1000, 600), { x: 0, y: 0, scale: 1 });
  });

  it('centres a content point and turns wheel deltas into zoom factors', () => {
    assert.deepEqual(centreOn({ x: 5, y: 5, scale: 2 }, 100, 50, 800, 600), { scale: 2, x: 200, y: 200 });
    assert.ok(wheelFactor(-100, 0) > 1 && wheelFactor(100, 0) < 1);
    assert.equal(wheelFactor(3, 1), wheelFactor(48, 0), 'line mode counts 16 px a line');
    assert.ok(Math.abs(wheelFactor(100, 0) * wheelFactor(-100, 0) - 1) < 1e-12, 'in and out cancel');
  });

  it('first shows the whole diagram when its labels stay readable', () => {
    // 400×300 fits a 800×600 view at 1:1 (never enlarged): centred.
    assert.deepEqual(readableTransform(400, 300, 800, 600, 0.7, 0), { scale: 1, x: 200, y: 150 });
    // 1000×500 fits at 0.8 ≥ 0.7: the whole of it, centred.
    assert.deepEqual(readableTransform(1000, 500, 800, 600, 0.7, 0), { scale: 0.8, x: 0, y: 100 });
  });

  it('never shrinks below the readable scale: fits the width and scrolls, else scrolls both ways from the top left', () => {
    // 20 chains drawn left to right: 600 wide, 3,000 tall. The whole would be 0.2; the width fits at 1.
    const tall = readableTransform(600, 3000, 800, 600, 0.7, 16);
    assert.equal(tall.scale, 1);
    assert.equal(tall.x, 100, 'the width fits: centred across');
    assert.equal(tall.y, 16, 'the rest is below: from the top');
    // 5,000 wide, 3,000 tall: even the width would need 0.15; held at 0.7, from the top left.
    assert.deepEqual(readableTransform(5000, 3000, 800, 600, 0.7, 16), { scale: 0.7, x: 16, y: 16 });
    // A readable floor above 1 is still never an enlargement.
    assert.equal(readableTransform(5000, 3000, 800, 600, 1.5, 16).scale, 1);
  });

  it('keeps content on screen when dragged or scrolled past its edges', () => {
    // Content 2000×400 at 1 in an 800×600 view: x between 800-16-2000 and 16; y centred range.
    assert.deepEqual(clampPan({ x: 100, y: 0, scale: 1 }, 2000, 400, 800, 600, 16), { scale: 1, x: 16, y: 16 });
    assert.deepEqual(clampPan({ x: -5000, y: 500, scale: 1 }, 2000, 400, 800, 600, 16), { scale: 1, x: -1216, y: 184 });
  });
});
