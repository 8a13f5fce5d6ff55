// Whether a run traces, and where: the standard OTEL_* variables, `--otel` and the setting.
import { strict as assert } from 'node:assert';
import { traceTarget } from '../../src/core/telemetry/traceTarget';

describe('traceTarget', () => {
  it('nothing set: no trace, and no problem', () => {
    assert.deepEqual(traceTarget({}), {});
    assert.deepEqual(traceTarget({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), {});
  });

  it('an endpoint in the environment: the exporter reads it (and its headers) itself; protobuf by default', () => {
    assert.deepEqual(traceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), {
      target: { protocol: 'http/protobuf' },
    });
    assert.deepEqual(
      traceTarget({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
      { target: { protocol: 'http/json' } },
    );
    // The traces-specific protocol wins over the general one.
    assert.equal(
      traceTarget({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }).target?.protocol,
      'http/json',
    );
  });

  it('--otel alone traces to the OTLP default', () => {
    assert.deepEqual(traceTarget({}, { enabled: true }), { target: { protocol: 'http/protobuf' } });
  });

  it('the setting is a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT is, and wins over the environment', () => {
    assert.deepEqual(
      traceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' }, { endpoint: 'https://collector.example:4318/' }),
      { target: { protocol: 'http/protobuf', url: 'https://collector.example:4318/v1/traces' } },
    );
    assert.match(traceTarget({}, { endpoint: 'not a url' }).problem ?? '', /not a URL/);
    assert.match(traceTarget({}, { endpoint: 'file:///etc/passwd' }).problem ?? '', /http\(s\)/);
  });

  it('OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn it off, even with --otel', () => {
    assert.deepEqual(
      traceTarget({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }, { enabled: true }),
      {},
    );
    assert.deepEqual(traceTarget({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }), {});
    assert.ok(traceTarget({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }).target);
  });

  it('gRPC is refused with what to set instead', () => {
    const r = traceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    assert.equal(r.target, undefined);
    assert.match(
      r.problem ?? '',
      /grpc is not supported; set OTEL_EXPORTER_OTLP_PROTOCOL to http\/protobuf or http\/json/,
    );
  });
});
