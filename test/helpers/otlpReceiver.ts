// An OTLP/HTTP trace receiver on 127.0.0.1 for tests: it decodes what arrives, protobuf (with
// protobufjs and the OTLP trace messages, field numbers as in opentelemetry-proto's
// trace/v1/trace.proto and common/v1/common.proto) or JSON, into one plain shape to assert on.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

// The messages an ExportTraceServiceRequest holds, as OTLP declares them (the fields a receiver reads).
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message Status { string message = 2; int32 code = 3; }
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10; repeated Event events = 11;
  uint32 dropped_events_count = 12; uint32 dropped_links_count = 14; Status status = 15;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;
const Request = protobuf.parse(OTLP_TRACE_PROTO).root.lookupType('otlp.ExportTraceServiceRequest');

export interface ReceivedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly kind: number;
  readonly status: { readonly code: number; readonly message?: string };
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Record<string, unknown>;
  readonly events: readonly string[];
  readonly resource: Record<string, unknown>;
  readonly encoding: 'protobuf' | 'json';
}

type Obj = Record<string, unknown>;

const hex = (v: unknown): string =>
  v === undefined || v === null
    ? ''
    : typeof v === 'string'
      ? v.toLowerCase()
      : Buffer.from(v as Uint8Array).toString('hex');

function anyValue(v: Obj | undefined): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return (((v.arrayValue as Obj).values as Obj[] | undefined) ?? []).map((x) => anyValue(x));
  return undefined;
}

const attrs = (list: unknown): Record<string, unknown> =>
  Object.fromEntries(
    ((list as Obj[] | undefined) ?? []).map((kv) => [kv.key as string, anyValue(kv.value as Obj | undefined)]),
  );

/** The spans of one decoded request (protobuf objects and OTLP/JSON share field names once camel-cased). */
function spansOf(req: Obj, encoding: 'protobuf' | 'json'): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (req.resourceSpans as Obj[] | undefined) ?? []) {
    const resource = attrs((rs.resource as Obj | undefined)?.attributes);
    for (const ss of (rs.scopeSpans as Obj[] | undefined) ?? []) {
      for (const s of (ss.spans as Obj[] | undefined) ?? []) {
        const st = (s.status as Obj | undefined) ?? {};
        out.push({
          name: s.name as string,
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          kind: Number(s.kind ?? 0),
          status: { code: Number(st.code ?? 0), ...(st.message ? { message: st.message as string } : {}) },
          startNs: BigInt(String(s.startTimeUnixNano ?? 0)),
          endNs: BigInt(String(s.endTimeUnixNano ?? 0)),
          attributes: attrs(s.attributes),
          events: ((s.events as Obj[] | undefined) ?? []).map((e) => e.name as string),
          resource,
          encoding,
        });
      }
    }
  }
  return out;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Requests by path and content type, in order. */
  readonly requests: { path: string; contentType: string }[];
  /** Resolves once `n` spans have arrived. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

const body = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => done(Buffer.concat(chunks)));
    req.on('error', fail);
  });

/** Starts a receiver; `status` is what it answers (a test of a failing collector passes 503). */
export async function startOtlpReceiver(status = 200): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: { path: string; contentType: string }[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    void body(req).then((raw) => {
      const data = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      const contentType = req.headers['content-type'] ?? '';
      requests.push({ path: req.url ?? '', contentType });
      if (status === 200 && req.url === '/v1/traces') {
        if (contentType.includes('json')) spans.push(...spansOf(JSON.parse(data.toString('utf8')) as Obj, 'json'));
        else
          spans.push(
            ...spansOf(Request.toObject(Request.decode(data), { longs: String, defaults: false }), 'protobuf'),
          );
        for (const w of waiters.splice(0)) w();
      }
      res.writeHead(status, { 'content-type': contentType || 'application/json' });
      res.end(contentType.includes('json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async waitFor(n) {
      while (spans.length < n) await new Promise<void>((w) => waiters.push(w));
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
