// The messages between the extension (client) and the engine process, one JSON object a line over
// the engine's socket. Declared once here; both ends validate every incoming message with these
// schemas and drop (and log) what does not parse, so a bad peer can never crash either end.
import { z } from 'zod';
import { AGENT_PERMISSIONS } from '../core/agents/permission';
import type { BudgetDecision } from '../core/engine/scheduling/budget';
import type { RunRecord, RunSummary } from '../core/engine/records/runRecord';
import { engineEventSchema, RUN_ENDS } from '../core/engine/eventSchema';
import type { EngineEvent } from '../core/engine/types';
import { exact, type Exact } from '../core/exact';
import { RUN_STATUSES, STEP_STATUSES } from '../core/status';
import { REVIEW_ACTIONS, reviewResultsSchema } from '../core/engine/review/reviewInbox';
import type { CompileOptions } from '../core/plan/compile';
import type { Diagnostic } from '../core/plan/types';

/** Bumped on any incompatible change; the engine refuses a `hello` that speaks another version. */
// 2: `retry.resume`, `budgetDecision`, `pendingBudget` on snapshot records (an engine of 1 would drop them unanswered).
// 3: `compile.permission` (an engine of 2 would strip it and run every agent with `edit`).
// 4: step events carry `reason` as a code and `message` as the sentence (3 put the sentence in
//    `reason`); the `review` step state.
// 5: `review` requests (approve, reject, merge again, revert a step's recorded change).
// 6: `retry.resolve` (an engine of 5 would strip it and run the step again from scratch, a new paid session).
export const PROTOCOL_VERSION = 6;

const requestId = z.number().int().nonnegative();
// The run store's id rule: nothing that could leave `.braid/runs/`.
const runId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'not a run id');
const stepId = z.string().min(1).max(200);
const stepStatus = z.enum(STEP_STATUSES);
const concurrency = z.number().int().min(1);
const cost = z.number().nonnegative();
const budgetDecision = z.enum(['continue', 'stop']);
// USD per million tokens by model (cost/prices.ts); bounded, as anything a window sends.
const prices = z
  .record(z.string().min(1).max(200), z.object({ input: cost, cachedInput: cost.optional(), output: cost }))
  .refine((r) => Object.keys(r).length <= 1000, 'at most 1000 prices');

/** The extension's settings as compile defaults; a plan's own values win. */
export const compileOptionsSchema = z.object({
  agentOverrides: z
    .record(
      z.string(),
      z.object({
        command: z.union([z.string(), z.array(z.string()).readonly()]).optional(),
        env: z.record(z.string(), z.string()).optional(),
      }),
    )
    .optional(),
  defaultIsolation: z.enum(['shared', 'worktree']).optional(),
  /** What the presets' CLIs may do unasked (the `braid.agentPermission` setting); the engine's default is `edit`. */
  permission: z.enum(AGENT_PERMISSIONS).optional(),
});

// ── client → engine: requests, each answered by one `reply` with the same id ──────────────────

/** The user's own watchers of a run (settings `braid.otel.endpoint`, `braid.notify`), besides the plan's and the environment's. */
const watch = z.object({
  otelEndpoint: z.string().max(2048).optional(),
  notify: z.array(z.string().max(2048)).max(20).readonly().optional(),
});

/** client → engine: the first message on a connection; the engine answers, then sends a `snapshot`. */
const hello = z.object({
  type: z.literal('hello'),
  id: requestId,
  protocol: z.number().int(),
  client: z.string().max(200),
});
/** client → engine: start a plan; the reply comes as soon as the run has started (or failed to). */
const run = z.object({
  type: z.literal('run'),
  id: requestId,
  /** Absolute, or relative to the engine's workspace. */
  planFile: z.string().min(1),
  only: z.array(stepId).readonly().optional(),
  from: stepId.optional(),
  /** With `only`: run its needs again rather than reuse what they did before with the same content. */
  fresh: z.boolean().optional(),
  concurrency: concurrency.optional(),
  compile: compileOptionsSchema.optional(),
  /** The user's prices (`braid.prices`), USD per million tokens by model. */
  prices: prices.optional(),
  watch: watch.optional(),
});
/** client → engine: re-run a run's failed/canceled/skipped/interrupted steps (or `steps`) in place. */
const retry = z.object({
  type: z.literal('retry'),
  id: requestId,
  runId,
  steps: z.array(stepId).readonly().optional(),
  concurrency: concurrency.optional(),
  compile: compileOptionsSchema.optional(),
  watch: watch.optional(),
  /** Agent steps whose last attempt recorded a session continue it (when their agent can resume) instead of starting over. */
  resume: z.boolean().optional(),
  /** `braid resolve`: the one step in `steps` resolves its conflict first, with its agent or this one. */
  resolve: z.object({ step: stepId, agent: z.string().min(1).max(200).optional() }).optional(),
  prices: prices.optional(),
});
/**
 * client → engine: the answer to a run held at its `max-cost-usd` (a `budget` event without
 * `decision`, or a snapshot record's `pendingBudget`). The first answer from any window wins; the
 * reply says whether this one did. The outcome reaches every window as a `budget` event with `decision`.
 */
const budgetDecisionRequest = z.object({
  type: z.literal('budgetDecision'),
  id: requestId,
  runId,
  decision: budgetDecision,
});
/** client → engine: cancel a whole active run. */
const cancelRun = z.object({ type: z.literal('cancelRun'), id: requestId, runId });
/** client → engine: cancel one step of an active run (kill it, or never start it). */
const cancelStep = z.object({ type: z.literal('cancelStep'), id: requestId, runId, stepId });
/**
 * client → engine: approve or reject steps in `review`, merge a `conflict` step's change again, or
 * revert a landed one. Carried out by the run's own process while it goes on (wherever it runs),
 * else by the engine from the record; a wrong state fails the request and changes nothing.
 */
const review = z.object({
  type: z.literal('review'),
  id: requestId,
  runId,
  action: z.enum(REVIEW_ACTIONS),
  steps: z.array(stepId).min(1).readonly(),
  reason: z.string().max(2000).optional(),
});
/** client → engine: the workspace's recorded runs, and which of them this engine is running. */
const listRuns = z.object({ type: z.literal('listRuns'), id: requestId });
/** client → engine: cancel every run (records written), answer, and exit. */
const shutdown = z.object({ type: z.literal('shutdown'), id: requestId });

export const clientMessageSchema = z.discriminatedUnion('type', [
  hello,
  run,
  retry,
  budgetDecisionRequest,
  cancelRun,
  cancelStep,
  review,
  listRuns,
  shutdown,
]);
export type ClientMessage = Exact<z.infer<typeof clientMessageSchema>>;
export type RequestType = ClientMessage['type'];
export type RequestOf<T extends RequestType> = Extract<ClientMessage, { type: T }>;
/** What a caller passes for a request: the message without its framing fields. */
export type RequestParams<T extends RequestType> = Omit<RequestOf<T>, 'type' | 'id'>;

// ── what each request's successful reply carries ─────────────────────────────────────────────

const runSummarySchema = z.object({
  id: runId,
  planFile: z.string(),
  planName: z.string(),
  status: z.enum(RUN_STATUSES),
  createdAt: z.string(),
  endedAt: z.string().optional(),
  counts: z.record(stepStatus, z.number()),
});

export const resultSchemas = {
  hello: z.object({ protocol: z.number().int(), pid: z.number().int(), workspace: z.string() }),
  run: z.object({ runId }),
  retry: z.object({ runId }),
  /** `accepted: false`: the run was no longer waiting for a decision (another answer, or the timeout, came first). */
  budgetDecision: z.object({ accepted: z.boolean() }),
  cancelRun: z.object({}),
  cancelStep: z.object({}),
  /** Each step's outcome: its status after, or (`ok: false`) why nothing was done to it. */
  review: z.object({ results: reviewResultsSchema }),
  listRuns: z.object({ active: z.array(runId), runs: z.array(runSummarySchema) }),
  shutdown: z.object({}),
} as const satisfies Record<RequestType, z.ZodType>;
export type ResultOf<T extends RequestType> = Exact<z.infer<(typeof resultSchemas)[T]>>;

// ── engine → client ──────────────────────────────────────────────────────────────────────────

const position = z.object({ line: z.number().int(), column: z.number().int() });
const diagnosticSchema = z.object({
  file: z.string(),
  range: z.object({ start: position, end: position }),
  severity: z.enum(['error', 'warning', 'info']),
  message: z.string(),
  code: z.string(),
});

/** engine → client: the answer to one request; `result` is checked against `resultSchemas`. */
const reply = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('reply'), id: requestId, ok: z.literal(true), result: z.unknown() }),
  z.object({
    type: z.literal('reply'),
    id: requestId,
    ok: z.literal(false),
    error: z.string(),
    /** A plan that does not compile: its problems, for the Problems panel. */
    diagnostics: z.array(diagnosticSchema).optional(),
  }),
]);

// Enough shape to trust a record; loose, so fields the store adds later pass through.
const runRecordSchema = z.looseObject({
  version: z.literal(1),
  id: runId,
  planFile: z.string(),
  planName: z.string(),
  workspace: z.string(),
  status: z.enum(RUN_STATUSES),
  createdAt: z.string(),
  graph: z.looseObject({ steps: z.array(z.looseObject({ id: z.string() })) }),
  steps: z.record(
    z.string(),
    z.looseObject({ id: z.string(), status: stepStatus, attempts: z.array(z.looseObject({})) }),
  ),
  pendingBudget: z.object({ spentUsd: cost, budgetUsd: cost, pool: z.string().optional() }).optional(),
});
/**
 * engine → client: after `hello`, the active runs as they are now, so a reloaded window reattaches.
 * A run held at its budget carries `pendingBudget` (the held `budget` event is not sent again): a
 * window that connects meanwhile asks its user from that, and answers with `budgetDecision`.
 */
const snapshot = z.object({ type: z.literal('snapshot'), runs: z.array(runRecordSchema) });

/** engine → client: one engine event (the CLI's `--json` objects), to every client that said hello. */
const event = z.object({ type: z.literal('event'), event: engineEventSchema });

/** engine → client: a run is over and its record written. */
const runEnded = z.object({
  type: z.literal('runEnded'),
  runId,
  status: z.enum(RUN_ENDS),
  steps: z.record(z.string(), stepStatus),
});

export const engineMessageSchema = z.union([reply, snapshot, event, runEnded]);
type ParsedEngineMessage = Exact<z.infer<typeof engineMessageSchema>>;
export type ReplyMessage = Exact<z.infer<typeof reply>>;
export type RunEndedMessage = Exact<z.infer<typeof runEnded>>;
export type RunEnded = Omit<RunEndedMessage, 'type'>;
/** An active run's record as the engine holds it in memory now (current with every event sent). */
export type LiveRunRecord = RunRecord & {
  /** The run reached its `max-cost-usd` and waits for a `budgetDecision`; no new step starts meanwhile. */
  pendingBudget?: { spentUsd: number; budgetUsd: number; pool?: string };
};
/** The snapshot's records are validated loosely and then trusted as the store's records. */
export type SnapshotMessage = { type: 'snapshot'; runs: LiveRunRecord[] };
export type EventMessage = { type: 'event'; event: EngineEvent };
export type EngineMessage = ReplyMessage | SnapshotMessage | EventMessage | RunEndedMessage;

// The schemas and the core's types must describe the same objects; this fails to compile if not.
// (EngineEvent is inferred from engineEventSchema itself: src/core/engine/eventSchema.ts.)
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const summariesAgree: Same<Exact<z.infer<typeof runSummarySchema>>, RunSummary> = true;
const diagnosticsAgree: [Diagnostic] extends [z.infer<typeof diagnosticSchema>] ? true : false = true;
const decisionsAgree: Same<z.infer<typeof budgetDecision>, BudgetDecision> = true;
const compileAgrees: [Exact<z.infer<typeof compileOptionsSchema>>] extends [CompileOptions] ? true : false = true;
void summariesAgree;
void diagnosticsAgree;
void decisionsAgree;
void compileAgrees;

export type Parsed<T> = { ok: true; message: T } | { ok: false; error: string };

/** One line from a client: JSON, then the schema. Never throws. */
export function parseClientMessage(line: string): Parsed<ClientMessage> {
  return parseWith(clientMessageSchema, line);
}

/** One line from the engine: JSON, then the schema. Never throws. */
export function parseEngineMessage(line: string): Parsed<EngineMessage> {
  const r = parseWith(engineMessageSchema, line);
  return r.ok ? { ok: true, message: r.message satisfies ParsedEngineMessage as EngineMessage } : r;
}

/** A reply's result checked against its request's schema. */
export function parseResult<T extends RequestType>(type: T, result: unknown): Parsed<ResultOf<T>> {
  const r = resultSchemas[type].safeParse(result);
  return r.success ? { ok: true, message: r.data as ResultOf<T> } : { ok: false, error: describe(r.error) };
}

/** One message as a line on the wire. */
export function encodeMessage(message: ClientMessage | EngineMessage): string {
  return JSON.stringify(message) + '\n';
}

function parseWith<S extends z.ZodType>(schema: S, line: string): Parsed<Exact<z.infer<S>>> {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return { ok: false, error: `not JSON: ${clip(line)}` };
  }
  const r = schema.safeParse(data);
  return r.success ? { ok: true, message: exact(r.data) } : { ok: false, error: `${describe(r.error)}: ${clip(line)}` };
}

function describe(e: z.ZodError): string {
  return e.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') + ': ' : ''}${i.message}`)
    .join('; ');
}

const clip = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);
