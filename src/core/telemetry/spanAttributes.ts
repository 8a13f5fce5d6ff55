// What a span says about a run, a step, an attempt or an alternative, read from the run's record
// and the plan: Braid's own facts under `braid.*`, the exit code as `process.exit.code`, and the
// GenAI semantic conventions (`gen_ai.*`) for agent attempts. Pure: no OpenTelemetry here.
import type { Graph, GraphStep } from '../plan/types';
import type { AgentDef } from '../agents/agentDef';
import type { AlternativeRecord, AttemptRecord, RunRecord, StepRecord } from '../engine/records/runRecord';

export type SpanAttributes = Record<string, string | number | boolean | string[]>;

/**
 * Fields another part of Braid may add to an attempt (estimated costs for every agent): read when
 * present, so a record with them gives richer spans and one without them still gives these.
 */
interface AttemptExtras {
  readonly model?: string;
  readonly cachedInputTokens?: number;
  readonly reasoningTokens?: number;
  /** Whether `costUsd` is the agent's own figure or Braid's estimate from a price table. */
  readonly costSource?: 'reported' | 'estimated';
}

/** `gen_ai.system` of an agent: the provider its stream format belongs to, else the agent's name (a custom agent). */
export function genAiSystem(agent: AgentDef): string {
  switch (agent.format) {
    case 'claude-stream-json':
      return 'anthropic';
    case 'codex-json':
      return 'openai';
    case 'gemini-json':
      return 'gcp.gemini';
    default:
      return agent.name;
  }
}

const put = (
  into: SpanAttributes,
  key: string,
  value: string | number | boolean | readonly string[] | null | undefined,
): void => {
  if (value === undefined || value === null) return;
  into[key] = Array.isArray(value) ? [...(value as readonly string[])] : (value as string | number | boolean);
};

export function runAttributes(record: Readonly<RunRecord>, steps: number): SpanAttributes {
  return {
    'braid.run.id': record.id,
    'braid.plan.name': record.planName,
    'braid.plan.file': record.planFile,
    'braid.run.steps': steps,
  };
}

export function runEndAttributes(
  record: Readonly<RunRecord>,
  status: string,
  costUsd: number | undefined,
  reason: string | undefined,
): SpanAttributes {
  const a: SpanAttributes = { 'braid.run.status': status };
  put(a, 'braid.run.reason', reason ?? record.reason);
  put(a, 'braid.cost_usd', costUsd ?? record.costUsd);
  return a;
}

/** What the plan says of the step: set when its span starts. */
export function stepAttributes(graph: Graph, step: GraphStep): SpanAttributes {
  const a: SpanAttributes = {
    'braid.step.id': step.id,
    'braid.step.kind': step.kind,
    'braid.step.isolation': step.isolation,
  };
  put(a, 'braid.step.writes', step.writes);
  put(a, 'braid.step.needs', step.needs);
  if (step.kind === 'prompt' && step.agent !== undefined) {
    put(a, 'gen_ai.agent.name', step.agent);
    const agent = graph.agents[step.agent];
    if (agent) put(a, 'gen_ai.system', genAiSystem(agent));
    put(a, 'gen_ai.request.model', step.model);
  }
  if (step.bestOf) put(a, 'braid.step.alternatives', step.bestOf.alternatives.length);
  return a;
}

/** How the step ended, from its record. */
export function stepEndAttributes(rec: StepRecord | undefined, status: string): SpanAttributes {
  const a: SpanAttributes = { 'braid.step.status': status };
  if (!rec) return a;
  put(a, 'braid.step.reason', rec.reason);
  put(a, 'braid.step.message', rec.message);
  put(a, 'process.exit.code', rec.exitCode);
  put(a, 'braid.step.signal', rec.signal);
  put(a, 'braid.step.attempts', rec.attempts.length);
  put(a, 'braid.cost_usd', rec.costUsd);
  put(a, 'braid.step.winner', rec.winner);
  put(a, 'braid.step.winner_why', rec.winnerWhy);
  put(a, 'braid.step.reused_from', rec.reused?.run);
  if (rec.changes) put(a, 'braid.step.changed_files', rec.changes.files.length);
  return a;
}

/** One attempt: how it ended and, for an agent step, the GenAI attributes of its invocation. */
export function attemptAttributes(
  graph: Graph,
  step: GraphStep,
  att: AttemptRecord | undefined,
  n: number,
): SpanAttributes {
  const a: SpanAttributes = { 'braid.step.id': step.id, 'braid.attempt': n };
  if (step.kind === 'prompt' && step.agent !== undefined) {
    a['gen_ai.operation.name'] = 'invoke_agent';
    a['gen_ai.agent.name'] = step.agent;
    const agent = graph.agents[step.agent];
    if (agent) a['gen_ai.system'] = genAiSystem(agent);
    put(a, 'gen_ai.request.model', step.model);
  }
  if (!att) return a;
  const x = att as AttemptRecord & AttemptExtras;
  put(a, 'braid.attempt.status', att.status);
  put(a, 'braid.attempt.reason', att.reason);
  put(a, 'braid.attempt.message', att.message);
  put(a, 'process.exit.code', att.exitCode);
  put(a, 'braid.attempt.signal', att.signal);
  put(a, 'gen_ai.conversation.id', att.sessionId);
  put(a, 'gen_ai.response.model', x.model);
  put(a, 'gen_ai.usage.input_tokens', att.inputTokens);
  put(a, 'gen_ai.usage.output_tokens', att.outputTokens);
  put(a, 'gen_ai.usage.cached_input_tokens', x.cachedInputTokens);
  put(a, 'gen_ai.usage.reasoning_tokens', x.reasoningTokens);
  put(a, 'braid.agent.turns', att.turns);
  put(a, 'braid.cost_usd', att.costUsd);
  put(a, 'braid.cost_source', x.costSource);
  return a;
}

/** One alternative of a best-of step, as its record says it ended. */
export function alternativeAttributes(
  graph: Graph,
  step: GraphStep,
  alt: AlternativeRecord | undefined,
  index: number,
): SpanAttributes {
  const a: SpanAttributes = { 'braid.step.id': step.id, 'braid.alternative': index };
  const def = step.bestOf?.alternatives.find((d) => d.index === index);
  const agentName = def?.agent ?? step.agent;
  if (step.kind === 'prompt' && agentName !== undefined) {
    a['gen_ai.operation.name'] = 'invoke_agent';
    a['gen_ai.agent.name'] = agentName;
    const agent = graph.agents[agentName];
    if (agent) a['gen_ai.system'] = genAiSystem(agent);
    put(a, 'gen_ai.request.model', def?.model ?? step.model);
  }
  if (!alt) return a;
  put(a, 'braid.alternative.status', alt.status);
  put(a, 'braid.alternative.attempts', alt.attempts);
  put(a, 'braid.alternative.message', alt.message);
  put(a, 'braid.alternative.score', alt.score);
  put(a, 'braid.cost_usd', alt.costUsd);
  return a;
}
