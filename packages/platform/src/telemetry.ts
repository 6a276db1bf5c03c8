import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter as OTLPGrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as OTLPHttpTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { AlwaysOffSampler, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { KoaInstrumentation, KoaLayerType } from '@opentelemetry/instrumentation-koa';
import { RedactingSpanExporter } from './trace-redaction';

let sdk: NodeSDK | undefined;

/**
 * Starts tracing. Must run before the instrumented modules (http, grpc, pg,
 * ioredis, koa) are first required: each service's `instrumentation.ts` is
 * the first import of its `main.ts`. Spans are always created, so logs carry
 * trace ids; they are exported over OTLP/gRPC only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
export interface TelemetryOptions {
  /**
   * Instrument Node's http module and Koa. The gateway turns both off and
   * makes its own server span per request (`startServerSpan`): the generic
   * instrumentation wrapped every event listener of every request and cost
   * about a fifth of the gateway's CPU. The webhook service turns them off
   * too: each POST is a client span of its own.
   */
  http?: boolean;
}

/**
 * `/metrics` in Prometheus' text format on METRICS_PORT, on METRICS_HOST (all
 * interfaces by default); no metrics server when METRICS_PORT is unset (the
 * chart and the local stack set it: 9460 gateway, 9461 account, 9462
 * message, 9463 device-hub, 9464 otp, 9465 scheduler, 9466 webhook, 9467
 * dashboard).
 */
function metricsReader(): PrometheusExporter[] {
  const port = process.env.METRICS_PORT;
  if (!port) return [];
  return [
    new PrometheusExporter({
      port: Number(port),
      host: process.env.METRICS_HOST ?? '0.0.0.0',
      endpoint: '/metrics',
      withoutScopeInfo: true,
    }),
  ];
}

/**
 * OTLP over gRPC by default (a collector's port 4317); with
 * OTEL_EXPORTER_OTLP_PROTOCOL (or ..._TRACES_PROTOCOL) `http/json`, OTLP over
 * HTTP with JSON bodies (port 4318), which any HTTP server can read.
 */
function traceExporter() {
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'grpc';
  return protocol === 'http/json' ? new OTLPHttpTraceExporter() : new OTLPGrpcTraceExporter();
}

export function startTelemetry(serviceName: string, options: TelemetryOptions = {}): void {
  if (sdk) return;
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  sdk = new NodeSDK({
    resource: resourceFromAttributes({
      'service.name': process.env.OTEL_SERVICE_NAME ?? serviceName,
      'service.namespace': 'smsgw',
      'service.version': process.env.SMSGW_VERSION ?? '0.1.0',
    }),
    spanProcessors: exporting ? [new BatchSpanProcessor(new RedactingSpanExporter(traceExporter()))] : [],
    // Nothing exported: spans are not recorded (no attributes kept, nothing buffered); they still
    // have their trace and span ids, which logs carry and calls pass on. With an exporter, the
    // sampler is OTEL_TRACES_SAMPLER's (every trace by default).
    ...(exporting ? {} : { sampler: new AlwaysOffSampler() }),
    // Metrics are scraped from /metrics (never pushed over OTLP: left to its
    // defaults the SDK would start OTLP metric and log exporters that retry a
    // collector that may not be there). Logs go to stdout.
    metricReaders: metricsReader(),
    logRecordProcessors: [],
    instrumentations: [
      ...(options.http === false
        ? []
        : [
            new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' }),
            // Router spans only: one span per middleware (a dozen a request)
            // cost more CPU than the rest of the tracing and told nothing more.
            new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
          ]),
      // ClaimNext, ClaimMany: phones' looks at their queues, most of the time empty, a trace of
      // their own each; the SMS's trace goes on from the claimed message (device-hub deliver).
      // AcceptMany: many SMS at once; each acknowledgement has a span in its SMS's trace
      // (message.accept). All are counted in smsgw_rpc_server_duration_seconds; their client
      // side is untraced() in the hub.
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch', 'ClaimNext', 'ClaimMany', 'AcceptMany'] }),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      // A Redis command's span calls nothing further: with nothing exported no span or log line
      // needs its ids, and wrapping every command cost about 1 % of the gateway's CPU in `make
      // bench`'s send phase. (Postgres keeps its instrumentation either way: its pool and query metrics.)
      ...(exporting ? [new IORedisInstrumentation({ dbStatementSerializer: (command: string) => command })] : []),
    ],
  });
  sdk.start();
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
