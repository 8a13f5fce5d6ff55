// What the scheduler knows of one step in one run; the run store folds it into the step's record.
import type { AgentUsage, StepStatus } from '../types';
import type { AlternativeState, Winner } from './alternatives';

export interface StepState {
  readonly id: string;
  status: StepStatus;
  /** The number of its latest attempt: a retry of a run goes on from the attempts it recorded. */
  attempt: number;
  /** Attempts recorded before this run (a retry): they do not count against `retries`. */
  readonly attemptBase?: number;
  exitCode?: number | null;
  signal?: string | null;
  reason?: string;
  message?: string;
  startedAt?: number;
  endedAt?: number;
  output?: string;
  waitingFor?: { holder: string; paths: readonly string[] };
  /** While waiting out a retry delay or a rate limit: clock time of the next attempt. */
  retryAt?: number;
  /** Rate-limited attempts in this run (they do not count against `retries`). */
  rateLimited?: number;
  /** What the agent reported spending in this run, every attempt (the running one so far). */
  costUsd?: number;
  /** The agent's latest session id, and the running (else last) attempt's usage. */
  sessionId?: string;
  turns?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** The running agent's last readable line. */
  activity?: string;
  /** The usage the last ended attempt reported (what its attempt record keeps). */
  lastUsage?: AgentUsage;
  /** A best-of step's alternatives as they race, and the winner once one is chosen (alternatives.ts). */
  alternatives?: AlternativeState[];
  winner?: Winner;
}

