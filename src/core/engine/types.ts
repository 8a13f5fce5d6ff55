// What the engine's parts exchange: an attempt's context and result, a runner, the events. The
// status vocabulary they use is src/core/status.ts.
import type { GraphStep } from '../plan/types';
import type { ChangeRecord } from './isolation/changeRecord';
import type { ReasonCode, StepStatus } from '../status';

/** The outcome of one attempt of one step, as a runner reports it. */
export interface AttemptResult {
  /** `review`: a `review: true` step succeeded and its change waits for `approve` or `reject`. */
  readonly status: 'succeeded' | 'failed' | 'canceled' | 'conflict' | 'review';
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly reason?: ReasonCode;
  /** Human sentence for the reason, e.g. "timed out after 20m". */
  readonly message?: string;
  readonly durationMs: number;
  /** The step's output for dependents (`${{ steps.X.output }}`). */
  readonly output?: string;
  /** What an agent step's agent reported (session, turns, tokens, cost). */
  readonly agent?: AgentUsage;
  /** A failure another attempt would only repeat (the agent's executable is missing): `retries` are not spent on it. */
  readonly permanent?: boolean;
  /** With reason `rate-limited`: the agent hit its rate or usage limit (requeued, not failed). */
  readonly rateLimit?: { readonly resetAt?: Date; readonly evidence?: string };
  /** A failed agent attempt: the end of what the failure printed (its `check`'s output, else its own), for the next attempt. */
  readonly failureOutput?: string;
  /** With status `conflict`: the paths that did not merge. */
  readonly conflictPaths?: readonly string[];
  /** The last number the step's `check` printed (a best-of step's `pick: check` ranks by it). */
  readonly score?: number;
}

/** Why an agent step's previous attempt failed, which its next attempt is told (retryPrompt.ts). */
export interface PreviousAttempt {
  readonly attempt: number;
  /** The failed attempt's message ("check failed (exit 1): npm test"). */
  readonly reason: string;
  /** The end of its check's output, else of its own. */
  readonly output: string;
  /** Its agent session, which the next attempt continues where the CLI can. */
  readonly sessionId?: string;
}

/** Whether a cost is the agent's own figure (claude) or Braid's estimate from its tokens and a price table (cost/); `mixed`: a sum of both. */
export type CostSource = 'reported' | 'estimated' | 'mixed';

/**
 * An agent's session and spending as it reported them; a field is absent when it never said.
 * Tokens: `inputTokens` counts every input token (`cachedInputTokens` is the part served from a
 * cache), `outputTokens` every output token (`reasoningTokens` is the part spent thinking).
 */
export interface AgentUsage {
  readonly sessionId?: string;
  /** The model that used the tokens (as the agent said, else the step's `model` or the CLI's configured one). */
  readonly model?: string;
  readonly turns?: number;
  readonly inputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly outputTokens?: number;
  readonly reasoningTokens?: number;
  readonly costUsd?: number;
  /** With costUsd: `reported` by the agent, or `estimated` by Braid. */
  readonly costSource?: CostSource;
  /** Tokens but no cost: why ("cost unknown: no price for MODEL"). Never a cost of 0. */
  readonly costUnknown?: string;
}

/** Progress of a running agent attempt: usage so far (this attempt only) and its last readable line. */
export interface AgentProgress extends AgentUsage {
  readonly activity?: string;
}

export type OutputStream = 'stdout' | 'stderr';

/** What the scheduler hands a runner for one attempt. */
export interface AttemptContext {
  readonly runId: string;
  readonly step: GraphStep;
  readonly attempt: number;
  /** Outputs and statuses of finished steps, for templates. */
  readonly outputs: ReadonlyMap<string, string>;
  readonly statuses: ReadonlyMap<string, StepStatus>;
  readonly signal: AbortSignal;
  /** A retry of an agent step: why the attempt before it failed (rate-limited attempts aside). */
  readonly previous?: PreviousAttempt;
  /**
   * Stream a chunk of the step's output to the event bus (the runner writes the log itself);
   * `alternative`: it is that alternative's of a best-of step (alternatives.ts tags it).
   */
  onOutput(stream: OutputStream, text: string, alternative?: number): void;
  /** An agent attempt's progress, whenever its session, usage or activity changes (the scheduler throttles events). */
  onAgent?(progress: AgentProgress): void;
  /**
   * Set for one alternative of a best-of step (scheduling/alternatives.ts): once it has succeeded
   * (check included) and committed its change, the isolator asks before merging back; true lands it,
   * false drops it (another alternative won, or the race was canceled).
   */
  settle?(result: AttemptResult): Promise<boolean>;
  /** This attempt answers the conflict the step's last attempt ended in (`on-conflict`, `braid resolve`). */
  readonly conflict?: ConflictAttempt;
}

/** An attempt that answers a conflict: `resolve` merges in its worktree and runs its agent there; `rerun` runs the step again on the workspace as it is now. */
export interface ConflictAttempt {
  readonly mode: 'resolve' | 'rerun';
  /** The agent that resolves (`braid resolve --agent`); default the step's own. */
  readonly agent?: string;
  /** The session of the step's last attempt, which the resolution continues where the CLI can. */
  readonly sessionId?: string;
  /** The paths that did not merge, as the conflict named them. */
  readonly paths?: readonly string[];
  /** The change that could not land, as its record has it (a run that ended: the worktree isolator of this process never held it). */
  readonly change?: { readonly base: string; readonly commit: string };
}

/** What a resolution's agent is told: the conflicted files and who changed each in the workspace (no step: the user). */
export interface Resolving {
  readonly files: readonly string[];
  readonly changedBy: ReadonlyMap<string, readonly string[]>;
  readonly agent?: string;
  readonly sessionId?: string;
}

/** Executes attempts; the scheduler knows nothing else about processes, git or files. */
export interface StepRunner {
  execute(ctx: AttemptContext): Promise<AttemptResult>;
  /** Lands the change of a step in `review` (or `conflict`, merged again); undefined when it has none waiting. */
  land?(stepId: string, signal: AbortSignal): Promise<AttemptResult | undefined>;
  /** A step in `review` was rejected: its change is dropped from what may land (its worktree stays). */
  reject?(stepId: string): void;
  /**
   * A best-of step ended: `winner` (an alternative's step id) gives the step its output; the
   * alternatives' worktrees are removed (`none` kept), or all kept for a look when the step failed.
   */
  alternativesSettled?(
    stepId: string,
    winner: string | undefined,
    losers: readonly string[],
    keep: 'all' | 'none',
  ): Promise<void>;
}

/** One attempt's agent usage as a `step` event carries it once the attempt ended (AgentUsage says what each field counts). */
export interface AttemptUsage {
  readonly model?: string;
  /** From the attempt's final report: its turns and its session. */
  readonly turns?: number;
  readonly sessionId?: string;
  readonly inputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly outputTokens?: number;
  readonly reasoningTokens?: number;
  readonly costUsd?: number;
  readonly costSource?: CostSource;
  readonly costUnknown?: string;
}

/** One alternative of a best-of step as events and run.json show it. */
export interface AlternativeSummary {
  readonly index: number;
  readonly status: string;
  readonly attempts: number;
  readonly costUsd?: number;
  readonly costSource?: CostSource;
  readonly inputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly outputTokens?: number;
  readonly reasoningTokens?: number;
  readonly score?: number;
  readonly message?: string;
  /** Once the step ended: where its worktree is kept (a failed one's), and its change (a commit, or its tree as it ended). */
  readonly worktree?: string;
  readonly changes?: ChangeRecord;
}

interface EventBase {
  readonly time: string;
  readonly run: string;
}

/** The engine's events, exactly the CLI's `--json` objects (cli.md). */
export type EngineEvent =
  | (EventBase & {
      readonly type: 'run';
      readonly status: 'started' | 'succeeded' | 'failed' | 'canceled';
      readonly plan: string;
      readonly steps: number;
      /** At the end: what the run's agents spent (reported or estimated), when any said. */
      readonly costUsd?: number;
      readonly costSource?: CostSource;
      /** At the end: `budget` when the run stopped at its `max-cost-usd`. */
      readonly reason?: 'budget';
    })
  | (EventBase & {
      readonly type: 'step';
      readonly id: string;
      readonly status: StepStatus;
      readonly attempt: number;
      readonly exitCode?: number | null;
      readonly signal?: string | null;
      /** The step record's own fields: `reason` the code, `message` the sentence (status.ts's `endSentence` reads them). */
      readonly reason?: ReasonCode;
      readonly message?: string;
      /** While it waits for a lock: `waiting` before it starts, or `running` (a worktree step) before its merge-back; absent once granted. */
      readonly waitingFor?: { readonly holder: string; readonly paths: readonly string[] };
      /** `waiting` out a retry delay or a rate limit: when the next attempt starts (ISO-8601). */
      readonly retryAt?: string;
      /** Terminal events of agent steps: the step's cost in this run (every attempt), reported or estimated. */
      readonly costUsd?: number;
      readonly costSource?: CostSource;
      /** Agent steps, once attempt `attempt` ended: its tokens and cost. */
      readonly usage?: AttemptUsage;
      /** Best-of steps: each alternative as it stands, on every change of one while they race and at the end; the winner's index once chosen. */
      readonly alternatives?: readonly AlternativeSummary[];
      readonly winner?: number;
      /** A need `--only` did not run: the run that ran it (with the same content) and the time it spent running there. */
      readonly reused?: { readonly run: string; readonly endedAt?: string; readonly durationMs?: number };
      /** Why it won: `first to pass`, `score 0.93`, `picked`. */
      readonly winnerWhy?: string;
      /** Ended or in `review`: where its worktree is kept for the user, and the change its last attempt committed (a best-of step's: its winner's). */
      readonly worktree?: string;
      readonly changes?: ChangeRecord;
    })
  | (EventBase & {
      /** A running agent step's progress (throttled like output). */
      readonly type: 'agent';
      readonly id: string;
      readonly attempt: number;
      readonly sessionId?: string;
      readonly model?: string;
      readonly turns?: number;
      /** The running attempt's tokens so far (AgentUsage says what each counts). */
      readonly inputTokens?: number;
      readonly cachedInputTokens?: number;
      readonly outputTokens?: number;
      readonly reasoningTokens?: number;
      /** The step's cost so far in this run (every attempt) and its source, the running attempt's, and the whole run's. */
      readonly costUsd?: number;
      readonly costSource?: CostSource;
      readonly attemptCostUsd?: number;
      readonly attemptCostSource?: CostSource;
      readonly runCostUsd?: number;
      /** Tokens but no price: "cost unknown: no price for MODEL". */
      readonly costUnknown?: string;
      /** The agent's last readable line (its words or a tool call). */
      readonly activity?: string;
    })
  | (EventBase & {
      /** The run's spending reached its `max-cost-usd`: no new step starts; then the decision. */
      readonly type: 'budget';
      readonly spentUsd: number;
      readonly budgetUsd: number;
      readonly decision?: 'continue' | 'stop';
      /** A pool's `max-cost-usd` (its steps' spending), not the run's. */
      readonly pool?: string;
    })
  | (EventBase & {
      readonly type: 'output';
      readonly id: string;
      readonly stream: OutputStream;
      readonly text: string;
      /** Lines before `text` left out of the event (a step printing faster than views can show; the log has them). */
      readonly skippedLines?: number;
      /** A best-of step's output: the alternative that printed it (1…N). */
      readonly alternative?: number;
    })
  | (EventBase & {
      readonly type: 'lock';
      readonly id: string;
      readonly waitingFor: string;
      readonly paths: readonly string[];
    });
