// A best-of step's alternatives on the graph panel (extension/graph/graphAlternatives.ts): which ids the
// host accepts from the page as alternatives, their nodes, and their status updates.
import { strict as assert } from 'node:assert';
import {
  alternativeNodes,
  alternativeOf,
  bestOfAction,
  bestOfSteps,
  stepUpdates,
} from '../../src/extension/graph/graphAlternatives';
import type { StepView } from '../../src/extension/runs/runView';
import { makeGraph, matrixSteps } from '../helpers/graph';

const bestOf = (n: number) => ({
  pick: 'review' as const,
  alternatives: Array.from({ length: n }, (_, i) => ({ index: i + 1, env: {} })),
});
const graph = () =>
  makeGraph([
    { id: 'fix', run: 'true', bestOf: bestOf(3) },
    { id: 'plain', run: 'true' },
    ...matrixSteps('m', 'k', ['a'], { run: 'true', bestOf: bestOf(2) }),
  ]);

describe("a best-of step's alternatives on the graph panel (graphAlternatives.ts)", () => {
  it('takes only alternatives the graph draws: a best-of step outside a matrix, an index it has', () => {
    const g = graph();
    assert.deepEqual(bestOfSteps(g), ['fix']);
    assert.deepEqual(alternativeOf(g, 'fix.alt3'), { stepId: 'fix', index: 3 });
    for (const id of ['fix.alt4', 'fix.alt0', 'plain.alt1', 'm-a.alt1', 'nope.alt1', 'fix'])
      assert.equal(alternativeOf(g, id), undefined, id);
  });

  it("gives each alternative a node in its step's group, pending before a run, its status and the winner after", () => {
    const g = graph();
    const nodeIds = new Map([
      ['fix.alt1', 'n1'],
      ['fix.alt2', 'n2'],
      ['fix.alt3', 'n3'],
    ]);
    assert.deepEqual(
      alternativeNodes(g.steps.get('fix')!, undefined, nodeIds).map((n) => [
        n.stepId,
        n.nodeId,
        n.status,
        n.group,
        n.alternative,
      ]),
      [
        ['fix.alt1', 'n1', 'pending', 'fix', 1],
        ['fix.alt2', 'n2', 'pending', 'fix', 2],
        ['fix.alt3', 'n3', 'pending', 'fix', 3],
      ],
    );
    const view = {
      id: 'fix',
      name: 'fix',
      status: 'succeeded',
      attempt: 1,
      winner: 2,
      alternatives: [
        { index: 1, status: 'canceled', attempts: 1 },
        { index: 2, status: 'succeeded', attempts: 1 },
        { index: 3, status: 'failed', attempts: 2 },
      ],
    } as StepView;
    assert.deepEqual(
      alternativeNodes(g.steps.get('fix')!, view, nodeIds).map((n) => [n.status, n.won ?? false]),
      [
        ['canceled', false],
        ['succeeded', true],
        ['failed', false],
      ],
    );
  });

  it('updates the step (Pick once its race waits) and each alternative (won, may be picked)', () => {
    const waits = 'passed; waiting for the pick';
    const view = {
      id: 'fix',
      name: 'fix',
      status: 'running',
      attempt: 1,
      alternatives: [
        { index: 1, status: 'succeeded', attempts: 1, message: waits },
        { index: 2, status: 'failed', attempts: 1, message: 'exited with code 1' },
      ],
    } as StepView;
    const [own, a1, a2] = stepUpdates(view);
    assert.deepEqual([own!.stepId, own!.pick, own!.detail], ['fix', true, '1 of 2 passed, waiting for your pick']);
    assert.deepEqual([a1!.stepId, a1!.status, a1!.pick, a1!.won], ['fix.alt1', 'succeeded', true, false]);
    assert.deepEqual(
      [a2!.stepId, a2!.status, a2!.pick, a2!.detail],
      ['fix.alt2', 'failed', false, 'exited with code 1'],
      'the node shows its status itself: the detail says the rest',
    );
    assert.deepEqual(
      stepUpdates({ id: 'plain', name: 'plain', status: 'succeeded', attempt: 1 }).map((u) => u.stepId),
      ['plain'],
      'a plain step: its own update only',
    );
  });

  it("routes the page's buttons: an alternative's change and pick, the step's pick; refuses the rest of an alternative", () => {
    const g = graph();
    assert.deepEqual(bestOfAction(g, 'r1', 'review-changes', 'fix.alt2'), {
      command: 'braid.openAlternativeChanges',
      args: ['r1', 'fix', 2],
    });
    assert.deepEqual(bestOfAction(g, 'r1', 'pick', 'fix.alt2'), {
      command: 'braid.pickAlternative',
      args: ['r1', 'fix', 2],
    });
    assert.deepEqual(bestOfAction(g, 'r1', 'pick', 'fix'), { command: 'braid.pickAlternative', args: ['r1', 'fix'] });
    assert.equal(bestOfAction(g, 'r1', 'retry', 'fix.alt2'), 'drop', 'no step action on an alternative');
    assert.equal(bestOfAction(g, 'r1', 'pick', 'plain'), 'drop', 'a plain step has nothing to pick');
    assert.equal(bestOfAction(g, undefined, 'pick', 'fix.alt1'), 'drop', 'no run shown');
    assert.equal(bestOfAction(g, 'r1', 'retry', 'fix'), undefined, "the step's own actions are the panel's");
  });
});
