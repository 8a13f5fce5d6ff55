// The shapes every layer shares once a plan is compiled. Positions are 0-based (the extension converts).
import type { AgentPermission } from '../agents/permission';
import type { AgentDef } from '../agents/agentDef';

export interface Position {
  readonly line: number;
  readonly column: number;
}

export interface Range {
  readonly start: Position;
  readonly end: Position;
}

export type Severity = 'error' | 'warning' | 'info';

/** A located problem in a plan file: expected failures are data, never exceptions. */
export interface Diagnostic {
  readonly file: string;
  readonly range: Range;
  readonly severity: Severity;
  readonly message: string;
  /** Stable machine-readable kind, e.g. `unknown-key`, `cycle`, `template`. */
  readonly code: string;
  /** A did-you-mean replacement for the text at `range` (quick fixes apply it). */
  readonly suggestion?: string;
}

export type StepKind = 'run' | 'prompt';
export type Isolation = 'shared' | 'worktree';
export type IfCondition = 'always' | 'success' | 'failure';

export type PickPolicy = 'first' | 'check' | 'review';
export type OnConflict = 'resolve' | 'rerun' | 'stop';

/** One alternative of a best-of step: what it changes from the step (unset: the step's). */
export interface AlternativeDef {
  /** 1…N, as `${{ alternative.index }}` and BRAID_ALTERNATIVE. */
  readonly index: number;
  readonly agent?: string;
  readonly model?: string;
  readonly prompt?: string;
  readonly env: Readonly<Record<string, string>>;
}

/** A step that runs as N alternatives racing in their own worktrees; one lands. */
export interface BestOf {
  readonly pick: PickPolicy;
  readonly alternatives: readonly AlternativeDef[];
}

/** One concrete step of the expanded graph (a matrix step yields several). Immutable. */
export interface GraphStep {
  readonly id: string;
  readonly name: string;
  readonly kind: StepKind;
  /** Shell source with templates still in place (`${{ … }}`); rendered at start time. */
  readonly run?: string;
  /** Prompt with templates still in place; rendered at start time. */
  readonly prompt?: string;
  /** Resolved agent name for prompt steps. */
  readonly agent?: string;
  /** Concrete ids this step needs, sorted. */
  readonly needs: readonly string[];
  /** Concrete ids that need this step, sorted. */
  readonly dependents: readonly string[];
  /** Matrix id this step came from and its values, for grouping and `${{ matrix.* }}`. */
  readonly matrix?: { readonly group: string; readonly values: Readonly<Record<string, string>> };
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly writes: readonly string[];
  readonly reads: readonly string[];
  readonly isolation: Isolation;
  readonly timeoutMs?: number;
  readonly idleTimeoutMs?: number;
  readonly pool?: string;
  readonly maxCostUsd?: number;
  readonly setup?: string;
  readonly copy: readonly string[];
  readonly symlink: readonly string[];
  readonly sparse: readonly string[];
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly continueOnError: boolean;
  /** `review: true`: its change waits for `approve` before it lands (worktree steps). */
  readonly review: boolean;
  readonly if: IfCondition;
  readonly check?: string;
  readonly output?: string;
  /** Agent steps: what the step asks its agent's CLI for, as flags (agents/stepAgent.ts); absent: the agent's own (an alternative's `model` overrides the step's). */
  readonly model?: string;
  readonly maxTurns?: number;
  readonly permission?: AgentPermission;
  readonly tools?: readonly string[];
  /** `false`: a retry is not told why the attempt before it failed (default: it is). */
  readonly retryContext?: boolean;
  /** `false`: a retry starts a new agent session instead of continuing the failed one's (default: it continues, where the CLI can). */
  readonly retryResume?: boolean;
  /** When its change cannot land: `resolve` (its agent merges, default for agent steps), `rerun`, `stop` (default for `run` steps). */
  readonly onConflict?: OnConflict;
  /** How many resolutions (or reruns) a conflict gets before the step ends `conflict`; default 1. */
  readonly resolveAttempts?: number;
  /** Run confined by bubblewrap (exec/sandbox.ts): writable only its tree or its writes' folders. */
  readonly sandbox?: boolean;
  /** `best-of` / `alternatives`: the step runs as racing alternatives (engine/scheduling/alternatives.ts). */
  readonly bestOf?: BestOf;
  /** Set on the step an alternative runs as: the best-of step it belongs to and its index. */
  readonly alternative?: { readonly of: string; readonly index: number };
  /** Range of the step's key in the plan file (for code lenses and diagnostics). */
  readonly range: Range;
  /** Longest path (in steps, counting itself) from this step to a sink. */
  readonly depth: number;
}

export interface PlanInfo {
  readonly file: string;
  readonly name: string;
  readonly version: 1;
  readonly concurrency?: number;
  readonly context?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly pools: Readonly<Record<string, number>>;
  /** Pools given a `max-cost-usd`: what the steps of each may spend together in a run. */
  readonly poolBudgets?: Readonly<Record<string, number>>;
  readonly maxCostUsd?: number;
  /** The plan's `prices:` (USD per million tokens by model), which win over the user's and the pinned ones. */
  readonly prices?: Readonly<
    Record<string, { readonly input: number; readonly cachedInput?: number; readonly output: number }>
  >;
  readonly base?: string;
  /** Webhook URLs as written (`${{ env.NAME }}` unresolved): read when the run starts (notify/). */
  readonly notify?: readonly string[];
}

/** The compiled plan: steps in a topological order (ties by file order). */
export interface Graph {
  readonly plan: PlanInfo;
  readonly agents: Readonly<Record<string, AgentDef>>;
  readonly steps: ReadonlyMap<string, GraphStep>;
  readonly order: readonly string[];
}
