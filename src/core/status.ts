// Braid's status vocabulary, one place for all of it: the states of a step and of a run, which
// are final, which a retry picks up, the reason codes an attempt or a step ends with, and the
// sentence each code reads as. Pure data: the engine, the records, the CLI and every view use it
// (the webview through src/protocol/webview.ts, which re-declares what the page needs).

/**
 * A step's states. `review`: a worktree step that succeeded and whose change waits for approval
 * before it lands; it holds no slot and no lock, and its dependents wait.
 */
export const STEP_STATUSES = [
  'pending',
  'waiting',
  'running',
  'review',
  'succeeded',
  'failed',
  'conflict',
  'canceled',
  'skipped',
  'interrupted',
] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** States a step never leaves in a run. */
export const TERMINAL: ReadonlySet<StepStatus> = new Set<StepStatus>([
  'succeeded',
  'failed',
  'conflict',
  'canceled',
  'skipped',
  'interrupted',
]);

/** A step in progress: it holds or wants a slot, and can be canceled. */
export const ACTIVE: ReadonlySet<StepStatus> = new Set<StepStatus>(['running', 'waiting']);

/**
 * Ended without success in a way a retry can change: what "retry" offers and "retry failed"
 * picks up. A retry with no steps named also re-runs steps its record left unfinished (see
 * `rerunByRetry`).
 */
export const RETRYABLE: ReadonlySet<StepStatus> = new Set<StepStatus>([
  'failed',
  'canceled',
  'skipped',
  'interrupted',
  'conflict',
]);

/** Whether a retry that names no steps runs this one again: every step that did not succeed. */
export function rerunByRetry(status: StepStatus): boolean {
  return status !== 'succeeded';
}

/** The order in which a node drawing several steps (a collapsed matrix group) shows their status: what most needs attention first. */
export const ATTENTION: readonly StepStatus[] = [
  'failed',
  'conflict',
  'interrupted',
  'review',
  'running',
  'waiting',
  'pending',
  'canceled',
  'skipped',
  'succeeded',
];

/** The status one node shows for the steps it draws. */
export function groupStatus(statuses: readonly StepStatus[]): StepStatus {
  if (statuses.length === 1) return statuses[0]!;
  const seen = new Set(statuses);
  return ATTENTION.find((s) => seen.has(s)) ?? 'pending';
}

export const RUN_STATUSES = ['running', 'succeeded', 'failed', 'canceled', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * Why an attempt or a step ended as it did, or why it waits (`pick`: a best-of step with `pick:
 * review` waits for the user's pick, holding no slot); the first reason wins. Records and
 * events carry the code in `reason` and a sentence in `message`.
 */
export const REASON_CODES = [
  'exit',
  'timeout',
  'idle-timeout',
  'canceled',
  'check-failed',
  'spawn-failed',
  'out-of-set',
  'conflict',
  'budget',
  'rate-limited',
  'retry-delay',
  'skipped',
  'not-selected',
  'rejected',
  'pick',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** What a sentence about an end can draw on: a record, a state, an event. */
export interface EndFacts {
  readonly reason?: ReasonCode | undefined;
  readonly message?: string | undefined;
  readonly exitCode?: number | null | undefined;
  readonly signal?: string | null | undefined;
}

/** The sentence a reason code reads as when nothing more specific was said. */
export function reasonSentence(f: EndFacts & { readonly reason: ReasonCode }): string {
  switch (f.reason) {
    case 'exit':
      if (f.signal) return `killed by ${f.signal}`;
      return typeof f.exitCode === 'number' ? `exited with code ${f.exitCode}` : 'exited';
    case 'timeout':
      return 'timed out';
    case 'idle-timeout':
      return 'printed nothing for too long';
    case 'canceled':
      return 'canceled';
    case 'check-failed':
      return 'its check failed';
    case 'spawn-failed':
      return 'could not start';
    case 'out-of-set':
      return 'wrote outside its write set';
    case 'conflict':
      return 'its change conflicted when merged back';
    case 'budget':
      return 'stopped at the budget';
    case 'rate-limited':
      return 'rate-limited';
    case 'retry-delay':
      return 'failed; retrying';
    case 'skipped':
      return 'skipped';
    case 'not-selected':
      return 'not selected for this run';
    case 'rejected':
      return 'its change was rejected';
    case 'pick':
      return 'waiting for a pick among its alternatives';
  }
}

/** The one human line about how a step ended (or why it waits): its message, else its code's sentence. */
export function endSentence(f: EndFacts): string | undefined {
  if (f.message) return f.message;
  return f.reason === undefined ? undefined : reasonSentence({ ...f, reason: f.reason });
}

/**
 * A step's status as the views name it: `reverted` for a landed change `braid revert` took back
 * out (the record keeps `succeeded` and `revertedAt`: the step did succeed).
 */
export function shownStatus(s: {
  readonly status: StepStatus;
  readonly revertedAt?: string | undefined;
}): StepStatus | 'reverted' {
  return s.status === 'succeeded' && s.revertedAt !== undefined ? 'reverted' : s.status;
}
