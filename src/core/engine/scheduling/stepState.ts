// What the scheduler knows of one step in one run: the step itself (its status, its attempts so
// far, its spending, how it stands outside an attempt) and its current attempt, made new at each
// start so nothing of one attempt carries into the next. The run store folds both into the
// step's record.
import type { AgentUsage, CostSource } from '../../cost/agentUsage';
import type { ReasonCode, StepStatus } from '../../status';
import type { AlternativeState, Winner } from './alternatives';

/** A lock a step waits for: before its start, or (a worktree step) before its merge-back. */
export interface LockWait {
  readonly holder: string;
  readonly paths: readonly string[];
}

/** One attempt, from its start (clock times). */
export interface AttemptState {
  readonly number: number;
  readonly startedAt: number;
  endedAt?: number;
  /** Its agent's usage: so far while it runs, as it ended after (AgentUsage says what each counts). */
  model?: string;
  turns?: number;
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  costUsd?: number;
  costSource?: CostSource;
  costUnknown?: string;
  /** The running agent's last readable line. */
  activity?: string;
}

/** Why a step stands as it does outside a running attempt: how its last attempt ended, a skip, a cancel, a retry wait. */
export interface StepOutcome {
  exitCode?: number | null;
  signal?: string | null;
  reason?: ReasonCode;
  message?: string;
  /** When the step ended (a terminal status). */
  endedAt?: number;
  /** While waiting out a retry delay or a rate limit: clock time of the next attempt. */
  retryAt?: number;
}

export interface StepState {
  readonly id: string;
  status: StepStatus;
  /** The number of its latest attempt: a retry of a run goes on from the attempts it recorded. */
  attempt: number;
  /** Attempts recorded before this run (a retry): they do not count against `retries`. */
  readonly attemptBase?: number;
  /** The running attempt, else the last one of this run; absent before its first. */
  current?: AttemptState;
  /** Absent while an attempt runs, and before anything happened to the step. */
  outcome?: StepOutcome;
  /** While it waits for a lock. */
  waitingFor?: LockWait;
  output?: string;
  /** Rate-limited attempts in this run (they do not count against `retries`). */
  rateLimited?: number;
  /** What the agent reported spending in this run, every attempt (the running one so far), reported or estimated. */
  costUsd?: number;
  costSource?: CostSource;
  /** The agent's latest session id. */
  sessionId?: string;
  /** The usage the last ended attempt reported (what its attempt record keeps). */
  lastUsage?: AgentUsage;
  /** Attempts in this run that answered a conflict (`on-conflict`); they do not count against `retries`. */
  resolutions?: number;
  /** The conflict the next attempt answers (set when the last one ended `conflict`, taken at its start). */
  answer?: import('../types').ConflictAttempt;
  /** A best-of step's alternatives as they race, and the winner once one is chosen (alternatives.ts). */
  alternatives?: AlternativeState[];
  winner?: Winner;
}
