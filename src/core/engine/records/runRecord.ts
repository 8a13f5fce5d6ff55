// A run's record as run.json holds it (plan-format.md), and the shape a record read from disk must
// have: what every reader of runs shares, apart from how runStore.ts reads and writes the file.
import { z } from 'zod';
import type { ChangeRecord } from './changeRecord';
import type { GraphSnapshot } from './snapshot';
import type { AttemptResult } from '../types';
import type { CostSource } from '../../cost/agentUsage';
import {
  RUN_STATUSES,
  shownStatus,
  STEP_STATUSES,
  type ReasonCode,
  type RunStatus,
  type StepStatus,
} from '../../status';

export interface AttemptRecord {
  attempt: number;
  startedAt: string;
  endedAt?: string;
  exitCode?: number | null;
  signal?: string | null;
  reason?: ReasonCode;
  message?: string;
  durationMs?: number;
  /** How the attempt ended; when absent, a succeeded step's last attempt is taken as its success. */
  status?: AttemptResult['status'];
  /** What its agent reported (agent steps), so far while it runs; AgentUsage (engine/types.ts) says what each counts. */
  sessionId?: string;
  model?: string;
  turns?: number;
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  /** Its cost: `reported` by the agent or `estimated` by Braid from its tokens; `costUnknown` says why there is none. */
  costUsd?: number;
  costSource?: CostSource;
  costUnknown?: string;
  /** The change this attempt committed (worktree steps); kept when a later attempt replaces the step's. */
  changes?: ChangeRecord;
}

export interface StepRecord {
  id: string;
  status: StepStatus;
  attempts: AttemptRecord[];
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  exitCode?: number | null;
  signal?: string | null;
  reason?: ReasonCode;
  message?: string;
  /** While waiting on a lock (a `running` worktree step: its merge-back's). */
  waitingFor?: { holder: string; paths: string[] };
  /** While `waiting` out a retry delay or a rate limit: when the next attempt starts. */
  retryAt?: string;
  /** Where a kept worktree is: an absolute path (records before worktrees left the workspace: workspace-relative). */
  worktree?: string;
  /** What its agents spent, every attempt of every run of it, and whether reported or estimated; and its latest agent session. */
  costUsd?: number;
  costSource?: CostSource;
  sessionId?: string;
  /** Its attempts' tokens added up (agent steps). */
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  /** Worktree steps: the change its last attempt committed (`files: []` when nothing changed). */
  changes?: ChangeRecord;
  /** When `braid revert` took its landed change back out of the workspace. */
  revertedAt?: string;
  /** A best-of step's alternatives (a failed one's kept worktree with it), and the winner's index and why it won. */
  alternatives?: AlternativeRecord[];
  winner?: number;
  winnerWhy?: string;
  /** What the step was defined as when this run ran it (reuse/contentKey.ts). */
  contentKey?: string;
  /**
   * Not run here: the result of the run that ran it with the same content key was reused (`--only`);
   * when it ended there and the time it spent running there.
   */
  reused?: { run: string; endedAt?: string; durationMs?: number };
}

export interface AlternativeRecord {
  index: number;
  status: string;
  attempts: number;
  costUsd?: number;
  score?: number;
  message?: string;
  worktree?: string;
  /** Its change, shaped as a step's (ref `refs/braid/runs/<run>/<step>.alt<i>`): what it committed, or its tree as it ended (a loser's, a failed one's). */
  changes?: ChangeRecord;
}

export interface RunRecord {
  version: 1;
  id: string;
  planFile: string;
  planName: string;
  workspace: string;
  status: RunStatus;
  createdAt: string;
  endedAt?: string;
  /** `budget`: the run stopped at its `max-cost-usd`. */
  reason?: 'budget';
  /** What the run's agents spent (the sum of its steps'), and whether reported, estimated or both. */
  costUsd?: number;
  costSource?: CostSource;
  /** The process that runs it; `procStart` (Linux) tells a reused pid apart. */
  host: { pid: number; hostname: string; procStart?: string };
  /** The plan as it ran. */
  graph: GraphSnapshot;
  steps: Record<string, StepRecord>;
}

export interface RunSummary {
  id: string;
  planFile: string;
  planName: string;
  status: RunStatus;
  createdAt: string;
  endedAt?: string;
  counts: Record<StepStatus, number>;
  /** What its agents spent, reported or estimated. */
  costUsd?: number;
  costSource?: CostSource;
  /** Steps whose landed change `braid revert` took back out (counted here, not as succeeded). */
  reverted?: number;
}

/**
 * The shape run.json must have to be loaded: enough to trust a record from disk (hand edits,
 * older versions, half-copied folders); loose objects, so fields added later survive a load and save.
 */
export const recordSchema = z.looseObject({
  version: z.literal(1),
  id: z.string(),
  planFile: z.string(),
  planName: z.string(),
  workspace: z.string(),
  status: z.enum(RUN_STATUSES),
  createdAt: z.string(),
  endedAt: z.string().optional(),
  host: z.looseObject({ pid: z.number().int(), hostname: z.string() }),
  graph: z.looseObject({
    plan: z.looseObject({ file: z.string(), name: z.string() }),
    agents: z.record(z.string(), z.looseObject({})),
    steps: z
      .array(z.looseObject({ id: z.string() }))
      .refine((steps) => new Set(steps.map((s) => s.id)).size === steps.length, 'duplicate step ids'),
  }),
  steps: z.record(
    z.string(),
    z.looseObject({
      id: z.string(),
      status: z.enum(STEP_STATUSES),
      attempts: z.array(
        z.looseObject({ attempt: z.number(), startedAt: z.string(), durationMs: z.number().optional() }),
      ),
    }),
  ),
});

/** A run's line in a list: its counts of steps by status. */
export function summarize(r: RunRecord): RunSummary {
  const counts = Object.fromEntries(STEP_STATUSES.map((s) => [s, 0])) as Record<StepStatus, number>;
  let reverted = 0;
  for (const s of Object.values(r.steps)) {
    if (shownStatus(s) === 'reverted') reverted++;
    else counts[s.status]++;
  }
  return {
    id: r.id,
    planFile: r.planFile,
    planName: r.planName,
    status: r.status,
    createdAt: r.createdAt,
    ...(r.endedAt !== undefined ? { endedAt: r.endedAt } : {}),
    counts,
    ...(reverted > 0 ? { reverted } : {}),
    ...(r.costUsd !== undefined
      ? { costUsd: r.costUsd, ...(r.costSource !== undefined ? { costSource: r.costSource } : {}) }
      : {}),
  };
}
