// Statuses, results and events: one place each.
import type { GraphStep } from '../plan/types';

export const STEP_STATUSES = [
  'pending', 'waiting', 'running', 'succeeded', 'failed', 'conflict', 'canceled', 'skipped', 'interrupted',
] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

export const TERMINAL: ReadonlySet<StepStatus> = new Set<StepStatus>([
  'succeeded', 'failed', 'conflict', 'canceled', 'skipped', 'interrupted',
]);

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'canceled' | 'interrupted';

/** Why an attempt ended other than by exiting on its own. The first reason wins. */
export type EndReason = 'timeout' | 'idle-timeout' | 'canceled' | 'check-failed' | 'spawn-failed'
  | 'out-of-set' | 'conflict' | 'budget' | 'rate-limited' | 'skipped' | 'exit';

/** The outcome of one attempt of one step, as a runner reports it. */
export interface AttemptResult {
  readonly status: 'succeeded' | 'failed' | 'canceled' | 'conflict';
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly reason?: EndReason;
  /** Human sentence for the reason, e.g. "timed out after 20m". */
  readonly message?: string;
  readonly durationMs: number;
  /** The step's output for dependents (`${{ steps.X.output }}`). */
  readonly output?: string;
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
  /** Stream a chunk of the step's output to the event bus (the runner writes the log itself). */
  onOutput(stream: OutputStream, text: string): void;
}

/** Executes attempts; the scheduler knows nothing else about processes, git or files. */
export interface StepRunner {
  execute(ctx: AttemptContext): Promise<AttemptResult>;
}

interface EventBase {
  readonly time: string;
  readonly run: string;
}

/** The engine's events, exactly the CLI's `--json` objects (cli.md). */
export type EngineEvent =
  | (EventBase & { readonly type: 'run'; readonly status: 'started' | 'succeeded' | 'failed' | 'canceled'; readonly plan: string; readonly steps: number })
  | (EventBase & {
      readonly type: 'step'; readonly id: string; readonly status: StepStatus; readonly attempt: number;
      readonly exitCode?: number | null; readonly signal?: string | null; readonly reason?: string;
    })
  | (EventBase & { readonly type: 'output'; readonly id: string; readonly stream: OutputStream; readonly text: string })
  | (EventBase & { readonly type: 'lock'; readonly id: string; readonly waitingFor: string; readonly paths: readonly string[] });
