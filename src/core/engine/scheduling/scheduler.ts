// Continuous, lock-aware scheduling: a step starts the moment its needs are done and a slot, its
// pool and its locks are free; among ready steps the longest remaining critical path goes first
// (when locks contend, the order of a simulated schedule that beats it: lockAwareRanks).
// No waves, no polling: only a completion, a lock release or an elapsed retry delay re-dispatches.
import type { Disposable } from '../../disposable';
import type { Graph, GraphStep } from '../../plan/types';
import { foldUsage } from './agentProgress';
import { raceBestOf, type BestOfHost } from './bestOfAttempt';
import { Budgets } from './budgets';
import { realClock, type Clock } from './clock';
import { RunningAttempt, type AttemptAbort } from './attempt';
import { AttemptReports } from './attemptReports';
import { FAILED, skipReason } from './conditions';
import { CostLedger } from './costLedger';
import { formatUsd } from '../../format';
import { PoolLimits } from './poolLimits';
import { lockAwareRanks } from './lockAwareRanks';
import { criticalPaths } from '../../plan/graph';
import { DEFAULT_WEIGHT_MS } from './priority';
import { ReadyList } from './readyList';
import { nextAttempt, previousAttempt, RetryWaits } from './retry';
import { conflictAnswer, conflictAnswerMessage } from './conflictAnswer';
import { FieldView } from './stateViews';
import { decideReview, type ReviewDecision, type ReviewHost, type ReviewOutcome } from './reviewDecision';
import { DEFAULT_CONCURRENCY, type LockGrant, type RunResult, type SchedulerOptions } from './schedulerOptions';
import { SlotLedger } from './slotLedger';
import { stepEvent, type EventBody } from './stepEvents';
import type { StepOutcome, StepState } from './stepState';
import type { AttemptResult, EngineEvent, PreviousAttempt } from '../types';
import type { StepStatus } from '../../status';
import { TERMINAL } from '../../status';

/** The grant of a step that takes no locks: one shared object, not one a start. */
const NO_LOCKS: LockGrant = { ok: true, release: () => {} };

export class Scheduler {
  private readonly g: Graph;
  private readonly states = new Map<string, StepState>();
  private readonly remaining = new Map<string, number>();
  private readonly rank = new Map<string, number>();
  private readonly ready: ReadyList;
  private readonly running = new Map<string, AttemptAbort>();
  /** Each retried agent step's last failure, which its next attempt is told. */
  private readonly failures: Map<string, PreviousAttempt>;
  private readonly waits: RetryWaits;
  // Every attempt reads these instead of a copy of every step's state (which made a run O(n²)).
  private readonly outputs = new FieldView(this.states, (s) => s.output);
  private readonly statuses = new FieldView(this.states, (s) => s.status);
  private readonly statusOf = (id: string): StepStatus => this.states.get(id)!.status;
  private readonly slots: SlotLedger;
  private readonly bestOfHost: BestOfHost;
  private readonly reviewHost: ReviewHost;
  private readonly clock: Clock;
  private readonly reports: AttemptReports;
  private readonly pools: PoolLimits;
  private readonly budgets: Budgets;
  /** Why a running step was stopped at the run's or its pool's budget (its own budget says its own). */
  private readonly budgetStops = new Map<string, string>();
  private readonly costs = new CostLedger();
  private readonly cap: number;
  private readonly runAbort = new AbortController();
  private dispatching = false;
  private ended = false;
  private again = false;
  /** While > 0, a step's end is being recorded: dispatches wait for it (see attemptEnded). */
  private deferDispatch = 0;
  private dispatchDeferred = false;
  /** Steps not in a terminal state: the run ends when this reaches 0. */
  private unfinished = 0;
  /** Steps in `review`; a canceled run ends with them still there (their change can land later). */
  private readonly inReview = new Set<string>();
  /** Steps whose approval or merge is landing now: a second decision meanwhile is refused. */
  private readonly landing = new Set<string>();
  private done!: (r: RunResult) => void;
  private readonly result = new Promise<RunResult>((r) => {
    this.done = r;
  });
  private releaseSub: Disposable | undefined;

  constructor(private readonly o: SchedulerOptions) {
    this.g = o.graph;
    this.cap = o.concurrency ?? o.graph.plan.concurrency ?? DEFAULT_CONCURRENCY;
    if (!Number.isInteger(this.cap) || this.cap < 1)
      throw new RangeError(`concurrency must be an integer ≥ 1, got ${this.cap}`);
    this.clock = o.clock ?? realClock;
    this.waits = new RetryWaits(this.clock);
    this.failures = new Map(o.failedBefore ?? []);
    this.reports = new AttemptReports(
      {
        state: (id) => this.states.get(id)!,
        running: (id) => this.running.get(id),
        costs: this.costs,
        emit: (e) => this.emit(e),
        checkBudget: () => this.budgets.check(),
        overrun: (step) => this.budgets.overrun(step),
        stoppedAtBudget: (id, why) => this.budgetStops.set(id, why),
      },
      o.outputIntervalMs,
    );
    this.pools = new PoolLimits(this.g.plan.pools, this.cap, this.clock, () => this.dispatch());
    this.slots = new SlotLedger(this.cap, this.pools);
    this.bestOfHost = {
      runId: o.runId,
      runner: o.runner,
      clock: this.clock,
      slots: this.slots,
      waitForPick: o.waitForPick,
      going: () => !this.runAbort.signal.aborted && !this.budgets.run.stopped,
      changed: (st) => this.changed(st),
      flushProgress: (id) => this.reports.flushProgress(id),
      dispatch: () => this.dispatch(),
    };
    this.reviewHost = {
      runId: o.runId,
      graph: this.g,
      runner: o.runner,
      clock: this.clock,
      runSignal: this.runAbort.signal,
      landing: this.landing,
      state: (id) => this.states.get(id),
      changed: (st) => this.changed(st),
      leaveReview: (id, r) => this.leaveReview(id, r),
    };
    this.budgets = new Budgets(
      o.budgetUsd ?? this.g.plan.maxCostUsd,
      this.g.plan.poolBudgets ?? {},
      this.costs,
      o.onBudget,
      {
        reached: (spentUsd, budgetUsd, pool) =>
          this.emit({ type: 'budget', spentUsd, budgetUsd, ...(pool !== undefined ? { pool } : {}) }),
        decided: (decision, spentUsd, budgetUsd, pool) => {
          this.emit({ type: 'budget', spentUsd, budgetUsd, decision, ...(pool !== undefined ? { pool } : {}) });
          if (decision === 'stop') this.stopForBudget(spentUsd, budgetUsd, pool);
          else this.dispatch();
        },
      },
    );
    const weight = o.weight ?? ((s: GraphStep) => DEFAULT_WEIGHT_MS[s.kind]);
    const cp = criticalPaths(this.g, weight);
    const locked =
      o.policy !== 'fifo' && o.locks
        ? lockAwareRanks({ graph: this.g, weight, concurrency: this.cap, takesLocks: o.takesLocks ?? (() => true) })
        : undefined;
    for (const id of this.g.order) this.rank.set(id, o.policy === 'fifo' ? 0 : (locked ?? cp).get(id)!);
    this.ready = new ReadyList(this.g.order, this.rank);
  }

  /** Runs the plan to the end; never rejects for step failures. */
  run(): Promise<RunResult> {
    const { graph: g, keep } = this.o;
    for (const id of g.order) {
      const kept = keep?.get(id);
      const base = this.o.attemptsBefore?.get(id) ?? 0;
      const st: StepState = {
        id,
        status: kept && TERMINAL.has(kept.status) ? kept.status : 'pending',
        attempt: base,
        ...(base > 0 ? { attemptBase: base } : {}),
      };
      if (kept?.output !== undefined) st.output = kept.output;
      const answer = this.o.answers?.get(id);
      if (answer) {
        st.answer = answer;
        st.resolutions = 1;
      }
      this.states.set(id, st);
      if (!TERMINAL.has(st.status)) this.unfinished++;
      this.remaining.set(id, g.steps.get(id)!.needs.length);
    }
    for (const id of g.order) if (TERMINAL.has(this.states.get(id)!.status)) this.settleDependents(id, true);
    this.releaseSub = this.o.locks?.onRelease(() => this.dispatch());
    const signal = this.o.signal;
    if (signal) {
      if (signal.aborted) this.cancel();
      else signal.addEventListener('abort', () => this.cancel(), { once: true });
    }
    for (const id of g.order) {
      if (this.states.get(id)!.status === 'pending' && this.remaining.get(id) === 0) this.evaluate(id);
    }
    this.checkDone();
    this.dispatch();
    return this.result;
  }

  state(id: string): Readonly<StepState> | undefined {
    return this.states.get(id);
  }

  /** Cancels one step: a running attempt is killed; a step not started yet ends `canceled`. */
  cancelStep(id: string): void {
    const st = this.states.get(id);
    if (!st || TERMINAL.has(st.status)) return;
    const ctl = this.running.get(id);
    if (ctl) {
      ctl.abort('canceled');
      return;
    }
    if (this.waits.abort(id, 'canceled')) return;
    this.ready.remove(id);
    this.finish(id, { status: 'canceled', reason: 'canceled', message: 'canceled before it started' });
  }

  /**
   * A running step waits for a lock after it started (a worktree step's merge-back), or got it
   * (`wait` undefined). It stays `running`; its state notes the wait while it lasts, and a `lock`
   * event announces each new holder, as for a step held before its start.
   */
  lockWait(id: string, wait: { readonly holder: string; readonly paths: readonly string[] } | undefined): void {
    const st = this.states.get(id);
    if (!st || st.status !== 'running') return;
    if (wait === undefined) {
      if (st.waitingFor === undefined) return;
      delete st.waitingFor;
      this.changed(st);
      return;
    }
    if (st.waitingFor?.holder === wait.holder) return;
    st.waitingFor = { holder: wait.holder, paths: [...wait.paths] };
    this.changed(st);
    this.emit({ type: 'lock', id, waitingFor: wait.holder, paths: [...wait.paths] });
  }

  /** Cancels the run: running steps are killed, the rest end `canceled`; steps in `review` stay there. */
  cancel(): void {
    if (this.runAbort.signal.aborted) return;
    this.runAbort.abort('canceled');
    for (const ctl of this.running.values()) ctl.abort('canceled');
    for (const id of this.g.order) if (!this.running.has(id) && !this.inReview.has(id)) this.cancelStep(id);
    this.checkDone();
  }

  /** Carries out a user's decision on a step in `review` or `conflict` (reviewDecision.ts). */
  review(id: string, d: ReviewDecision): Promise<ReviewOutcome> {
    return decideReview(this.reviewHost, id, d);
  }

  private evaluate(id: string): void {
    const step = this.g.steps.get(id)!;
    if (this.runAbort.signal.aborted) return this.finish(id, { status: 'canceled', reason: 'canceled' });
    if (this.budgets.stopped(step))
      return this.finish(id, {
        status: 'canceled',
        reason: 'budget',
        message: this.budgets.run.stopped
          ? 'not started: the run reached its budget'
          : `not started: pool ${step.pool} reached its budget`,
      });
    const skip = skipReason(this.g, step, this.statusOf);
    if (skip) return this.finish(id, { status: 'skipped', reason: 'skipped', message: skip });
    this.ready.insert(id);
  }

  /** Starts every ready step that can start now, best first, skipping those held by a lock or pool. */
  private dispatch(): void {
    if (this.deferDispatch > 0) {
      this.dispatchDeferred = true;
      return;
    }
    if (this.dispatching) {
      this.again = true;
      return;
    }
    this.dispatching = true;
    void this.dispatchLoop();
  }

  // `dispatching` is cleared inside the loop, not in a later `.finally`, so a dispatch asked for
  // while it runs is never lost.
  private async dispatchLoop(): Promise<void> {
    try {
      do {
        this.again = false;
        for (let i = 0; i < this.ready.length && this.slots.busy < this.cap && this.budgets.run.open;) {
          const id = this.ready.at(i)!;
          const step = this.g.steps.get(id)!;
          if (!this.slots.poolHasRoom(step) || !this.budgets.open(step)) {
            this.hold(id, undefined);
            i++;
            continue;
          }
          // A best-of step waits for slots enough for its alternatives; what ranks below it waits
          // too, or a stream of one-slot steps would keep it from ever starting.
          if (this.slots.busy + this.slots.slotsOf(step) > this.cap) {
            this.hold(id, undefined);
            break;
          }
          let grant: LockGrant = NO_LOCKS;
          if (this.o.locks && (step.writes.length > 0 || step.reads.length > 0)) {
            const g = this.o.locks.tryAcquire(step);
            grant = g instanceof Promise ? await g : g;
            if (this.ready.at(i) !== id) {
              if (grant.ok) grant.release();
              continue;
            } // the list moved under us
          }
          if (!grant.ok) {
            this.hold(id, { holder: grant.holder, paths: grant.paths });
            i++;
            continue;
          }
          this.ready.removeAt(i);
          this.start(step, grant.release);
        }
        // Steps that became ready but found no slot: only these, so a pass stays O(changes).
        this.ready.takeFresh(this.holdFresh);
      } while (this.again);
    } finally {
      this.dispatching = false;
    }
  }

  private readonly holdFresh = (id: string): void => {
    if (this.states.get(id)!.status === 'pending') this.hold(id, undefined);
  };

  /** Marks a ready step `waiting`, announcing a lock wait once when it begins or changes holder. */
  private hold(id: string, lock: { holder: string; paths: readonly string[] } | undefined): void {
    const st = this.states.get(id)!;
    const newLock = lock && st.waitingFor?.holder !== lock.holder;
    if (lock) st.waitingFor = lock;
    if (st.status === 'waiting' && !newLock) return;
    st.status = 'waiting';
    this.changed(st);
    if (newLock) this.emit({ type: 'lock', id, waitingFor: lock.holder, paths: [...lock.paths] });
  }

  private start(step: GraphStep, release: () => void): void {
    const st = this.states.get(step.id)!;
    this.budgets.track(step);
    st.attempt += 1;
    const answer = st.answer;
    delete st.answer;
    const ctx = new RunningAttempt(
      this.o.runId,
      step,
      st.attempt,
      this.outputs,
      this.statuses,
      this.reports.sink,
      answer ? undefined : this.failures.get(step.id),
      answer,
    );
    const ctl = ctx.abort;
    this.running.set(step.id, ctl);
    const slots = this.slots.take(step);
    st.status = 'running';
    // A new attempt: nothing of the last one, nor of how the step stood meanwhile, carries over.
    st.current = { number: st.attempt, startedAt: this.clock.now() };
    // An attempt that answers a conflict says so while it runs (conflictAnswer.ts).
    if (answer) st.outcome = { reason: 'conflict', message: conflictAnswerMessage(answer, answer.paths) };
    else delete st.outcome;
    delete st.waitingFor;
    this.changed(st);
    // Slots are counted by `busy` and ready steps ordered by ReadyList: the attempt starts now
    // (a runner that throws at once fails the attempt as one that rejects does).
    void new Promise<AttemptResult>((resolve) =>
      resolve(step.bestOf ? raceBestOf(this.bestOfHost, st, ctx, slots) : this.o.runner.execute(ctx)),
    ).then(
      (r) => this.attemptEnded(step, r, ctl, release),
      (err: unknown) =>
        this.attemptEnded(
          step,
          {
            status: 'failed',
            exitCode: null,
            signal: null,
            reason: 'spawn-failed',
            durationMs: 0,
            message: `runner error: ${err instanceof Error ? err.message : String(err)}`,
          },
          ctl,
          release,
        ),
    );
  }

  private attemptEnded(step: GraphStep, r: AttemptResult, ctl: AttemptAbort, release: () => void): void {
    this.running.delete(step.id);
    this.slots.giveBack(step);
    this.reports.flush(step.id);
    const st = this.states.get(step.id)!;
    st.current!.endedAt = this.clock.now();
    foldUsage(st, r.agent, this.costs);
    // Past its own budget, the attempt ends `budget` whatever the process managed to do meanwhile.
    if (ctl.aborted && ctl.reason === 'budget') {
      const why = this.budgetStops.get(step.id);
      this.budgetStops.delete(step.id);
      r = {
        ...r,
        status: 'canceled',
        reason: 'budget',
        message:
          why ??
          `canceled: its cost ${formatUsd(st.costUsd ?? 0)} passed the step's budget ${formatUsd(step.maxCostUsd ?? 0)}`,
      };
    }
    // The lock goes last, so a waiter starts only after this step's end is recorded; and the
    // dispatch waits for the lock, or the freed slot would go to a worse step while the best
    // ready one still saw this step's lock held.
    this.deferDispatch++;
    try {
      this.budgets.check();
      this.settleAttempt(step, r);
    } finally {
      this.deferDispatch--;
      release();
      if (this.dispatchDeferred && this.deferDispatch === 0) {
        this.dispatchDeferred = false;
        this.dispatch();
      }
    }
  }

  private settleAttempt(step: GraphStep, r: AttemptResult): void {
    if (r.status === 'review') return this.enterReview(step.id, r);
    const st = this.states.get(step.id)!;
    if (r.status === 'conflict') return this.answerConflict(step, st, r);
    if (r.status !== 'failed') return this.finish(step.id, r); // only a failure is retried
    const next = nextAttempt({
      step,
      st,
      result: r,
      going: !this.runAbort.signal.aborted && !this.budgets.stopped(step),
      now: this.clock.now(),
      random: this.o.random ?? Math.random,
      ...(this.o.maxRateLimitRequeues !== undefined ? { maxRateLimitRequeues: this.o.maxRateLimitRequeues } : {}),
    });
    if (next.kind === 'finish') return this.finish(step.id, next.result);
    // A rate limit says nothing about the work: the next attempt hears of the last real failure.
    if (next.reason === 'retry-delay' && step.kind === 'prompt')
      this.failures.set(step.id, previousAttempt(st.attempt, r));
    // The pool's cap drops to what the provider is still serving (poolLimits.ts).
    if (next.poolWaitMs !== undefined && step.pool)
      this.pools.limited(step.pool, this.slots.poolBusy(step.pool), next.poolWaitMs);
    // The step waits for its next attempt holding no slot and no lock; cancel still reaches it.
    st.status = 'waiting';
    st.outcome = {
      exitCode: r.exitCode,
      signal: r.signal,
      reason: next.reason,
      message: next.message,
      retryAt: this.clock.now() + next.delayMs,
    };
    this.changed(st);
    this.waits.start(
      step.id,
      next.delayMs,
      () => {
        this.ready.insert(step.id);
        this.dispatch();
      },
      (why) => {
        const budget = why === 'budget';
        this.finish(step.id, {
          status: 'canceled',
          reason: budget ? 'budget' : 'canceled',
          message: budget ? 'not retried: the run reached its budget' : 'canceled during retry delay',
        });
      },
    );
    this.dispatch();
  }

  /** A conflict: answered by another attempt (`on-conflict: resolve | rerun`), which takes a slot as any does, or the step's end. */
  private answerConflict(step: GraphStep, st: StepState, r: AttemptResult): void {
    const answer = conflictAnswer(step, st, r, !this.runAbort.signal.aborted && !this.budgets.stopped(step));
    if (!answer) return this.finish(step.id, r);
    st.resolutions = (st.resolutions ?? 0) + 1;
    st.answer = r.conflictPaths ? { ...answer, paths: r.conflictPaths } : answer;
    st.status = 'waiting';
    st.outcome = {
      exitCode: r.exitCode,
      signal: r.signal,
      reason: 'conflict',
      ...(r.message !== undefined ? { message: r.message } : {}),
    };
    this.changed(st);
    this.ready.insert(step.id);
    this.dispatch();
  }

  /** The step succeeded and its change waits: it holds no slot and no lock, its dependents wait. */
  private enterReview(id: string, r: AttemptResult): void {
    const st = this.states.get(id)!;
    st.status = 'review';
    st.outcome = { endedAt: this.clock.now(), exitCode: r.exitCode, signal: r.signal };
    if (st.current) st.current.endedAt = this.clock.now();
    if (r.output !== undefined) st.output = r.output;
    this.inReview.add(id);
    this.changed(st);
    this.checkDone();
    // Its slot is free: the next ready step takes it.
    this.dispatch();
  }

  private leaveReview(id: string, r: Partial<Omit<AttemptResult, 'status'>> & { status: StepStatus }): void {
    this.inReview.delete(id);
    this.finish(id, r);
  }

  /** A budget is spent and the answer was stop: nothing else it covers starts (the run's steps, or the pool's); running steps finish. */
  private stopForBudget(spentUsd: number, budgetUsd: number, pool?: string): void {
    const message = `not started: ${pool === undefined ? 'the run' : `pool ${pool}`} reached its budget (${formatUsd(spentUsd)} of ${formatUsd(budgetUsd)})`;
    for (const id of this.g.order) {
      const st = this.states.get(id)!;
      if (TERMINAL.has(st.status) || this.running.has(id)) continue;
      if (pool !== undefined && this.g.steps.get(id)!.pool !== pool) continue;
      if (this.waits.abort(id, 'budget')) continue;
      this.ready.remove(id);
      this.finish(id, { status: 'canceled', reason: 'budget', message });
    }
    this.checkDone();
  }

  private finish(id: string, r: Partial<Omit<AttemptResult, 'status'>> & { status: StepStatus }): void {
    const st = this.states.get(id)!;
    if (TERMINAL.has(st.status)) return;
    this.inReview.delete(id);
    st.status = r.status;
    // What the end does not say again (a cancel during a retry delay) stays as the failed attempt left it.
    const { retryAt: _wait, ...before } = st.outcome ?? {};
    const end: StepOutcome = { ...before, endedAt: this.clock.now() };
    if (r.exitCode !== undefined) end.exitCode = r.exitCode;
    if (r.signal !== undefined) end.signal = r.signal;
    if (r.reason !== undefined) end.reason = r.reason;
    if (r.message !== undefined) end.message = r.message;
    st.outcome = end;
    delete st.waitingFor;
    if (st.current) delete st.current.activity;
    if (r.output !== undefined) st.output = r.output;
    this.changed(st);
    this.unfinished--;
    this.settleDependents(id, false);
    this.checkDone();
    this.dispatch();
  }

  private settleDependents(id: string, initial: boolean): void {
    for (const d of this.g.steps.get(id)!.dependents) {
      const left = this.remaining.get(d)! - 1;
      this.remaining.set(d, left);
      if (left === 0 && !initial && this.states.get(d)!.status === 'pending') this.evaluate(d);
    }
  }

  private checkDone(): void {
    // Canceled: what waits for review stays there, and the run ends around it.
    const parked = this.runAbort.signal.aborted ? this.inReview.size : 0;
    if (this.ended || this.unfinished > parked || this.running.size > 0) return;
    this.ended = true;
    this.releaseSub?.dispose();
    this.reports.dispose();
    this.pools.dispose();
    this.budgets.close();
    let status: RunResult['status'] = this.runAbort.signal.aborted ? 'canceled' : 'succeeded';
    if (status === 'succeeded') {
      for (const s of this.states.values()) {
        // A run's result covers what it holds as its own: a failure carried over by `--from` is
        // another run's; one a retry kept (a conflict it did not name) is this run's (issue 31).
        if (this.o.keep?.has(s.id) && !this.o.keptAreOwn) continue;
        if (FAILED.has(s.status) && !this.g.steps.get(s.id)!.continueOnError) {
          status = 'failed';
          break;
        }
      }
    }
    const budget = this.budgets.anyStopped && status !== 'canceled';
    if (budget) status = 'failed';
    this.done({
      status,
      steps: this.states,
      ...(this.costs.reported
        ? { costUsd: this.costs.total(), ...(this.costs.source() ? { costSource: this.costs.source()! } : {}) }
        : {}),
      ...(budget ? { reason: 'budget' as const } : {}),
    });
  }

  private changed(st: StepState): void {
    if (!this.o.onEvent) return; // nobody listens: build no event
    const ev = stepEvent(st, this.o.isolation);
    if (ev) this.emit(ev);
  }

  private emit(e: EventBody): void {
    const on = this.o.onEvent;
    if (!on) return;
    // Every body is a fresh object made for this one event: stamping it spares a copy of it.
    const ev = e as EventBody & { time?: string; run?: string };
    // The run's time: what a record folded from the events (records/stepFold.ts) says a step's times were.
    ev.time = new Date(this.clock.now()).toISOString();
    ev.run = this.o.runId;
    on(ev as EngineEvent);
  }
}
