// What the engine's parts exchange: an attempt's context and result, a runner, the events. The
// status vocabulary they use is src/core/status.ts.
import type { z } from 'zod';
import type { AgentUsage } from '../cost/agentUsage';
import type { GraphStep } from '../plan/types';
import type { ReasonCode, StepStatus } from '../status';
import type { Exact } from '../exact';
import type { alternativeSummarySchema, attemptUsageSchema, engineEventSchema } from './eventSchema';

/** The outcome of one attempt of one step, as a runner reports it. */
export interface AttemptResult {
  /** `review`: a `review: true` step succeeded and its change waits for `approve` or `reject`. */
  readonly status: Extract<StepStatus, 'succeeded' | 'failed' | 'canceled' | 'conflict' | 'review'>;
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
export type AttemptUsage = Exact<z.infer<typeof attemptUsageSchema>>;

/** One alternative of a best-of step as events and run.json show it. */
export type AlternativeSummary = Readonly<Exact<z.infer<typeof alternativeSummarySchema>>>;

/** The engine's events, exactly the CLI's `--json` objects (cli.md): what eventSchema.ts declares. */
export type EngineEvent = Readonly<Exact<z.infer<typeof engineEventSchema>>>;
