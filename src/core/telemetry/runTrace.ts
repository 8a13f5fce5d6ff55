// A run's events become one trace: a span for the run, a child for each step, and under a step a
// span for each attempt (or for each alternative of a best-of step). Spans open on the first event
// that shows the thing going and end on the one that shows it done, with the times and facts of
// the run's record (which the run keeps current before each event).
import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { RunStart } from '../engine/runObservers';
import type { EngineEvent } from '../engine/types';
import { TERMINAL, type StepStatus } from '../status';
import {
  alternativeAttributes,
  attemptAttributes,
  runAttributes,
  runEndAttributes,
  stepAttributes,
  stepEndAttributes,
} from './spanAttributes';

interface OpenStep {
  readonly span: Span;
  attempt?: { readonly n: number; readonly span: Span } | undefined;
  readonly alternatives: Map<number, Span | 'ended'>;
  ended: boolean;
}

type StepEvent = Extract<EngineEvent, { type: 'step' }>;

const FAILED: ReadonlySet<string> = new Set(['failed', 'conflict', 'interrupted']);

/** Span status: failures are errors, success is OK, a step canceled or skipped says so in its attributes. */
function statusOf(status: string, message: string | undefined): { code: SpanStatusCode; message?: string } {
  if (status === 'succeeded') return { code: SpanStatusCode.OK };
  if (FAILED.has(status)) return { code: SpanStatusCode.ERROR, ...(message !== undefined ? { message } : {}) };
  return { code: SpanStatusCode.UNSET };
}

const time = (iso: string | undefined, fallback: string): Date => new Date(iso ?? fallback);

export class RunTrace {
  private run: Span | undefined;
  private readonly steps = new Map<string, OpenStep>();

  constructor(
    private readonly tracer: Tracer,
    private readonly start: RunStart,
  ) {}

  onEvent(e: EngineEvent): void {
    switch (e.type) {
      case 'run':
        if (e.status === 'started') this.startRun(e);
        else this.endRun(e.status, e.time, e.costUsd, e.reason);
        return;
      case 'step':
        return this.onStep(e);
      case 'budget':
        this.run?.addEvent(
          e.decision ? `budget: ${e.decision}` : 'budget reached',
          { 'braid.spent_usd': e.spentUsd, 'braid.budget_usd': e.budgetUsd },
          new Date(e.time),
        );
        return;
      case 'lock':
        this.steps
          .get(e.id)
          ?.span.addEvent(
            'waiting for a lock',
            { 'braid.lock.holder': e.waitingFor, 'braid.lock.paths': [...e.paths] },
            new Date(e.time),
          );
        return;
      default:
        return; // output and agent progress: the attempt's end carries its totals
    }
  }

  private startRun(e: Extract<EngineEvent, { type: 'run' }>): void {
    const rec = this.start.record;
    this.run = this.tracer.startSpan(`braid run ${rec.planName}`, {
      kind: SpanKind.INTERNAL,
      startTime: new Date(e.time),
      attributes: runAttributes(rec, e.steps),
    });
  }

  private child(
    parent: Span | undefined,
    name: string,
    startTime: Date,
    attributes: Record<string, string | number | boolean | string[]>,
    kind = SpanKind.INTERNAL,
  ): Span {
    const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
    return this.tracer.startSpan(name, { kind, startTime, attributes }, ctx);
  }

  private onStep(e: StepEvent): void {
    const step = this.start.graph.steps.get(e.id);
    if (!step) return;
    const rec = this.start.record.steps[e.id];
    let open = this.steps.get(e.id);
    if (!open) {
      const span = this.child(
        this.run,
        `step ${e.id}`,
        time(rec?.startedAt, e.time),
        stepAttributes(this.start.graph, step),
      );
      open = { span, alternatives: new Map(), ended: false };
      this.steps.set(e.id, open);
    }
    if (open.ended) return;
    // An attempt goes from its `running` event to the next event that is not its own running.
    if (open.attempt && (e.status !== 'running' || e.attempt !== open.attempt.n)) this.endAttempt(e.id, open, e.time);
    if (e.status === 'running' && !open.attempt && !step.bestOf) {
      const att = rec?.attempts.findLast((a) => a.attempt === e.attempt);
      const agent = step.kind === 'prompt';
      const span = this.child(
        open.span,
        agent ? `invoke_agent ${step.agent ?? ''}` : `attempt ${e.attempt}`,
        time(att?.startedAt, e.time),
        attemptAttributes(this.start.graph, step, undefined, e.attempt),
        agent ? SpanKind.CLIENT : SpanKind.INTERNAL,
      );
      open.attempt = { n: e.attempt, span };
    }
    if (e.alternatives) this.onAlternatives(e, open);
    if (e.status === 'review') open.span.addEvent('waiting for review', {}, new Date(e.time));
    if (e.status === 'waiting' && e.reason === 'pick') open.span.addEvent('waiting for a pick', {}, new Date(e.time));
    if (TERMINAL.has(e.status)) this.endStep(e.id, open, e.status, e.time);
  }

  private onAlternatives(e: StepEvent, open: OpenStep): void {
    const step = this.start.graph.steps.get(e.id)!;
    for (const alt of e.alternatives ?? []) {
      const had = open.alternatives.get(alt.index);
      if (had === 'ended' || alt.status === 'pending') continue;
      const span =
        had ??
        this.child(
          open.span,
          `alternative ${alt.index}`,
          new Date(e.time),
          alternativeAttributes(this.start.graph, step, undefined, alt.index),
          step.kind === 'prompt' ? SpanKind.CLIENT : SpanKind.INTERNAL,
        );
      if (!had) open.alternatives.set(alt.index, span);
      if (TERMINAL.has(alt.status as StepStatus)) this.endAlternative(e.id, open, alt.index, e.time);
    }
  }

  private endAlternative(id: string, open: OpenStep, index: number, at: string): void {
    const span = open.alternatives.get(index);
    if (span === undefined || span === 'ended') return;
    const step = this.start.graph.steps.get(id)!;
    const rec = this.start.record.steps[id]?.alternatives?.find((a) => a.index === index);
    span.setAttributes(alternativeAttributes(this.start.graph, step, rec, index));
    span.setStatus(statusOf(rec?.status ?? 'canceled', rec?.message));
    span.end(new Date(at));
    open.alternatives.set(index, 'ended');
  }

  private endAttempt(id: string, open: OpenStep, at: string): void {
    const a = open.attempt!;
    open.attempt = undefined;
    const step = this.start.graph.steps.get(id)!;
    const att = this.start.record.steps[id]?.attempts.findLast((r) => r.attempt === a.n);
    a.span.setAttributes(attemptAttributes(this.start.graph, step, att, a.n));
    a.span.setStatus(statusOf(att?.status ?? (att?.reason === undefined ? 'succeeded' : 'failed'), att?.message));
    a.span.end(time(att?.endedAt, at));
  }

  private endStep(id: string, open: OpenStep, status: string, at: string): void {
    if (open.attempt) this.endAttempt(id, open, at);
    for (const index of open.alternatives.keys()) this.endAlternative(id, open, index, at);
    const rec = this.start.record.steps[id];
    open.span.setAttributes(stepEndAttributes(rec, status));
    open.span.setStatus(statusOf(status, rec?.message));
    open.span.end(time(rec?.endedAt, at));
    open.ended = true;
  }

  private endRun(status: string, at: string, costUsd: number | undefined, reason: string | undefined): void {
    // A step still open at the run's end (a `review` step waiting on): it ends with the run, as it stands.
    for (const [id, open] of this.steps)
      if (!open.ended) this.endStep(id, open, this.start.record.steps[id]?.status ?? 'interrupted', at);
    if (!this.run) return;
    this.run.setAttributes(runEndAttributes(this.start.record, status, costUsd, reason));
    this.run.setStatus(statusOf(status, reason === 'budget' ? 'the run reached its budget' : undefined));
    this.run.end(new Date(at));
    this.run = undefined;
  }
}
