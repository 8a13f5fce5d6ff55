// The agent progress, rate-limit and budget events: the protocol schema accepts exactly what the
// engine emits, and the CLI's view shows cost and activity (live line, summary table).
import { strict as assert } from 'node:assert';
import type { RunResult } from '../../src/core/engine/scheduling/schedulerOptions';
import type { RunRecord, StepRecord } from '../../src/core/engine/records/runRecord';
import type { EngineEvent } from '../../src/core/engine/types';
import { engineEventSchema } from '../../src/core/engine/eventSchema';
import { HumanView } from '../../src/cli/view';

const base = { time: '2026-12-03T14:00:00.000Z', run: '20261203-140000-abcd' };
const iso = (ms: number) => new Date(Date.parse(base.time) + ms).toISOString();

function recordWith(steps: Record<string, StepRecord>): RunRecord {
  return {
    version: 1,
    id: base.run,
    planFile: '/w/p.braid.yaml',
    planName: 'p',
    workspace: '/w',
    status: 'succeeded',
    createdAt: base.time,
    host: { pid: 1, hostname: 'h' },
    graph: { plan: { file: '/w/p.braid.yaml', name: 'p', version: 1, env: {}, pools: {} }, agents: {}, steps: [] },
    steps,
  };
}

function sink(): { out: NodeJS.WriteStream; text: () => Promise<string>; writes: () => number } {
  let buf = '';
  let writes = 0;
  const out = {
    write: (s: string) => {
      buf += s;
      writes++;
      return true;
    },
    columns: 200,
  } as unknown as NodeJS.WriteStream;
  // The view writes a turn's lines together, once the turn is over.
  const turn = () => new Promise<void>((resolve) => process.nextTick(resolve));
  return { out, text: () => turn().then(() => buf), writes: () => writes };
}

describe('agent events', () => {
  it('the protocol accepts the new events and fields, and rejects malformed ones', () => {
    const good: EngineEvent[] = [
      {
        ...base,
        type: 'agent',
        id: 'a',
        attempt: 1,
        sessionId: 's-1',
        turns: 3,
        inputTokens: 2000,
        outputTokens: 80,
        costUsd: 0.0123,
        runCostUsd: 0.05,
        activity: '$ npm test',
      },
      {
        ...base,
        type: 'step',
        id: 'a',
        status: 'waiting',
        attempt: 1,
        reason: 'rate-limited',
        message: 'rate-limited, retrying at 14:05',
        retryAt: '2026-12-03T14:05:00.000Z',
      },
      { ...base, type: 'step', id: 'a', status: 'succeeded', attempt: 2, exitCode: 0, costUsd: 0.02 },
      { ...base, type: 'budget', spentUsd: 0.06, budgetUsd: 0.05 },
      { ...base, type: 'budget', spentUsd: 0.06, budgetUsd: 0.05, decision: 'stop' },
      { ...base, type: 'run', status: 'failed', plan: 'p', steps: 3, costUsd: 0.06, reason: 'budget' },
    ];
    for (const e of good) assert.ok(engineEventSchema.safeParse(e).success, JSON.stringify(e));
    for (const bad of [
      { ...base, type: 'agent', id: 'a', attempt: 1, costUsd: -1 },
      { ...base, type: 'budget', spentUsd: 0.06 },
      { ...base, type: 'budget', spentUsd: 0.06, budgetUsd: 0.05, decision: 'maybe' },
      { ...base, type: 'run', status: 'failed', plan: 'p', steps: 3, reason: 'tired' },
    ])
      assert.equal(engineEventSchema.safeParse(bad).success, false, JSON.stringify(bad));
  });

  it('the summary has a cost column and the run’s total when any step reported one', async () => {
    const s = sink();
    const view = new HumanView(s.out, false);
    const record = recordWith({
      a: {
        id: 'a',
        status: 'succeeded',
        attempts: [{ attempt: 1, startedAt: iso(0), endedAt: iso(1000), durationMs: 1000, costUsd: 0.0123 }],
        startedAt: iso(0),
        endedAt: iso(1000),
        durationMs: 1000,
        costUsd: 0.0123,
      },
      b: {
        id: 'b',
        status: 'canceled',
        attempts: [],
        reason: 'budget',
        message: 'not started: the run reached its budget',
      },
    });
    const result: RunResult = { status: 'failed', steps: new Map(), costUsd: 0.0123, reason: 'budget' };
    view.summary(result, record);
    const text = await s.text();
    assert.match(text, /step\s+status\s+tries\s+time\s+cost\s+note/);
    assert.match(text, /a\s+succeeded\s+1\s+1\.0s\s+\$0\.0123/);
    assert.match(text, /run failed · stopped at its budget · \$0\.0123/);
  });

  it('without costs the summary has no cost column', async () => {
    const s = sink();
    const record = recordWith({
      a: {
        id: 'a',
        status: 'succeeded',
        attempts: [{ attempt: 1, startedAt: iso(0), endedAt: iso(10), durationMs: 10 }],
      },
    });
    new HumanView(s.out, false).summary({ status: 'succeeded', steps: new Map() }, record);
    const text = await s.text();
    assert.doesNotMatch(text, /cost/);
    assert.match(text, /run succeeded\n$/);
  });

  it("the summary's time is time spent running; the wall time of a step retried after a delay is a column apart", async () => {
    const s = sink();
    const record = recordWith({
      // Two 2-second attempts a minute apart (its retry delay), then one quick step.
      flaky: {
        id: 'flaky',
        status: 'succeeded',
        startedAt: iso(0),
        endedAt: iso(64_000),
        durationMs: 64_000,
        attempts: [
          { attempt: 1, startedAt: iso(0), endedAt: iso(2000), durationMs: 2000, status: 'failed' },
          { attempt: 2, startedAt: iso(62_000), endedAt: iso(64_000), durationMs: 2000, status: 'succeeded' },
        ],
      },
      quick: {
        id: 'quick',
        status: 'succeeded',
        startedAt: iso(0),
        endedAt: iso(500),
        durationMs: 500,
        attempts: [{ attempt: 1, startedAt: iso(0), endedAt: iso(500), durationMs: 500 }],
      },
    });
    new HumanView(s.out, false).summary({ status: 'succeeded', steps: new Map() }, record);
    const text = await s.text();
    assert.match(text, /step\s+status\s+tries\s+time\s+wall\s+note/);
    assert.match(text, /flaky\s+succeeded\s+2\s+4\.0s\s+1m 04s/);
    assert.match(text, /quick\s+succeeded\s+1\s+500ms\n/, 'no wall time where it is the running time');
  });

  it('writes the lines of one turn in one write (a thousand short steps wake the reader of a pipe once a turn, not a line)', async () => {
    const s = sink();
    const view = new HumanView(s.out, false);
    for (const id of ['a', 'b', 'c']) view.on({ ...base, type: 'step', id, status: 'running', attempt: 1 });
    assert.equal(await s.text(), 'running   a\nrunning   b\nrunning   c\n');
    assert.equal(s.writes(), 1);
    view.on({ ...base, type: 'step', id: 'a', status: 'succeeded', attempt: 1, exitCode: 0 });
    assert.match(await s.text(), /succeeded a\n$/);
    assert.equal(s.writes(), 2);
  });

  it('prints rate-limit waits and the budget stop as lines', async () => {
    const s = sink();
    const view = new HumanView(s.out, false);
    view.on({ ...base, type: 'step', id: 'a', status: 'running', attempt: 1 });
    view.on({ ...base, type: 'agent', id: 'a', attempt: 1, costUsd: 0.5, activity: 'Edit src/a.ts' });
    view.on({
      ...base,
      type: 'step',
      id: 'a',
      status: 'waiting',
      attempt: 1,
      reason: 'rate-limited',
      message: 'rate-limited, retrying at 14:05',
      retryAt: '2026-12-03T14:05:00.000Z',
    });
    view.on({ ...base, type: 'budget', spentUsd: 0.06, budgetUsd: 0.05 });
    view.on({ ...base, type: 'budget', spentUsd: 0.06, budgetUsd: 0.05, decision: 'stop' });
    const text = await s.text();
    assert.match(text, /waiting\s+a · rate-limited, retrying at 14:05/);
    assert.match(text, /spent \$0\.0600 of its \$0\.0500 budget; no new step starts/);
    assert.match(
      text,
      /stopping the run: its new steps are canceled · to go on: braid retry 20261203-140000-abcd --max-cost-usd 0\.05/,
    );
    view.on({ ...base, type: 'budget', spentUsd: 5.2, budgetUsd: 5, pool: 'openai' });
    view.on({ ...base, type: 'budget', spentUsd: 5.2, budgetUsd: 5, pool: 'openai', decision: 'stop' });
    const more = await s.text();
    assert.match(more, /pool openai has spent \$5\.20 of its \$5\.00 budget; no new step of the pool starts/);
    assert.match(
      more,
      /to go on: raise pools\.openai\.max-cost-usd in the plan, then braid retry 20261203-140000-abcd/,
    );
  });

  it('prints a best-of step waiting for its pick as review is printed: what waits and the commands; its race goes on quietly', async () => {
    const s = sink();
    const view = new HumanView(s.out, false);
    view.on({ ...base, type: 'step', id: 'r', status: 'running', attempt: 1 });
    view.on({
      ...base,
      type: 'step',
      id: 'r',
      status: 'running',
      attempt: 1,
      alternatives: [
        { index: 1, status: 'succeeded', attempts: 1 },
        { index: 2, status: 'running', attempts: 1 },
      ],
    });
    view.on({
      ...base,
      type: 'step',
      id: 'r',
      status: 'waiting',
      attempt: 1,
      reason: 'pick',
      message: `waiting for a pick: alternatives 1, 2 passed (braid pick ${base.run} r N)`,
    });
    assert.equal(
      await s.text(),
      `running   r\npick      r · waiting for a pick: alternatives 1, 2 passed (braid pick ${base.run} r N) · braid diff ${base.run} r --alternative N\n`,
    );
  });
});
