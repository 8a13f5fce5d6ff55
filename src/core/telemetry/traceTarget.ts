// Whether a run is exported as a trace, and where, from the standard OTEL_* variables, `--otel`
// and the `braid.otel.endpoint` setting. Pure: deciding loads nothing of OpenTelemetry.

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Where and how a run's trace goes; `url` absent: the exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT itself. */
export interface TraceTarget {
  readonly url?: string;
  readonly protocol: OtlpProtocol;
}

export interface TracingRequest {
  /** `--otel`: export even without an endpoint in the environment (to the OTLP default, http://localhost:4318). */
  readonly enabled?: boolean;
  /** The `braid.otel.endpoint` setting: an OTLP/HTTP base URL (`/v1/traces` is added), which wins over the environment. */
  readonly endpoint?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const set = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** The run's trace target, or why there is none (`problem`: the user asked for traces Braid cannot send). */
export function traceTarget(env: Env, req: TracingRequest = {}): { target?: TraceTarget; problem?: string } {
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return {};
  const exporters = set(env.OTEL_TRACES_EXPORTER)
    ?.split(',')
    .map((s) => s.trim());
  if (exporters?.includes('none')) return {};
  const endpoint = set(req.endpoint);
  const fromEnv = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!endpoint && !fromEnv && !req.enabled) return {};
  const protocol =
    set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? set(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    return {
      problem: `traces: OTLP protocol ${protocol} is not supported; set OTEL_EXPORTER_OTLP_PROTOCOL to http/protobuf or http/json`,
    };
  }
  if (endpoint === undefined) return { target: { protocol } };
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { problem: `traces: braid.otel.endpoint is not a URL: ${endpoint}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: `traces: braid.otel.endpoint must be an http(s) URL, got ${url.protocol}` };
  // As OTEL_EXPORTER_OTLP_ENDPOINT: a base to which the signal's path is added.
  return { target: { protocol, url: `${endpoint.replace(/\/+$/, '')}/v1/traces` } };
}
