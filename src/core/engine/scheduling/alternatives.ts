// A best-of step's attempt: its N alternatives race, each as a step of its own (`<id>.alt<i>`,
// its own worktree and log), at most `slots` at once, each retried on its own. The pick policy
// chooses one winner; only the winner's change lands (the isolator asks through `settle`), the
// others are canceled or dropped. The scheduler sees one attempt of the step, whose result is
// the winner's, whose cost is every alternative's, and which reports the alternatives as they go.
import { alternativeStep } from '../../plan/alternativeStep';
import type { StepStatus } from '../../status';
import type { AlternativeDef, GraphStep, PickPolicy } from '../../plan/types';
import type { Clock } from './clock';
import { previousAttempt } from './retry';
import type { AgentProgress, AttemptContext, AttemptResult, PreviousAttempt, StepRunner } from '../types';
import type { AgentUsage, CostSource } from '../../cost/agentUsage';
import { joinSource } from './costLedger';

/** The states one alternative of a race takes: a step's, without review, skipped and interrupted. */
export type AlternativeStatus = Extract<
  StepStatus,
  'pending' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'canceled' | 'conflict'
>;

/** One alternative as the record keeps it (run.json: the step's `alternatives`). */
export interface AlternativeState {
  readonly index: number;
  status: AlternativeStatus;
  attempts: number;
  costUsd?: number;
  /** Its attempts' tokens added up, and whether its cost is reported or estimated (AgentUsage). */
  costSource?: CostSource;
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  score?: number;
  message?: string;
}

/** Why the winner won, for the run's summary: `first to pass`, `score 0.93`, `picked`. */
export interface Winner {
  readonly index: number;
  readonly why: string;
}

export interface RaceOptions {
  readonly ctx: AttemptContext;
  readonly runner: StepRunner;
  /** Alternatives at once: the slots the scheduler gave the step. */
  readonly slots: number;
  readonly clock: Clock;
  /** False once the run is canceled or out of budget: no alternative is retried then. */
  going(): boolean;
  /** After every change of an alternative or of the winner. */
  onChange(alternatives: readonly Readonly<AlternativeState>[], winner: Winner | undefined): void;
  /** `pick: review`: resolves to the index the user picked among `candidates`. */
  waitForPick?(stepId: string, candidates: readonly number[], signal: AbortSignal): Promise<number>;
}

/** The slots a best-of step takes: one an alternative, at most the cap (and its pool's). */
export function alternativeSlots(step: GraphStep, cap: number, poolCap: number | undefined): number {
  if (!step.bestOf) return 1;
  return Math.max(1, Math.min(step.bestOf.alternatives.length, cap, poolCap ?? Infinity));
}

interface Racer {
  readonly def: AlternativeDef;
  readonly step: GraphStep;
  readonly state: AlternativeState;
  readonly abort: AbortController;
  spent: AgentUsage;
  current?: AgentProgress;
  result?: AttemptResult;
  /** Its last failed attempt, which an agent's retry is told about (retryPrompt.ts). */
  previous?: PreviousAttempt;
  /** When it passed, in order (1 first): `pick: check` ranks alternatives without a score by it. */
  passedOrder?: number;
  /** Passed (check included) and waiting to hear whether it lands. */
  land?: ((yes: boolean) => void) | undefined;
  passed?: boolean;
}

const addUsage = (a: AgentUsage, b: AgentUsage | undefined): AgentUsage => {
  if (!b) return a;
  const sum = (x: number | undefined, y: number | undefined) =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  const out: { -readonly [K in keyof AgentUsage]: AgentUsage[K] } = { ...a };
  for (const k of [
    'turns',
    'inputTokens',
    'cachedInputTokens',
    'outputTokens',
    'reasoningTokens',
    'costUsd',
  ] as const) {
    const v = sum(a[k], b[k]);
    if (v !== undefined) out[k] = v;
  }
  const source = joinSource(a.costSource, b.costSource);
  if (source !== undefined) out.costSource = source;
  if (b.sessionId !== undefined) out.sessionId = b.sessionId;
  if (b.model !== undefined) out.model = a.model === undefined || a.model === b.model ? b.model : a.model;
  return out;
};

/** Runs the step's alternatives to a winner (or to none); never rejects. */
export async function raceAlternatives(o: RaceOptions): Promise<AttemptResult> {
  const { ctx, runner } = o;
  const step = ctx.step;
  const bestOf = step.bestOf;
  if (!bestOf) throw new Error(`raceAlternatives: step ${step.id} has no alternatives`);
  const started = o.clock.now();
  const pick: PickPolicy = bestOf.pick;
  const racers: Racer[] = bestOf.alternatives.map((def) => ({
    def,
    step: alternativeStep(step, def),
    state: { index: def.index, status: 'pending', attempts: 0 },
    abort: new AbortController(),
    spent: {},
  }));
  let winner = undefined as Winner | undefined;
  const winnerNow = (): Winner | undefined => winner;
  let deciding = false;
  let passed = 0;
  const queue = [...racers];
  const lanes: Promise<void>[] = [];
  // A lane runs queued alternatives one after the other; a passed one waiting for the pick opens another.
  async function lane(): Promise<void> {
    for (let r = queue.shift(); r; r = queue.shift()) await runOne(r);
  }
  const changed = () =>
    o.onChange(
      racers.map((r) => r.state),
      winner,
    );
  const stopAll = (why: unknown) => {
    for (const r of racers) r.abort.abort(why);
  };
  const onParentAbort = () => stopAll(ctx.signal.reason);
  if (ctx.signal.aborted) onParentAbort();
  else ctx.signal.addEventListener('abort', onParentAbort, { once: true });

  const report = () => {
    if (!ctx.onAgent) return;
    let total: AgentUsage = {};
    let activity: string | undefined;
    for (const r of racers) {
      total = addUsage(addUsage(total, r.spent), r.current);
      if (r.current?.activity !== undefined) activity = `alternative ${r.def.index}: ${r.current.activity}`;
    }
    ctx.onAgent({ ...total, ...(activity !== undefined ? { activity } : {}) });
  };

  const choose = (w: Racer, why: string) => {
    winner = { index: w.def.index, why };
    for (const r of racers) {
      if (r === w) continue;
      if (r.land) {
        r.land(false);
        r.land = undefined;
      } else r.abort.abort('lost');
    }
    w.land?.(true);
    w.land = undefined;
    changed();
  };

  // pick check / review: once nothing runs any more, the passed ones are the candidates.
  const maybeDecide = async () => {
    if (pick === 'first' || winner || deciding) return;
    if (
      racers.some(
        (r) =>
          !r.land && (r.state.status === 'pending' || r.state.status === 'running' || r.state.status === 'waiting'),
      )
    )
      return;
    const candidates = racers.filter((r) => r.land);
    if (candidates.length === 0) return;
    if (pick === 'check') {
      // Highest score wins (a check's `score: N` line or $BRAID_SCORE_FILE); ties, and
      // alternatives without a score, go to the one that passed first.
      const ranked = [...candidates].sort(
        (x, y) => (y.state.score ?? -Infinity) - (x.state.score ?? -Infinity) || x.passedOrder! - y.passedOrder!,
      );
      const best = ranked[0]!;
      return choose(
        best,
        best.state.score !== undefined
          ? `score ${best.state.score}`
          : 'first to pass (no check printed a `score: N` line)',
      );
    }
    deciding = true;
    const race = new AbortController();
    const stop = () => race.abort();
    ctx.signal.addEventListener('abort', stop, { once: true });
    try {
      if (!o.waitForPick) throw new Error('no one to pick');
      const n = await o.waitForPick(
        step.id,
        candidates.map((r) => r.def.index),
        race.signal,
      );
      const w = candidates.find((r) => r.def.index === n);
      if (!w) throw new Error(`alternative ${n} did not pass`);
      choose(w, 'picked');
    } catch {
      // No picker, a cancel, or a pick of no candidate: each means none lands, which is what follows.
      for (const r of candidates) {
        r.land?.(false);
        r.land = undefined;
      }
    } finally {
      ctx.signal.removeEventListener('abort', stop);
    }
  };

  const candidate = (r: Racer, res: AttemptResult): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      if (res.score !== undefined) r.state.score = res.score;
      if (winner || r.abort.signal.aborted) return resolve(false);
      r.passed = true;
      r.passedOrder = ++passed;
      if (pick === 'first') {
        r.land = resolve;
        return choose(r, 'first to pass');
      }
      r.land = resolve;
      r.abort.signal.addEventListener(
        'abort',
        () => {
          if (r.land === resolve) {
            r.land = undefined;
            resolve(false);
          }
        },
        { once: true },
      );
      // A passed alternative waiting for the pick runs nothing: the next one takes its slot.
      r.state.status = 'succeeded';
      r.state.message = pick === 'review' ? 'passed; waiting for the pick' : 'passed; waiting for the others';
      if (queue.length > 0) lanes.push(lane());
      changed();
      void maybeDecide();
    });

  const runOne = async (r: Racer): Promise<void> => {
    for (;;) {
      if (r.abort.signal.aborted) {
        r.state.status = 'canceled';
        r.state.message = 'canceled before it started';
        break;
      }
      // Queued behind the others when the run reached its budget: like a step, it no longer starts.
      if (r.state.attempts === 0 && !o.going()) {
        r.state.status = 'canceled';
        r.state.message = 'not started: the run reached its budget';
        break;
      }
      r.state.attempts += 1;
      r.state.status = 'running';
      delete r.state.message;
      changed();
      let settled = false;
      const actx: AttemptContext = {
        runId: ctx.runId,
        step: r.step,
        attempt: r.state.attempts,
        outputs: ctx.outputs,
        statuses: ctx.statuses,
        signal: r.abort.signal,
        ...(r.previous ? { previous: r.previous } : {}),
        // Tagged with its alternative: the views show whose output it is (they race in one step).
        onOutput: (stream, text) => ctx.onOutput(stream, text, r.def.index),
        onAgent: (p) => {
          r.current = p;
          report();
        },
        settle: (res) => {
          settled = true;
          return candidate(r, res);
        },
      };
      let res: AttemptResult;
      try {
        res = await runner.execute(actx);
      } catch (e) {
        res = {
          status: 'failed',
          exitCode: null,
          signal: null,
          reason: 'spawn-failed',
          durationMs: 0,
          message: `runner error: ${e instanceof Error ? e.message : String(e)}`,
        };
      }
      r.spent = addUsage(r.spent, res.agent);
      delete r.current;
      if (r.spent.costUsd !== undefined) r.state.costUsd = r.spent.costUsd;
      if (r.spent.costSource !== undefined) r.state.costSource = r.spent.costSource;
      for (const k of ['inputTokens', 'cachedInputTokens', 'outputTokens', 'reasoningTokens'] as const)
        if (r.spent[k] !== undefined) r.state[k] = r.spent[k];
      // Without an isolator nothing asks before landing: the alternative's success is its candidacy.
      if (res.status === 'succeeded' && !settled && !(await candidate(r, res)))
        res = { ...res, status: 'canceled', reason: 'canceled' };
      if (res.status === 'canceled' && winner && winner.index !== r.def.index)
        res = { ...res, message: `alternative ${winner.index} won` };
      r.result = res;
      if (r.passed && res.status === 'canceled' && winner && winner.index !== r.def.index) {
        r.state.status = 'succeeded';
        r.state.message = `passed${r.state.score !== undefined ? ` (score ${r.state.score})` : ''}; alternative ${winner.index} won`;
        break;
      }
      if (
        res.status === 'failed' &&
        !res.permanent &&
        r.state.attempts <= step.retries &&
        o.going() &&
        !r.abort.signal.aborted &&
        !winner
      ) {
        r.state.status = 'waiting';
        r.state.message = `${res.message ?? 'failed'}; retrying`;
        if (step.kind === 'prompt') r.previous = previousAttempt(r.state.attempts, res);
        changed();
        try {
          await o.clock.sleep(step.retryDelayMs * 2 ** (r.state.attempts - 1), r.abort.signal);
          continue;
        } catch {
          // The sleep rejects only when this racer is aborted: a cancel or another's win.
          r.state.status = 'canceled';
          const w = winnerNow(); // set meanwhile, perhaps
          r.state.message = w ? `alternative ${w.index} won` : 'canceled during retry delay';
          break;
        }
      }
      // An alternative never waits in `review` (its pick is the review; worktreeIsolator.ts): passed is passed.
      r.state.status = res.status === 'review' ? 'succeeded' : res.status;
      const w = winnerNow();
      if (res.message !== undefined) r.state.message = res.message;
      else if (w?.index === r.def.index) r.state.message = `won: ${w.why}`;
      break;
    }
    report();
    changed();
    await maybeDecide();
  };

  // At most `slots` alternatives at once; the next starts when one ends (or passes and waits).
  for (let i = 0; i < Math.max(1, Math.min(o.slots, racers.length)); i++) lanes.push(lane());
  for (let i = 0; i < lanes.length; i++) await lanes[i];
  ctx.signal.removeEventListener('abort', onParentAbort);

  let usage: AgentUsage = {};
  for (const r of racers) usage = addUsage(usage, r.spent);
  const agent = Object.keys(usage).length > 0 ? { agent: usage } : {};
  const won = winner ? racers.find((r) => r.def.index === winner!.index) : undefined;
  const wonResult = won?.result;
  // `review`: the winner's change waits for approval as the step's (a `review: true` step).
  const ok = wonResult?.status === 'succeeded' || wonResult?.status === 'review';
  // Kept for a look when the step failed (every alternative failed, or the winner's merge-back did).
  const keep = ok || (!wonResult && ctx.signal.aborted) ? 'none' : 'all';
  await runner
    .alternativesSettled?.(
      step.id,
      won?.step.id,
      racers.filter((r) => r !== won).map((r) => r.step.id),
      keep,
    )
    .catch(() => {});
  const durationMs = o.clock.now() - started;
  if (won && wonResult) {
    const message = ok
      ? `alternative ${won.def.index} won: ${winner!.why}`
      : `alternative ${won.def.index} won (${winner!.why}) but ${wonResult.message ?? wonResult.status}`;
    // A failed merge-back is the race's end too: a retry of the step would race them all again.
    return { ...wonResult, ...agent, message, durationMs, ...(ok ? {} : { permanent: true }) };
  }
  const base = { exitCode: null, signal: null, durationMs, ...agent };
  if (ctx.signal.aborted)
    return { ...base, status: 'canceled', reason: 'canceled', message: 'canceled while its alternatives raced' };
  const why = racers.map((r) => `${r.def.index}: ${r.result?.message ?? r.state.message ?? r.state.status}`).join('; ');
  const none =
    pick === 'review' && racers.some((r) => r.state.status === 'canceled')
      ? 'no alternative was picked'
      : `all ${racers.length} alternatives failed`;
  // Each alternative had its own retries: a retry of the whole step would repeat them all.
  return { ...base, status: 'failed', reason: 'exit', message: `${none} (${why})`, permanent: true };
}
