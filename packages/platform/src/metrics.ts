/**
 * The platform's metrics, through the OpenTelemetry API: each service's
 * meter provider (telemetry.ts) serves them on `/metrics` in Prometheus'
 * format. Names are `smsgw_*` once exported, with their unit in the name
 * (`_seconds`: the exporter does not add it); every label set is bounded
 * (no message, device or client id is ever a label).
 */
import { metrics, type Attributes, type ObservableResult } from '@opentelemetry/api';
import type { ErrorCode } from './errors';
import type { Nats } from './nats';

const meter = metrics.getMeter('smsgw');

/** Seconds buckets for request durations: 1 ms to 10 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const rpcDuration = meter.createHistogram('smsgw.rpc.server.duration.seconds', {
  description: 'gRPC calls handled, by method and outcome code (RED: rate, errors, duration)',
  unit: 's',
  advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
});

/** Records one handled gRPC call: `code` is OK, the error catalogue's code, or CALLER_NOT_ALLOWED (refused by the allowlist). */
export function recordRpc(method: string, code: ErrorCode | 'OK' | 'CALLER_NOT_ALLOWED', seconds: number): void {
  rpcDuration.record(seconds, { 'rpc.method': method, 'smsgw.code': code });
}

const httpDuration = meter.createHistogram('smsgw.http.server.duration.seconds', {
  description: 'HTTP requests answered, by route pattern, method and status (RED)',
  unit: 's',
  advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
});

/** Records one HTTP request: `route` is the pattern (`/v1/sms/status/:message_id`), never the path. */
export function recordHttp(route: string, method: string, status: number, seconds: number): void {
  httpDuration.record(seconds, { 'http.route': route, 'http.request.method': method, 'http.response.status_code': status });
}

/** A counter of the platform's (`smsgw.<name>`), for a service's domain figures. */
export function counter(name: string, description: string) {
  return meter.createCounter(`smsgw.${name}`, { description });
}

/** A histogram in seconds (`smsgw.<name>.seconds`), with the latency buckets. */
export function secondsHistogram(name: string, description: string) {
  return meter.createHistogram(`smsgw.${name}.seconds`, { description, unit: 's', advice: { explicitBucketBoundaries: LATENCY_BUCKETS } });
}

/** A gauge read at each scrape (`smsgw.<name>`); `observe` may query a database. */
export function gauge(
  name: string,
  description: string,
  observe: (result: ObservableResult<Attributes>) => Promise<void> | void,
  unit?: string,
): void {
  meter.createObservableGauge(`smsgw.${name}`, { description, ...(unit ? { unit } : {}) }).addCallback(observe);
}

/**
 * JetStream consumer lag at each scrape: messages not yet delivered
 * (`pending`) and delivered but not acknowledged (`ack_pending`) of each of
 * this service's durable consumers.
 */
export function observeConsumerLag(nats: Nats, consumers: { stream: string; durable: string }[]): void {
  gauge(
    'jetstream.consumer.lag',
    'Messages of a durable JetStream consumer not yet processed, by consumer and state (pending, ack_pending)',
    async (result) => {
      await Promise.all(
        consumers.map(async ({ stream, durable }) => {
          try {
            const info = await nats.jsm.consumers.info(stream, durable);
            // The stream's test prefix is left out: dashboards name consumers, not deployments.
            const attrs = { 'messaging.consumer.name': durable };
            result.observe(info.num_pending, { ...attrs, state: 'pending' });
            result.observe(info.num_ack_pending, { ...attrs, state: 'ack_pending' });
          } catch {
            // Not created yet, or NATS is away: no figure rather than a wrong one.
          }
        }),
      );
    },
  );
}
