// Every message between the graph panel's host (src/extension) and its page (webview/), declared
// once. The page is untrusted input: the host parses each incoming message with
// `parseWebviewMessage` and drops (and logs) anything that fails. The page parses the host's
// messages too, with `parseHostMessage`, so a host bug shows as a dropped message, not a crash.
//
// Message flow:
//   1. The page loads and posts `ready`. The host posts nothing before it (a message sent
//      earlier would be lost), and posts everything again after a second `ready` (a reload).
//   2. Host → `graph`: the mermaid text, the node of every step and their statuses. The page
//      lays the diagram out only when `structureKey` differs from the last one; otherwise it
//      just restyles the nodes. Optionally `restore` (the state a `WebviewPanelSerializer`
//      kept) right after `ready`; the page also keeps its own state through setState/getState.
//   3. Host → `status`, as steps change: nodes are restyled in place, never re-laid out.
//   4. Page → `select` when the user picks a node. Host → `log` with `reset: true` (the tail of
//      that step's log, `startLine` its line number in the log file), then further `log`
//      batches as output arrives (at most ~30 a second). A batch that opens an attempt carries
//      `attemptBoundary` (its first line is the attempt's header line, as in the log file).
//   5. Page → `requestLogPage` when the user scrolls above the oldest line it holds; host →
//      `logPage` with the lines just before `beforeLine`.
//   6. Page → `action` for a button (Run plan, Retry, Run from here, Cancel, Open worktree, Retry
//      all failed, Cancel run) and `openLog` for "open in editor". The host acts only on run and
//      step ids it knows; the page learns the outcome from later `graph`/`status` messages.
import { z } from 'zod';
import { ACTIVE, RETRYABLE, STEP_STATUSES, groupStatus } from '../core/status';

// Ids are Braid's own (plan step ids, matrix-expanded ids, run ids): a tight pattern keeps
// anything else, and anything that could mean something in a selector or path, out.
// An alternative of a best-of step is the step's id and `.alt<i>` (the engine's own name for it, its log's too).
const stepId = z.string().regex(/^[A-Za-z0-9_-]{1,512}(\.alt\d{1,2})?$/);
const runId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/);
const lineNumber = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** Mermaid node ids made by `toMermaid`: `n0`, `n1`, … */
const nodeId = z.string().regex(/^n\d{1,7}$/);
// Generous bounds so one malformed message cannot make the page allocate without limit.
const text = (max: number) => z.string().max(max);
const MAX_LINES = 20_000;
const MAX_LINE = 64 * 1024;
/** Problems shown at most when a plan cannot be drawn; the Problems panel has them all. */
export const MAX_PROBLEMS = 50;

export const stepStatusSchema = z.enum(STEP_STATUSES);

// The status vocabulary (src/core/status.ts) as the page sees it: the page imports only src/protocol.
export type StepStatus = z.infer<typeof stepStatusSchema>;
export const stepStatuses: readonly StepStatus[] = STEP_STATUSES;
/** Running or waiting: a step in progress, which can be canceled. */
export const activeStatuses: ReadonlySet<StepStatus> = ACTIVE;
/** Ended without success in a way a retry can change. */
export const retryableStatuses: ReadonlySet<StepStatus> = RETRYABLE;
/** The status one node shows for the steps it draws (a collapsed matrix group: what most needs attention). */
export const nodeStatus: (statuses: readonly StepStatus[]) => StepStatus = groupStatus;
/** A matrix group's counts in one line (`7/10 ✓ · 2 ▶ · 1 ✗`), as the tree and the lenses say them. */
export { groupCounts, groupCountsText } from '../core/plan/groupCounts';

export const ACTIONS = [
  'run-plan',
  'retry',
  'run-from',
  'cancel',
  'open-worktree',
  'retry-failed',
  'cancel-run',
  'review-changes',
  'approve',
  'reject',
  'merge-again',
  'pick',
] as const;
export type WebviewAction = (typeof ACTIONS)[number];
/** Actions that act on one step and so must name it (`pick`: an alternative of a best-of step). */
export const STEP_ACTIONS: ReadonlySet<WebviewAction> = new Set<WebviewAction>([
  'retry',
  'run-from',
  'cancel',
  'open-worktree',
  'review-changes',
  'approve',
  'reject',
  'merge-again',
  'pick',
]);

// ── webview → host ──────────────────────────────────────────────────────────────────────────

/** webview → host: the page is listening; the host may post from now on. */
export const readyMessage = z.strictObject({ type: z.literal('ready') });

/** webview → host: a button was pressed. Step actions carry the step, run actions the run. */
export const actionMessage = z
  .strictObject({
    type: z.literal('action'),
    action: z.enum(ACTIONS),
    stepId: stepId.optional(),
    runId: runId.optional(),
  })
  .refine((m) => !STEP_ACTIONS.has(m.action) || m.stepId !== undefined, { error: 'this action needs a stepId' });

/** webview → host: the user selected a node; the host starts streaming that step's log. */
export const selectMessage = z.strictObject({ type: z.literal('select'), stepId });

/** webview → host: open the step's log file of this run in an editor. */
export const openLogMessage = z.strictObject({ type: z.literal('openLog'), stepId, runId });

/** webview → host: send the lines of the step's log just before line `beforeLine` (0-based). */
export const requestLogPageMessage = z.strictObject({
  type: z.literal('requestLogPage'),
  runId,
  stepId,
  beforeLine: lineNumber,
});

/** webview → host: reveal problem number `index` of the last `problems` message in the plan's editor. */
export const openProblemMessage = z.strictObject({
  type: z.literal('openProblem'),
  index: z
    .number()
    .int()
    .min(0)
    .max(MAX_PROBLEMS - 1),
});

/** Group ids (a matrix step's id, or a best-of step's) the page keeps expanded; every other group is one node. */
const groupIds = z.array(stepId).max(10_000);

/** webview → host: the user expanded or collapsed a group (matrix or best-of); `groups` are all the expanded ones. */
export const expandGroupsMessage = z.strictObject({ type: z.literal('expandGroups'), groups: groupIds });

export const webviewMessageSchema = z.union([
  readyMessage,
  actionMessage,
  selectMessage,
  openLogMessage,
  requestLogPageMessage,
  openProblemMessage,
  expandGroupsMessage,
]);
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

/** The message, typed, if `raw` is exactly one of the page's messages; otherwise undefined. */
export function parseWebviewMessage(raw: unknown): WebviewMessage | undefined {
  const r = webviewMessageSchema.safeParse(raw);
  return r.success ? r.data : undefined;
}

// ── host → webview ──────────────────────────────────────────────────────────────────────────

export const graphNodeSchema = z.object({
  stepId,
  /** The mermaid node drawing this step; the steps of a collapsed matrix group share one. */
  nodeId,
  name: text(4096),
  agent: text(512).optional(),
  status: stepStatusSchema,
  /** Matrix group the step came from. */
  group: text(4096).optional(),
  /** How long it has run (time spent running, not waiting), as the node shows it: "12.3s". */
  time: text(64).optional(),
  /** One alternative of a best-of step (`group` is that step): its index, 1…N. */
  alternative: z.number().int().min(1).max(99).optional(),
  /** The alternative that won its step. */
  won: z.boolean().optional(),
});
export type GraphNode = z.infer<typeof graphNodeSchema>;

/**
 * A matrix group as drawn: one node (collapsed) or a subgraph of its instances (`clusterId`); or
 * (`alternatives`) a best-of step: one node with its alternatives' counts, or a subgraph of its
 * alternatives beside the step's own node.
 */
export const graphGroupSchema = z.object({
  group: stepId,
  collapsed: z.boolean(),
  alternatives: z.boolean().optional(),
  /** The mermaid subgraph id of an expanded group: `g0`, `g1`, … */
  clusterId: z
    .string()
    .regex(/^g\d{1,7}$/)
    .optional(),
});
export type GraphGroup = z.infer<typeof graphGroupSchema>;

/** The run a graph shows, for the panel's header. */
export const runHeaderSchema = z.object({
  id: runId,
  /** When it started, as epoch ms (the page formats it in the user's locale). */
  startedAt: z.number().int().min(0),
  status: text(32),
  /** Wall time from start to end (or to now while it runs): "2m 5s". */
  duration: text(64),
  /** The plan has a newer run than this one. */
  older: z.boolean(),
  /** What its agents spent so far: "$1.08 est." (est.: Braid's estimate from tokens and prices). */
  cost: text(64).optional(),
});
export type RunHeader = z.infer<typeof runHeaderSchema>;

/** host → webview: the whole picture. Re-laid out only when `structureKey` changes. */
export const graphMessage = z.object({
  type: z.literal('graph'),
  /** `toMermaid(graph)` text. Statuses travel in `nodes`; classes in the text are ignored by the page. */
  mermaid: text(5_000_000),
  nodes: z.array(graphNodeSchema).max(100_000),
  /** The run shown; absent before the first run (the plan as it would run). */
  runId: runId.optional(),
  planName: text(4096),
  /** Changes exactly when the mermaid text's structure does (steps, edges, grouping). */
  structureKey: text(1024),
  /** The matrix groups and how each is drawn. */
  groups: z.array(graphGroupSchema).max(100_000).optional(),
  /** The run shown, for the header; absent before the first run. */
  run: runHeaderSchema.optional(),
});

export const statusUpdateSchema = z.object({
  stepId,
  status: stepStatusSchema,
  attempt: z.number().int().min(1).max(10_000).optional(),
  /** One human line, e.g. "exit 1", "timed out after 20m", "waiting for lock on src/**". */
  detail: text(4096).optional(),
  /** As in GraphNode: how long it has run. Sent each second for running steps. */
  time: text(64).optional(),
  /** An alternative: it won its step. */
  won: z.boolean().optional(),
  /** An alternative the user may pick now, or a best-of step whose race waits for the user's pick. */
  pick: z.boolean().optional(),
});
export type StatusUpdate = z.infer<typeof statusUpdateSchema>;

/** host → webview: some steps changed status; nodes are restyled in place. */
export const statusMessage = z.object({
  type: z.literal('status'),
  runId: runId.optional(),
  updates: z.array(statusUpdateSchema).max(100_000),
  /** The run's header anew (its status or duration changed). */
  run: runHeaderSchema.optional(),
});

/** host → webview: new lines of a step's log (a batch, complete lines without their newline). */
export const logMessage = z.object({
  type: z.literal('log'),
  runId,
  stepId,
  lines: z.array(text(MAX_LINE)).max(MAX_LINES),
  /** Drop what the page holds for this step first (a new selection, a new run). */
  reset: z.boolean().optional(),
  /** Line number in the log file of `lines[0]`; with `reset`, where the held lines start. */
  startLine: lineNumber.optional(),
  /** `lines[0]` is the header line opening this attempt. */
  attemptBoundary: z.number().int().min(1).max(10_000).optional(),
  /** Indexes into `lines` of those the step wrote to stderr (live output only: the file mixes them). */
  stderr: z
    .array(
      z
        .number()
        .int()
        .min(0)
        .max(MAX_LINES - 1),
    )
    .max(MAX_LINES)
    .optional(),
});

/** host → webview: the reply to `requestLogPage`: the lines `[startLine, beforeLine)`. */
export const logPageMessage = z.object({
  type: z.literal('logPage'),
  runId,
  stepId,
  beforeLine: lineNumber,
  startLine: lineNumber,
  lines: z.array(text(MAX_LINE)).max(MAX_LINES),
});

/** What the page keeps across reloads (setState/getState, and a serializer's `restore`). */
export const webviewStateSchema = z.object({
  selectedStepId: stepId.optional(),
  runId: runId.optional(),
  follow: z.boolean().optional(),
  query: text(256).optional(),
  /** Matrix groups the user expanded (every other group is drawn as one node). */
  expandedGroups: groupIds.optional(),
  /** Show only the steps that failed (the others dimmed). */
  failedOnly: z.boolean().optional(),
});
export type WebviewState = z.infer<typeof webviewStateSchema>;

/** host → webview: state a `WebviewPanelSerializer` restored; applied once the graph is drawn. */
export const restoreMessage = z.object({ type: z.literal('restore'), state: webviewStateSchema });

/** host → webview: the plan cannot be drawn (it does not validate): its problems, located, in place of the graph. */
export const problemsMessage = z.object({
  type: z.literal('problems'),
  file: text(4096),
  problems: z
    .array(
      z.object({
        line: lineNumber,
        column: lineNumber,
        severity: z.enum(['error', 'warning']),
        message: text(4096),
      }),
    )
    .max(MAX_PROBLEMS),
  /** Problems left out past MAX_PROBLEMS. */
  more: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});
export type ProblemsMessage = z.infer<typeof problemsMessage>;

export const hostMessageSchema = z.union([
  graphMessage,
  statusMessage,
  logMessage,
  logPageMessage,
  restoreMessage,
  problemsMessage,
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;
export type GraphMessage = z.infer<typeof graphMessage>;
export type StatusMessage = z.infer<typeof statusMessage>;
export type LogMessage = z.infer<typeof logMessage>;
export type LogPageMessage = z.infer<typeof logPageMessage>;

/** The message, typed, if `raw` is one of the host's messages; otherwise undefined. */
export function parseHostMessage(raw: unknown): HostMessage | undefined {
  const r = hostMessageSchema.safeParse(raw);
  return r.success ? r.data : undefined;
}

/** The header line that opens each attempt in a step's log file (see core/engine/records/stepLog.ts). */
export const ATTEMPT_HEADER = /^─{4} attempt (\d+) · /;
