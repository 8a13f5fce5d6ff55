// What the extension asks the engine for a run or a retry: the plan's own concurrency wins over
// the setting, `isGit` is the engine's to find, and prices and the user's watchers go along only
// when set.
import { strict as assert } from 'node:assert';
import type { BraidSettings } from '../../src/extension/common/config';
import { retryParams, runParams, stepKeys, stepsOfKey } from '../../src/extension/runs/runRequest';
import { makeGraph, matrixSteps } from '../helpers/graph';

const settings = (over: Partial<BraidSettings> = {}): BraidSettings => ({
  concurrency: 3,
  agents: {},
  notifications: 'all',
  agentPermission: 'edit',
  keepTerminals: 'failures',
  progressNotification: true,
  prices: {},
  notify: [],
  ...over,
});

describe('run requests', () => {
  const graph = makeGraph([{ id: 'build', run: 'make' }, ...matrixSteps('test', 'os', ['linux', 'mac'])]);

  it('names a matrix step once, by its key, and a key its members', () => {
    assert.deepEqual(stepKeys(graph), ['build', 'test']);
    assert.deepEqual(stepsOfKey(graph, 'test'), ['test-linux', 'test-mac']);
    assert.deepEqual(stepsOfKey(graph, 'build'), ['build']);
  });

  it("asks a run with the setting's concurrency only where the plan has none, and without isGit", () => {
    const asked = runParams(
      '/w/p.braid.yaml',
      graph,
      { only: ['build'] },
      { isGit: true, permission: 'full' },
      settings(),
    );
    assert.deepEqual(asked, {
      planFile: '/w/p.braid.yaml',
      only: ['build'],
      concurrency: 3,
      compile: { permission: 'full' },
    });
    const own = makeGraph([{ id: 'a' }], { plan: { concurrency: 8 } });
    assert.equal(runParams('/w/p.braid.yaml', own, {}, {}, settings()).concurrency, undefined);
  });

  it("adds the user's prices and watchers when set, to a run and a retry alike", () => {
    const s = settings({
      prices: { m: { input: 1, output: 2 } },
      otelEndpoint: 'http://127.0.0.1:4318',
      notify: ['https://hooks.example/x'],
    });
    const watch = { otelEndpoint: 'http://127.0.0.1:4318', notify: ['https://hooks.example/x'] };
    assert.deepEqual(retryParams('r1', ['build'], true, { isGit: false }, s), {
      runId: 'r1',
      compile: {},
      watch,
      steps: ['build'],
      resume: true,
      prices: s.prices,
    });
    assert.deepEqual(retryParams('r1', undefined, false, {}, settings()), { runId: 'r1', compile: {} });
    assert.deepEqual(runParams('/p', graph, { from: 'build', fresh: true }, {}, s).watch, watch);
  });
});
