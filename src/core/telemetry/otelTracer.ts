// The OpenTelemetry SDK for one run: a tracer provider with the run's resource, a batch processor
// and the official OTLP/HTTP exporter (protobuf or JSON). Loaded only by a run that traces
// (tracing.ts); the exporter reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout, compression)
// itself, this file the standard variables the SDK no longer reads on its own.
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { RunObserver, RunStart } from '../engine/runObservers';
import { RunTrace } from './runTrace';
import type { TraceTarget } from './traceTarget';

type Env = Readonly<Record<string, string | undefined>>;

const positive = (v: string | undefined): number | undefined => {
  const n = Number(v);
  return v !== undefined && v.trim() !== '' && Number.isFinite(n) && n > 0 ? n : undefined;
};

/** OTEL_TRACES_SAMPLER and its argument (every span of a run is in one trace under one root, so parent-based is the same sampler). */
function samplerFrom(env: Env): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const r = Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1;
  switch (name) {
    case 'always_off':
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'traceidratio':
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(r) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** Passes spans to the exporter and tells the user the first time an export fails (the SDK itself says nothing). */
class ReportingExporter implements SpanExporter {
  private told = false;
  constructor(
    private readonly inner: SpanExporter,
    private readonly where: string,
    private readonly notice: (m: string) => void,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (result) => {
      // 0 is ExportResultCode.SUCCESS (@opentelemetry/core, not a dependency of ours).
      // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-comparison
      if (result.code !== 0 && !this.told) {
        this.told = true;
        this.notice(
          `traces: could not send the run's spans to ${this.where}: ${result.error?.message ?? 'export failed'}`,
        );
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The endpoint as the user may see it: no credentials, no query. */
function shownUrl(target: TraceTarget, env: Env): string {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
    ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.trim().replace(/\/+$/, '')}/v1/traces`
    : undefined;
  const raw =
    target.url ??
    (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || undefined) ??
    base ??
    'http://localhost:4318/v1/traces';
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'the OTLP endpoint';
  }
}

/** Starts the run's trace; the observer's close flushes it (bounded by the exporter's timeout). */
export function traceRun(start: RunStart, target: TraceTarget): RunObserver {
  const env = start.env;
  const timeoutMs =
    positive(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) ?? positive(env.OTEL_EXPORTER_OTLP_TIMEOUT) ?? 10_000;
  const config = target.url ? { url: target.url } : {};
  const exporter = new ReportingExporter(
    target.protocol === 'http/json' ? new JsonExporter(config) : new ProtoExporter(config),
    shownUrl(target, env),
    start.notice,
  );
  // Every span of a run fits the queue (a run, its steps, their attempts and alternatives), unless the user says otherwise.
  const spans =
    2 + [...start.graph.steps.values()].reduce((n, s) => n + 2 + s.retries + (s.bestOf?.alternatives.length ?? 0), 0);
  const maxQueueSize = positive(env.OTEL_BSP_MAX_QUEUE_SIZE) ?? Math.max(2048, spans);
  const processor = new BatchSpanProcessor({
    exporter,
    maxQueueSize,
    maxExportBatchSize: Math.min(maxQueueSize, positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE) ?? 512),
    scheduledDelayMillis: positive(env.OTEL_BSP_SCHEDULE_DELAY) ?? 5000,
    exportTimeoutMillis: positive(env.OTEL_BSP_EXPORT_TIMEOUT) ?? 30_000,
  });
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the service name Braid gives itself.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'braid' }))
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] }));
  const provider = new TracerProvider({ resource, sampler: samplerFrom(env), spanProcessors: [processor] });
  const runTrace = new RunTrace(provider.getTracer('braid'), start);
  return {
    onEvent: (e) => runTrace.onEvent(e),
    close: async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((done) => {
        timer = setTimeout(() => done('late'), timeoutMs + 1000);
        timer.unref();
      });
      const r = await Promise.race([
        provider.shutdown().then(
          () => 'sent' as const,
          () => 'sent' as const,
        ),
        late,
      ]);
      clearTimeout(timer);
      if (r === 'late')
        start.notice(
          `traces: ${shownUrl(target, env)} did not take the run's spans within ${Math.round(timeoutMs / 1000)}s`,
        );
    },
  };
}
