// Part: throughput under a provider's limit (simulated clock). 200 agent steps, no needs, 30–90 s
// each, against a provider that serves at most R sessions at once and answers 429 past it (after
// 1 s, as the CLIs now fail fast) with a reset hint: when its earliest session ends. Braid (one
// pool for the provider, concurrency 16, its adaptive pool cap) beside a fixed-concurrency
// baseline that ignores limits (16 at once, each 429 retried at its hint). The floor is work ÷ R.
// Goals: Braid's makespan ≤ 1.15 × floor and 429s ≤ 10 % of attempts, for R = 2, 5, 10.
import { SimClock } from '../src/core/engine/scheduling/clock';
import { Scheduler } from '../src/core/engine/scheduling/scheduler';
import type { AttemptContext, AttemptResult, StepRunner } from '../src/core/engine/types';
import type { Graph } from '../src/core/plan/types';
import { seededRandom } from '../src/core/agents/backoff';
import { makeGraph } from '../test/helpers/graph';
import { envInt, fixed, goal, table } from './stats';

const STEPS = 200;
const CONCURRENCY = 16;
const REJECT_MS = 1000;

/** A provider serving at most `capacity` sessions at once; past it, a 429 with a reset hint. */
class Provider implements StepRunner {
  private readonly ends: number[] = [];
  attempts = 0;
  limited = 0;

  constructor(
    private readonly clock: SimClock,
    private readonly capacity: number,
    private readonly dur: ReadonlyMap<string, number>,
  ) {}

  async execute(ctx: AttemptContext): Promise<AttemptResult> {
    this.attempts++;
    const now = this.clock.now();
    if (this.ends.length >= this.capacity) {
      this.limited++;
      const resetAt = new Date(Math.min(...this.ends));
      await this.clock.sleep(REJECT_MS);
      return {
        status: 'failed',
        exitCode: 1,
        signal: null,
        reason: 'rate-limited',
        durationMs: REJECT_MS,
        message: 'rate-limited: 429',
        rateLimit: { resetAt, evidence: '429 Too Many Requests' },
      };
    }
    const d = this.dur.get(ctx.step.id)!;
    const end = now + d;
    this.ends.push(end);
    await this.clock.sleep(d);
    this.ends.splice(this.ends.indexOf(end), 1);
    return { status: 'succeeded', exitCode: 0, signal: null, durationMs: d };
  }
}

function agentSteps(seed: number, pooled: boolean): { graph: Graph; dur: Map<string, number> } {
  const r = seededRandom(seed);
  const ids = Array.from({ length: STEPS }, (_, i) => `a${i}`);
  const dur = new Map(ids.map((id) => [id, Math.round(30_000 + r() * 60_000)]));
  const graph = makeGraph(
    ids.map((id) => ({ id, prompt: 'work', ...(pooled ? { pool: 'provider' } : {}) })),
    { plan: { file: 'bench', name: 'bench' } },
  );
  return { graph, dur };
}

async function simulate(
  capacity: number,
  seed: number,
  braid: boolean,
): Promise<{ makespan: number; floor: number; attempts: number; limited: number }> {
  const { graph, dur } = agentSteps(seed, braid);
  const clock = new SimClock();
  // Clock time 0 is 1970 for the Dates a provider prints: the simulated clock's epoch.
  const provider = new Provider(clock, capacity, dur);
  const s = new Scheduler({
    graph,
    runId: 'rl',
    runner: provider,
    clock,
    concurrency: CONCURRENCY,
    weight: (st) => dur.get(st.id)!,
    outputIntervalMs: 0,
    random: seededRandom(seed * 31 + capacity),
    maxRateLimitRequeues: 10_000,
  });
  const r = await clock.runUntil(s.run());
  if (r.status !== 'succeeded') throw new Error(`rate-limit bench run ended ${r.status}`);
  const work = [...dur.values()].reduce((a, b) => a + b, 0);
  return { makespan: clock.now(), floor: work / capacity, attempts: provider.attempts, limited: provider.limited };
}

export async function benchRateLimits(): Promise<void> {
  const seeds = envInt('BRAID_BENCH_RL_SEEDS', 5);
  console.log("\n### Throughput under a provider's limit (simulated clock)\n");
  console.log(
    `${STEPS} agent steps of 30–90 s, concurrency ${CONCURRENCY}, against a provider serving at most R at once (429 past it after 1 s, with a reset hint: its earliest session's end).`,
  );
  console.log(
    'makespan ÷ floor (work ÷ R) and 429s ÷ attempts, worst of the seeds; baseline: 16 at once, each 429 retried at its hint, no pool. Goals: Braid ≤ 1.15 and ≤ 10 %.\n',
  );
  const rows: string[][] = [];
  for (const R of [2, 5, 10]) {
    let worst = { ratio: 0, share: 0 };
    let base = { ratio: 0, share: 0 };
    for (let seed = 1; seed <= seeds; seed++) {
      const b = await simulate(R, seed, true);
      const f = await simulate(R, seed, false);
      worst = {
        ratio: Math.max(worst.ratio, b.makespan / b.floor),
        share: Math.max(worst.share, b.limited / b.attempts),
      };
      base = { ratio: Math.max(base.ratio, f.makespan / f.floor), share: Math.max(base.share, f.limited / f.attempts) };
    }
    rows.push([
      String(R),
      String(seeds),
      goal(fixed(worst.ratio), worst.ratio <= 1.15, '≤ 1.15'),
      goal(`${fixed(worst.share * 100, 1)} %`, worst.share <= 0.1, '≤ 10 %'),
      fixed(base.ratio),
      `${fixed(base.share * 100, 1)} %`,
    ]);
  }
  table(['R', 'seeds', 'braid makespan ÷ floor', 'braid 429s', 'baseline ÷ floor', 'baseline 429s'], rows);
}
