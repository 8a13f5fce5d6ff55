// The engine's events, declared once as a schema: the type every part of Braid reads
// (EngineEvent, types.ts) is inferred from it, and the engine process's clients check each event
// they receive against it (src/protocol/engine.ts), so the two can never describe different objects.
import { z } from 'zod';
import { COST_SOURCES } from '../cost/agentUsage';
import { REASON_CODES, STEP_STATUSES, type RunStatus } from '../status';

// The run store's id rule (records/runStore.ts): nothing that could leave `.braid/runs/`.
const runId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'not a run id');
const stepId = z.string().min(1).max(200);
const cost = z.number().nonnegative();
const count = z.number().int().nonnegative();
/** The token counts an agent reports, each optional: on a step's usage, an alternative and an agent event. */
const tokens = {
  inputTokens: count.optional(),
  cachedInputTokens: count.optional(),
  outputTokens: count.optional(),
  reasoningTokens: count.optional(),
};
const costSource = z.enum(COST_SOURCES);
const eventBase = { time: z.string(), run: runId };
/** A step's change as run.json keeps it (records/changeRecord.ts). */
const changeRecord = z
  .object({
    commit: z.string(),
    base: z.string(),
    files: z
      .array(
        z
          .object({
            path: z.string(),
            status: z.enum(['added', 'modified', 'deleted', 'renamed']),
            from: z.string().optional(),
            added: count,
            removed: count,
            binary: z.literal(true).optional(),
          })
          .readonly(),
      )
      .readonly(),
  })
  .readonly();

/** How a run ends (`interrupted` is only ever read from a record whose process died). */
export const RUN_ENDS = ['succeeded', 'failed', 'canceled'] as const satisfies readonly RunStatus[];

/** One attempt's agent usage as a `step` event carries it once the attempt ended (AgentUsage says what each field counts). */
export const attemptUsageSchema = z
  .object({
    model: z.string().optional(),
    /** From the attempt's final report: its turns and its session. */
    turns: count.optional(),
    sessionId: z.string().optional(),
    ...tokens,
    costUsd: cost.optional(),
    costSource: costSource.optional(),
    costUnknown: z.string().optional(),
  })
  .readonly();

/** One alternative of a best-of step as events and run.json show it. */
export const alternativeSummarySchema = z.object({
  index: z.number().int(),
  status: z.string(),
  attempts: z.number().int(),
  costUsd: cost.optional(),
  costSource: costSource.optional(),
  ...tokens,
  score: z.number().optional(),
  message: z.string().optional(),
  /** Once the step ended: where its worktree is kept (a failed one's), and its change (a commit, or its tree as it ended). */
  worktree: z.string().optional(),
  changes: changeRecord.optional(),
});

/** The engine's events, exactly the CLI's `--json` objects (cli.md). */
export const engineEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...eventBase,
    type: z.literal('run'),
    status: z.enum(['started', ...RUN_ENDS]),
    plan: z.string(),
    steps: z.number().int(),
    /** At the end: what the run's agents spent (reported or estimated), when any said. */
    costUsd: cost.optional(),
    costSource: costSource.optional(),
    /** At the end: `budget` when the run stopped at its `max-cost-usd`. */
    reason: z.literal('budget').optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('step'),
    id: stepId,
    status: z.enum(STEP_STATUSES),
    attempt: z.number().int(),
    exitCode: z.number().int().nullable().optional(),
    signal: z.string().nullable().optional(),
    /** The step record's own fields: `reason` the code, `message` the sentence (status.ts's `endSentence` reads them). */
    reason: z.enum(REASON_CODES).optional(),
    message: z.string().optional(),
    /** While it waits for a lock: `waiting` before it starts, or `running` (a worktree step) before its merge-back; absent once granted. */
    waitingFor: z
      .object({ holder: z.string(), paths: z.array(z.string()).readonly() })
      .readonly()
      .optional(),
    /** `waiting` out a retry delay or a rate limit: when the next attempt starts (ISO-8601). */
    retryAt: z.string().optional(),
    /** Terminal events of agent steps: the step's cost in this run (every attempt), reported or estimated. */
    costUsd: cost.optional(),
    costSource: costSource.optional(),
    /** Agent steps, once attempt `attempt` ended: its tokens and cost. */
    usage: attemptUsageSchema.optional(),
    /** Best-of steps: each alternative as it stands, on every change of one while they race and at the end; the winner's index once chosen. */
    alternatives: z.array(alternativeSummarySchema).readonly().optional(),
    winner: z.number().int().optional(),
    /** Why it won: `first to pass`, `score 0.93`, `picked`. */
    winnerWhy: z.string().optional(),
    /** Ended or in `review`: where its worktree is kept for the user, and the change its last attempt committed (a best-of step's: its winner's). */
    worktree: z.string().optional(),
    changes: changeRecord.optional(),
    /** A need `--only` did not run: the run that ran it (with the same content) and the time it spent running there. */
    reused: z
      .object({ run: runId, endedAt: z.string().optional(), durationMs: z.number().nonnegative().optional() })
      .readonly()
      .optional(),
  }),
  z.object({
    ...eventBase,
    /** A running agent step's progress (throttled like output). */
    type: z.literal('agent'),
    id: stepId,
    attempt: z.number().int(),
    sessionId: z.string().optional(),
    model: z.string().optional(),
    turns: count.optional(),
    /** The running attempt's tokens so far (AgentUsage says what each counts). */
    ...tokens,
    /** The step's cost so far in this run (every attempt) and its source, the running attempt's, and the whole run's. */
    costUsd: cost.optional(),
    costSource: costSource.optional(),
    attemptCostUsd: cost.optional(),
    attemptCostSource: costSource.optional(),
    runCostUsd: cost.optional(),
    /** Tokens but no price: "cost unknown: no price for MODEL". */
    costUnknown: z.string().optional(),
    /** The agent's last readable line (its words or a tool call). */
    activity: z.string().optional(),
  }),
  z.object({
    ...eventBase,
    /** The run's spending reached its `max-cost-usd`: no new step starts; then the decision. */
    type: z.literal('budget'),
    spentUsd: cost,
    budgetUsd: cost,
    decision: z.enum(['continue', 'stop']).optional(),
    /** A pool's `max-cost-usd` (its steps' spending), not the run's. */
    pool: z.string().optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('output'),
    id: stepId,
    stream: z.enum(['stdout', 'stderr']),
    text: z.string(),
    /** Lines before `text` left out of the event (a step printing faster than views can show; the log has them). */
    skippedLines: count.optional(),
    /** A best-of step's output: the alternative that printed it (1…N). */
    alternative: z.number().int().min(1).optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('lock'),
    id: stepId,
    waitingFor: z.string(),
    paths: z.array(z.string()).readonly(),
  }),
]);
