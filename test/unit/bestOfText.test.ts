// A best-of step's race in one line (extension/alternatives/bestOfText.ts), as the lens and the graph say it.
import { strict as assert } from 'node:assert';
import type { AlternativeSummary } from '../../src/core/engine/types';
import { bestOfText } from '../../src/extension/runs/bestOfText';

const alts = (...s: string[]): AlternativeSummary[] => s.map((status, i) => ({ index: i + 1, status, attempts: 1 }));

describe("a best-of step's line (bestOfText.ts)", () => {
  it('is the winner and why, once there is one', () => {
    assert.equal(
      bestOfText({
        status: 'succeeded',
        alternatives: alts('canceled', 'succeeded', 'canceled'),
        winner: 2,
        winnerWhy: 'first to pass',
      }),
      'alternative 2 of 3 won (first to pass)',
    );
    assert.equal(
      bestOfText({ status: 'review', alternatives: alts('succeeded', 'failed'), winner: 1 }),
      'alternative 1 of 2 won',
    );
  });

  it('counts the alternatives while they race', () => {
    assert.equal(
      bestOfText({ status: 'running', alternatives: alts('running', 'running', 'failed') }),
      'alternatives 0/3 ✓ · 2 ▶ · 1 ✗',
    );
    assert.equal(bestOfText({ status: 'failed', alternatives: alts('failed', 'failed') }), 'alternatives 0/2 ✓ · 2 ✗');
  });

  it('says the step waits for the user once every alternative ended and some passed (pick: review)', () => {
    const a = alts('succeeded', 'failed', 'succeeded').map((x) =>
      x.status === 'succeeded' ? { ...x, message: 'passed; waiting for the pick' } : x,
    );
    assert.equal(bestOfText({ status: 'running', alternatives: a }), '2 of 3 passed, waiting for your pick');
    const racing = [a[0]!, { ...a[1]!, status: 'running' }, a[2]!];
    assert.equal(
      bestOfText({ status: 'running', alternatives: racing }),
      'alternatives 2/3 ✓ · 1 ▶',
      'not while one still runs',
    );
  });

  it('is nothing for a step without alternatives', () => {
    assert.equal(bestOfText({ status: 'succeeded' }), undefined);
  });
});

describe("the runs model follows a best-of step's race (runView.applyStepEvent)", () => {
  it("takes each running event's alternatives, the winner and why; a new attempt starts from none", async () => {
    const { applyStepEvent } = await import('../../src/extension/runs/runView');
    const step = {
      id: 'a',
      name: 'a',
      status: 'pending' as const,
      attempt: 0,
    } as import('../../src/extension/runs/runView').StepView;
    const ev = (status: 'running' | 'succeeded', attempt: number, extra: object = {}) => ({
      type: 'step' as const,
      id: 'a',
      status,
      attempt,
      time: '',
      run: 'r',
      ...extra,
    });
    applyStepEvent(step, ev('running', 1));
    assert.equal(step.alternatives, undefined);
    applyStepEvent(step, ev('running', 1, { alternatives: alts('running', 'running') }));
    assert.equal(bestOfText(step), 'alternatives 0/2 ✓ · 2 ▶');
    applyStepEvent(
      step,
      ev('running', 1, { alternatives: alts('succeeded', 'canceled'), winner: 1, winnerWhy: 'first to pass' }),
    );
    assert.equal(bestOfText(step), 'alternative 1 of 2 won (first to pass)');
    applyStepEvent(
      step,
      ev('succeeded', 1, { alternatives: alts('succeeded', 'canceled'), winner: 1, winnerWhy: 'first to pass' }),
    );
    applyStepEvent(step, ev('running', 2));
    assert.deepEqual([step.alternatives, step.winner, step.winnerWhy], [undefined, undefined, undefined]);
  });
});
