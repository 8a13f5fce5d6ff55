// Budgets in the scheduler (simulated clock, fake agent runner): the run's max-cost-usd stops new
// steps and asks; a step past its own max-cost-usd is canceled with reason `budget`.
import { strict as assert } from 'node:assert';
import type { BudgetDecision } from '../../src/core/engine/scheduling/budget';
import { agentScheduler } from '../helpers/agentScheduler';

const setup = agentScheduler;

const statuses = (steps: ReadonlyMap<string, { status: string }>) =>
  Object.fromEntries([...steps].map(([k, v]) => [k, v.status]));
const chain = [{ id: 'a' }, { id: 'b', needs: ['a'] }, { id: 'c', needs: ['b'] }];
const costs = { a: { costUsd: 0.03 }, b: { costUsd: 0.03 }, c: { costUsd: 0.03 } };

describe('budgets in the scheduler', () => {
  it('at the run’s budget no new step starts; asked, stop cancels the rest and fails the run with reason budget', async () => {
    const asked: Array<[number, number]> = [];
    const onBudget = async (spent: number, budget: number): Promise<BudgetDecision> => {
      asked.push([spent, budget]);
      return 'stop';
    };
    const { runner, events, run } = setup(chain, costs, { onBudget }, { maxCostUsd: 0.05 });
    const r = await run();
    assert.deepEqual(statuses(r.steps), { a: 'succeeded', b: 'succeeded', c: 'canceled' });
    assert.equal(r.steps.get('c')!.outcome?.reason, 'budget');
    assert.equal(runner.attempts('c'), 0);
    assert.equal(r.status, 'failed');
    assert.equal(r.reason, 'budget');
    assert.ok(Math.abs(r.costUsd! - 0.06) < 1e-9);
    assert.equal(asked.length, 1);
    assert.ok(Math.abs(asked[0]![0] - 0.06) < 1e-9 && asked[0]![1] === 0.05);
    const budget = events.filter((e) => e.type === 'budget');
    assert.deepEqual(
      budget.map((e) => e.type === 'budget' && e.decision),
      [undefined, 'stop'],
    );
  });

  it('without onBudget the run stops there', async () => {
    const { run } = setup(chain, costs, {}, { maxCostUsd: 0.05 });
    const r = await run();
    assert.equal(r.steps.get('c')!.status, 'canceled');
    assert.equal(r.reason, 'budget');
  });

  it('continue lets the run spend one more budget before asking again', async () => {
    const asked: number[] = [];
    const steps = [...chain, { id: 'd', needs: ['c'] }, { id: 'e', needs: ['d'] }];
    const { run } = setup(
      steps,
      { ...costs, d: { costUsd: 0.03 }, e: { costUsd: 0.03 } },
      {
        onBudget: async (spent) => {
          asked.push(spent);
          return asked.length === 1 ? 'continue' : 'stop';
        },
      },
      { maxCostUsd: 0.05 },
    );
    const r = await run();
    // Asked at 0.06 (continue: next ask at 0.11), then at 0.12 (stop): e never starts.
    assert.deepEqual(statuses(r.steps), {
      a: 'succeeded',
      b: 'succeeded',
      c: 'succeeded',
      d: 'succeeded',
      e: 'canceled',
    });
    assert.deepEqual(
      asked.map((x) => Math.round(x * 100)),
      [6, 12],
    );
  });

  it('nothing starts while the answer is pending; running steps finish after stop', async () => {
    let answer!: (d: BudgetDecision) => void;
    const specs = [{ id: 'spender' }, { id: 'slow' }, { id: 'later', needs: ['spender'] }, { id: 'queued' }];
    const { clock, runner, run } = setup(
      specs,
      { spender: { costUsd: 0.1, durationMs: 10 }, slow: { durationMs: 500 }, queued: {} },
      {
        concurrency: 2,
        onBudget: () =>
          new Promise((r) => {
            answer = r;
          }),
      },
      { maxCostUsd: 0.05 },
    );
    void clock.sleep(200).then(() => answer('stop'));
    const r = await run();
    assert.deepEqual(statuses(r.steps), {
      spender: 'succeeded',
      slow: 'succeeded',
      later: 'canceled',
      queued: 'canceled',
    });
    assert.equal(runner.attempts('queued'), 0, 'the free slot at 10 was not used while asking');
    assert.equal(runner.log.find((l) => l.id === 'slow')!.end, 500);
  });

  it('a step streaming past the run’s budget is stopped there (reason budget), and the run asks', async () => {
    const asked: number[] = [];
    const { runner, run } = setup(
      [{ id: 'a' }, { id: 'b' }],
      {
        a: {
          costs: [
            [10, 0.02],
            [20, 0.08],
          ],
          durationMs: 100,
          costSource: 'estimated',
        },
        b: { durationMs: 50 },
      },
      {
        concurrency: 1,
        onBudget: async (spent) => {
          asked.push(spent);
          return 'stop';
        },
      },
      { maxCostUsd: 0.05 },
    );
    const r = await run();
    const a = r.steps.get('a')!;
    assert.equal(a.status, 'canceled', 'a budget counts what is being spent: the step is not left to finish');
    assert.equal(a.outcome?.reason, 'budget');
    assert.match(a.outcome?.message ?? '', /the run's spending \$0\.0800 passed its budget \$0\.0500/);
    assert.equal(runner.log[0]!.end, 20, 'stopped when its stream said so, not at its end (100)');
    assert.equal(r.steps.get('b')!.status, 'canceled');
    assert.equal(runner.attempts('b'), 0);
    assert.deepEqual(asked, [0.08]);
    assert.equal(r.costSource, 'estimated');
  });

  it('under the budget nothing is stopped: a step that ends at the budget ends as it would', async () => {
    const { run } = setup(
      [{ id: 'a' }],
      {
        a: {
          costs: [
            [10, 0.02],
            [20, 0.05],
          ],
          durationMs: 100,
        },
      },
      {},
      { maxCostUsd: 0.05 },
    );
    const r = await run();
    assert.equal(r.steps.get('a')!.status, 'succeeded');
  });

  it('a pool’s budget holds only its pool: its steps wait for the answer, others run; stop cancels the pool’s rest', async () => {
    const asked: Array<[number, number, string | undefined]> = [];
    let answer!: (d: BudgetDecision) => void;
    const specs = [
      { id: 'o1', pool: 'openai' },
      { id: 'o2', pool: 'openai', needs: ['o1'] },
      { id: 'g1', pool: 'google', needs: ['o1'] },
      { id: 'c1', needs: ['o1'] },
    ];
    const { runner, events, clock, run } = setup(
      specs,
      { o1: { costUsd: 0.06, durationMs: 10 }, g1: { costUsd: 0.5, durationMs: 10 }, c1: { durationMs: 10 } },
      {
        onBudget: (spent, budget, pool) => {
          asked.push([spent, budget, pool]);
          return new Promise((r) => {
            answer = r;
          });
        },
      },
      { poolBudgets: { openai: 0.05 } },
    );
    void clock.sleep(100).then(() => answer('stop'));
    const r = await run();
    assert.deepEqual(statuses(r.steps), { o1: 'succeeded', o2: 'canceled', g1: 'succeeded', c1: 'succeeded' });
    assert.equal(runner.attempts('o2'), 0);
    assert.ok(
      runner.log.find((l) => l.id === 'g1')!.start < 100,
      "another pool's step started while openai's waited for the answer",
    );
    assert.deepEqual(asked, [[0.06, 0.05, 'openai']]);
    assert.match(r.steps.get('o2')!.outcome?.message ?? '', /pool openai reached its budget/);
    assert.equal(r.reason, 'budget');
    assert.ok(events.some((e) => e.type === 'budget' && e.pool === 'openai' && e.decision === 'stop'));
  });

  it('a step streaming past its pool’s budget is stopped; raising it (continue) lets the pool go on', async () => {
    const { runner, run } = setup(
      [
        { id: 'o1', pool: 'openai' },
        { id: 'o2', pool: 'openai', needs: ['o1'] },
      ],
      {
        o1: {
          costs: [
            [10, 0.03],
            [20, 0.09],
          ],
          durationMs: 100,
        },
        o2: { costUsd: 0.01 },
      },
      { onBudget: async () => 'continue' },
      { poolBudgets: { openai: 0.05 } },
    );
    const r = await run();
    assert.equal(r.steps.get('o1')!.outcome?.reason, 'budget');
    assert.match(
      r.steps.get('o1')!.outcome?.message ?? '',
      /pool openai's spending \$0\.0900 passed its budget \$0\.0500/,
    );
    assert.equal(runner.log[0]!.end, 20);
    assert.equal(r.steps.get('o2')!.status, 'skipped', 'its dependent does not run on a stopped step');
  });

  it('reported and estimated costs add up, and the total says it is mixed', async () => {
    const { run } = setup([{ id: 'a' }, { id: 'b' }], {
      a: { costUsd: 0.02, costSource: 'reported' },
      b: { costUsd: 0.03, costSource: 'estimated' },
    });
    const r = await run();
    assert.ok(Math.abs(r.costUsd! - 0.05) < 1e-9);
    assert.equal(r.costSource, 'mixed');
    assert.equal(r.steps.get('a')!.costSource, 'reported');
    assert.equal(r.steps.get('b')!.costSource, 'estimated');
  });

  it('a step past its own budget is canceled with reason budget, and not retried', async () => {
    const { runner, events, run } = setup(
      [
        { id: 'a', maxCostUsd: 0.05, retries: 2 },
        { id: 'b', needs: ['a'] },
      ],
      {
        a: {
          costs: [
            [10, 0.01],
            [20, 0.07],
          ],
          durationMs: 1000,
        },
      },
    );
    const r = await run();
    const a = r.steps.get('a')!;
    assert.equal(a.status, 'canceled');
    assert.equal(a.outcome?.reason, 'budget');
    assert.match(a.outcome?.message ?? '', /\$0\.0700 passed the step's budget \$0\.0500/);
    assert.equal(runner.log[0]!.end, 20, 'killed when the cost was reported');
    assert.equal(runner.log[0]!.abortReason, 'budget');
    assert.equal(runner.attempts('a'), 1);
    assert.equal(r.steps.get('b')!.status, 'skipped');
    assert.equal(r.status, 'failed');
    const agent = events.filter((e) => e.type === 'agent');
    assert.ok(
      agent.some(
        (e) => e.type === 'agent' && e.costUsd === 0.07 && e.runCostUsd === 0.07 && e.activity === 'working at 20',
      ),
    );
    const end = events.find((e) => e.type === 'step' && e.id === 'a' && e.status === 'canceled');
    assert.ok(end && end.type === 'step' && end.costUsd === 0.07);
  });

  it('a step’s cost adds up over its attempts in the run', async () => {
    const { run } = setup([{ id: 'a', retries: 1, retryDelayMs: 1 }], {
      a: [{ costUsd: 0.02, fail: true }, { costUsd: 0.03 }],
    });
    const r = await run();
    assert.ok(Math.abs(r.steps.get('a')!.costUsd! - 0.05) < 1e-9);
    assert.ok(Math.abs(r.costUsd! - 0.05) < 1e-9);
  });

  it('a run without costs reports none', async () => {
    const r = await setup([{ id: 'a' }], {}).run();
    assert.equal(r.costUsd, undefined);
    assert.equal(r.steps.get('a')!.costUsd, undefined);
  });
});
