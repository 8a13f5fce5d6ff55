// What a Scheduler is given and what it gives back, apart from how it schedules: runPlan, the
// CLI, the lock gates and the benches use these without the scheduler's workings.
import type { Disposable } from '../../disposable';
import type { Graph, GraphStep } from '../../plan/types';
import type { RaceOptions } from './alternatives';
import type { BudgetsAsk } from './budgets';
import type { Clock } from './clock';
import type { StepState } from './stepState';
import type { ConflictAttempt, EngineEvent, PreviousAttempt, StepRunner } from '../types';
import type { CostSource } from '../../cost/agentUsage';
import type { IsolationFacts } from './stepEvents';
import type { RunStatus, StepStatus } from '../../status';

/** Steps at once when neither the caller nor the plan says. */
export const DEFAULT_CONCURRENCY = 4;

export type LockGrant = { ok: true; release(): void } | { ok: false; holder: string; paths: readonly string[] };

/** Decides whether a step's locks are free; the scheduler never waits on it while other steps could start. */
export interface LockGate {
  tryAcquire(step: GraphStep): LockGrant | Promise<LockGrant>;
  onRelease(listener: () => void): Disposable;
}

export interface SchedulerOptions {
  readonly graph: Graph;
  readonly runId: string;
  readonly runner: StepRunner;
  readonly concurrency?: number;
  readonly clock?: Clock;
  /** `critical-path` (Braid) or `fifo` (ready order; a baseline for benchmarks). */
  readonly policy?: 'critical-path' | 'fifo';
  /** Expected duration of a step, for priorities. */
  readonly weight?: (step: GraphStep) => number;
  readonly locks?: LockGate;
  /**
   * Which steps hold their locks while they run (default: all, when `locks` is given); a worktree
   * step locks only its merge-back. Priorities then account for the conflicts (lockAwareRanks).
   */
  readonly takesLocks?: (step: GraphStep) => boolean;
  readonly signal?: AbortSignal;
  /** Steps to keep as they are (a retry keeps what succeeded). Every other step runs. */
  readonly keep?: ReadonlyMap<string, { status: StepStatus; output?: string }>;
  /**
   * Whether the kept steps are this run's own (a retry in place): then a kept failure or conflict
   * fails the run as any other. Otherwise (`--from`, `--only`) they were carried over from
   * another run, and the run's result covers what it ran.
   */
  readonly keptAreOwn?: boolean;
  /** Attempts each step recorded in earlier runs of this run id (a retry numbers on from them). */
  readonly attemptsBefore?: ReadonlyMap<string, number>;
  /** `braid retry`: why each agent step's recorded last attempt failed, which its next attempt is told. */
  readonly failedBefore?: ReadonlyMap<string, PreviousAttempt>;
  /** Steps whose first attempt here answers the conflict their last one ended in (`braid resolve`). */
  readonly answers?: ReadonlyMap<string, ConflictAttempt>;
  readonly random?: () => number;
  readonly onEvent?: (event: EngineEvent) => void;
  /** What the isolator kept of each step (its worktree, its change), which its step events carry. */
  readonly isolation?: IsolationFacts;
  readonly outputIntervalMs?: number;
  /** The run's budget; default the plan's `max-cost-usd`. */
  readonly budgetUsd?: number;
  /** Asked when the run's (or a pool's) spending reaches its budget; without it what the budget covers stops there. */
  readonly onBudget?: BudgetsAsk;
  readonly maxRateLimitRequeues?: number;
  /** A best-of step with `pick: review`: resolves to the alternative the user picked (`braid pick`). */
  readonly waitForPick?: RaceOptions['waitForPick'];
}

export interface RunResult {
  readonly status: Exclude<RunStatus, 'running' | 'interrupted'>;
  readonly steps: ReadonlyMap<string, Readonly<StepState>>;
  /** What the run's agents reported spending; absent when none reported a cost. */
  readonly costUsd?: number;
  readonly costSource?: CostSource;
  /** `budget`: the run stopped at its `max-cost-usd`. */
  readonly reason?: 'budget';
}
