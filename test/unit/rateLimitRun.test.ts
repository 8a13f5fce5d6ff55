// Rate-limited attempts in the scheduler (simulated clock, fake agent runner): requeued with
// back-off instead of failing, without using up `retries`, their pool's cap cut to what the
// provider still serves and grown back one step a probe.
import { strict as assert } from 'node:assert';
import type { EngineEvent } from '../../src/core/engine/types';
import { agentScheduler } from '../helpers/agentScheduler';

const setup = agentScheduler;

const stepEvents = (events: EngineEvent[], id: string) =>
  events.filter((e): e is Extract<EngineEvent, { type: 'step' }> => e.type === 'step' && e.id === id);

describe('rate limits in the scheduler', () => {
  it('requeues a rate-limited step with back-off from its retry-delay, without consuming retries', async () => {
    const { runner, events, run } = setup([{ id: 'a', retries: 0, retryDelayMs: 1000 }], {
      a: [{ limited: true }, { limited: true }, {}],
    });
    const r = await run();
    assert.equal(r.status, 'succeeded');
    assert.equal(r.steps.get('a')!.attempt, 3);
    // Equal jitter with random 0: half of 1000, then half of 2000.
    assert.equal(runner.startOf('a', 2), 10 + 500);
    assert.equal(runner.startOf('a', 3), 520 + 1000);
    const waits = stepEvents(events, 'a').filter((e) => e.status === 'waiting');
    assert.equal(waits.length, 2);
    assert.equal(waits[0]!.reason, 'rate-limited');
    assert.match(waits[0]!.message!, /^rate-limited, retrying at \d\d:\d\d \(HTTP 429\)$/);
    assert.equal(waits[0]!.retryAt, new Date(510).toISOString());
    assert.equal(waits[1]!.retryAt, new Date(1520).toISOString());
  });

  it('a real failure after rate limits still has its retries, with the first (undoubled) delay', async () => {
    const { runner, run } = setup([{ id: 'a', retries: 1, retryDelayMs: 100 }], {
      a: [{ limited: true }, { limited: true }, { fail: true }, {}],
    });
    const r = await run();
    assert.equal(r.steps.get('a')!.status, 'succeeded');
    assert.equal(r.steps.get('a')!.attempt, 4);
    const end3 = runner.log.find((l) => l.attempt === 3)!.end;
    assert.equal(runner.startOf('a', 4), end3 + 100, 'the delay of the first real failure: retry-delay × 1');
  });

  it('waits until the reset time the agent printed', async () => {
    const { runner, run } = setup([{ id: 'a', retryDelayMs: 1000 }], { a: [{ limited: { resetInMs: 60_000 } }, {}] });
    await run();
    assert.equal(runner.startOf('a', 2), 10 + 60_000);
  });

  it('cuts the pool’s cap to the steps still running: the limited step waits for one of them', async () => {
    const specs = [1, 2, 3, 4, 5, 6].map((i) => ({ id: `p${i}`, pool: 'anthropic', retryDelayMs: 1000 }));
    const long = { durationMs: 1000 };
    const { runner, run } = setup(
      specs,
      { p1: [{ limited: true }, long], p2: long, p3: long, p4: long, p5: long, p6: long },
      { concurrency: 8 },
      { pools: { anthropic: 4 } },
    );
    const r = await run();
    assert.equal(r.status, 'succeeded');
    // p1..p4 start at 0 (cap 4). p1 is limited at 10 while p2..p4 run: the cap is 3.
    assert.deepEqual(
      runner.log
        .filter((l) => l.start === 0)
        .map((l) => l.id)
        .sort(),
      ['p1', 'p2', 'p3', 'p4'],
    );
    assert.equal(runner.startOf('p1', 2), 1000, 'p1 was ready at 510 but the pool, cut to 3, was full');
    assert.equal(runner.startOf('p5'), 1000);
    assert.equal(
      runner.startOf('p6'),
      1000,
      'three slots at 1000 (p1, p5, p6), not four: the cap grows back only at its probe',
    );
    assert.ok(
      runner.poolTrace.every((t) => t.at < 10 || t.running <= 3),
      JSON.stringify(runner.poolTrace),
    );
  });

  it('a pool without its own cap is cut from the run’s concurrency', async () => {
    const specs = [1, 2, 3, 4].map((i) => ({ id: `p${i}`, pool: 'openai', retryDelayMs: 1000 }));
    const { runner, run } = setup(
      specs,
      { p1: [{ limited: true }, {}], p2: { durationMs: 1000 }, p3: { durationMs: 1000 }, p4: { durationMs: 1000 } },
      { concurrency: 4 },
    );
    await run();
    // Cap 4 → 3: p1 (ready at 510) must wait for the others to end at 1000.
    assert.equal(runner.startOf('p1', 2), 1000);
  });

  it('gives up after the cap on requeues (default 10), as failed with the reason', async () => {
    const { runner, run } = setup([{ id: 'a', retries: 3, retryDelayMs: 10 }], { a: { limited: true } });
    const r = await run();
    const a = r.steps.get('a')!;
    assert.equal(a.status, 'failed');
    assert.equal(a.outcome?.reason, 'rate-limited');
    assert.match(a.outcome?.message ?? '', /still rate-limited after 10 requeues/);
    assert.equal(runner.attempts('a'), 11, 'retries are not spent on rate limits either');
  });

  it('the cap is an option', async () => {
    const { runner, run } = setup([{ id: 'a' }], { a: { limited: true } }, { maxRateLimitRequeues: 2 });
    assert.equal((await run()).steps.get('a')!.status, 'failed');
    assert.equal(runner.attempts('a'), 3);
  });

  it('cancel reaches a step waiting out a rate limit', async () => {
    const ac = new AbortController();
    const { clock, run } = setup([{ id: 'a', retryDelayMs: 10_000 }], { a: { limited: true } }, { signal: ac.signal });
    void clock.sleep(100).then(() => ac.abort());
    const r = await run();
    assert.equal(r.status, 'canceled');
    assert.equal(r.steps.get('a')!.status, 'canceled');
  });
});
