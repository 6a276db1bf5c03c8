import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import type { Logger } from './logger';

export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  /** Calls `listener(false)` when the connection drops and `listener(true)` when it is back. */
  onConnectionChange(listener: (connected: boolean) => void): void;
}

/**
 * Every subject and stream name of the platform, in one place. A prefix
 * (empty in production) keeps test runs that share one NATS server apart.
 */
export function natsNames(prefix: string) {
  const p = prefix ? `${prefix}.` : '';
  const s = prefix ? `${prefix.toUpperCase()}_` : '';
  return {
    prefix,
    /**
     * Core NATS hint that a device has work; the queue itself is in Postgres. Under its client:
     * a hub replica hears its phones' hints through one subscription per client (`clientWakes`),
     * not one per phone.
     */
    wake: (clientId: string, deviceId: string) => `${p}dispatch.wake.${clientId}.${deviceId}`,
    /**
     * The hints of several devices of a client in one message, their ids comma-separated in the
     * body (`many` is no device id: those are `device_<ulid>`). A hub older than this ignores it.
     */
    wakeMany: (clientId: string) => `${p}dispatch.wake.${clientId}.many`,
    /** Every device's hint of a client, and `wakeMany` (a hub replica holding phones of the client subscribes). */
    clientWakes: (clientId: string) => `${p}dispatch.wake.${clientId}.*`,
    /** Core NATS hint to every phone of a client that a message was opened to its fleet. */
    wakeClient: (clientId: string) => `${p}dispatch.wake-client.${clientId}`,
    /** Hint to the test-mode simulator that a test key's message is due. */
    testWake: `${p}dispatch.test-wake`,
    /** Core NATS orders to the hub replica holding a device (takeover, revocation). */
    hubControl: (deviceId: string) => `${p}hub.control.${deviceId}`,
    hubControls: `${p}hub.control.*`,
    agentReport: (deviceId: string) => `${p}agent.report.${deviceId}`,
    agentReports: `${p}agent.report.>`,
    /** Phones' reports gathered by a hub replica (`instance`), many in one message (`ReportBatch`). */
    reportBatch: (instance: string) => `${p}agent.reports.${instance}`,
    reportBatches: `${p}agent.reports.>`,
    reportBatchesStream: `${s}REPORT_BATCHES`,
    /** Received SMS relayed by the hub (same stream as the reports). */
    agentReceived: (deviceId: string) => `${p}agent.received.${deviceId}`,
    agentReceiveds: `${p}agent.received.>`,
    event: (kind: string) => `${p}events.${kind}`,
    events: `${p}events.>`,
    /** Public events published many in one message (`EventBatch`), by the publishing service. */
    eventBatch: (publisher: string) => `${p}event-batches.${publisher}`,
    eventBatches: `${p}event-batches.>`,
    eventBatchesStream: `${s}EVENT_BATCHES`,
    reportsStream: `${s}AGENT_REPORTS`,
    eventsStream: `${s}EVENTS`,
    /** Where the scheduler publishes a fired timer: `timer('message.due')`. */
    timer: (name: string) => `${p}timers.${name}`,
    timers: `${p}timers.>`,
    timersStream: `${s}TIMERS`,
    /** Core NATS hint to the scheduler replicas that a timer due soon was created. */
    schedulerWake: `${p}scheduler.wake`,
  };
}
export type NatsNames = ReturnType<typeof natsNames>;

/**
 * The prefix of a service's reply subjects (`inboxPrefix` of its connection): replies to one
 * service, pulled JetStream messages included, never reach another.
 */
export function natsInboxPrefix(prefix: string, service: string): string {
  return `_INBOX.${prefix ? `${prefix}.` : ''}${service}`;
}

export async function connectNats(options: {
  url: string;
  prefix: string;
  name: string;
  log: Logger;
  user?: string;
  password?: string;
  /** False for a service that uses core NATS only (the dashboard): its user may not ask JetStream anything. */
  jetstream?: boolean;
}): Promise<Nats> {
  const nc = await connect({
    servers: options.url.split(','),
    ...(options.user === undefined ? {} : { user: options.user, pass: options.password ?? '' }),
    name: options.name,
    // Each service's user may subscribe to its own replies only (bus-permissions.ts).
    inboxPrefix: natsInboxPrefix(options.prefix, options.name),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    // No Error made (and its stack captured) ahead of every request, in case it fails: that was
    // about 1% of the hub's and the message service's CPU at fleet load. A failed request still
    // says what failed, only without the caller's frames.
    noAsyncTraces: true,
  });
  const listeners: ((connected: boolean) => void)[] = [];
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        options.log.warn({ nats: status.type }, 'NATS connection status changed');
      }
      if (status.type === 'disconnect') listeners.forEach((l) => l(false));
      if (status.type === 'reconnect') listeners.forEach((l) => l(true));
    }
  })();
  let jsm: Awaited<ReturnType<typeof jetstreamManager>>;
  try {
    jsm = await jetstreamManager(nc, { checkAPI: options.jetstream !== false });
  } catch (err) {
    // A server without JetStream: close the connection, or its reconnection loop keeps the process alive.
    await nc.close();
    throw err;
  }
  return {
    nc,
    js: jetstream(nc),
    jsm,
    names: natsNames(options.prefix),
    onConnectionChange: (listener) => listeners.push(listener),
  };
}

/** Creates the stream, or brings an existing one up to `config`. */
export async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string; subjects: string[] },
): Promise<void> {
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, config);
  } catch (err) {
    if ((err as Error).name === 'StreamNotFoundError' || /stream not found/i.test((err as Error).message)) {
      await jsm.streams.add(config);
      return;
    }
    throw err;
  }
}

const DAY_NS = 24 * 60 * 60 * 1e9;

/**
 * How long the timers stream remembers a `Nats-Msg-Id`: a fire repeated within
 * it is dropped. It must cover the scheduler's claim lease plus retries (the
 * scheduler refuses a lease over a fifth of it).
 */
export const TIMERS_DUPLICATE_WINDOW_MS = 15 * 60 * 1000;

/** What a stream may hold on the server unless the operator says otherwise (NATS_STREAM_MAX_BYTES): 1 GiB. */
export const DEFAULT_STREAM_MAX_BYTES = 1024 ** 3;

/**
 * The streams of the platform; each service that touches one ensures it, with `replicas`
 * (NATS_STREAM_REPLICAS). Each has a byte budget (`maxBytes`, NATS_STREAM_MAX_BYTES; twice that
 * for the event batches) and refuses what would go past it (`discard: new`): the publisher gets
 * an error and keeps what it had (a hub does not confirm a report, so the phone sends it again),
 * rather than the server dropping older messages that a consumer has not had. What one client can
 * put in them is bounded before that (the hub's budgets per phone and per client).
 *
 * - `reportBatches`: the phones' reports as the hubs gather them, a work queue (a batch is gone
 *   once the message service has applied it).
 * - `eventBatches`: the public events, kept until every consumer of the stream has them
 *   (interest); a consumer created later sees what is published after it.
 * - `reports`, `events`: the phones' received SMS and the hubs' device events, and the reports
 *   and events one message at a time of earlier versions (drained after an upgrade), 7 days.
 * - `timers`: fired timers, 7 days.
 */
export const streamConfigs = (names: NatsNames, replicas = 1, maxBytes = DEFAULT_STREAM_MAX_BYTES) => ({
  reports: {
    name: names.reportsStream,
    subjects: [names.agentReports, names.agentReceiveds],
    max_age: 7 * DAY_NS,
    max_bytes: maxBytes,
    discard: DiscardPolicy.New,
    duplicate_window: 10 * 60 * 1e9,
    num_replicas: replicas,
  },
  reportBatches: {
    name: names.reportBatchesStream,
    subjects: [names.reportBatches],
    retention: RetentionPolicy.Workqueue,
    max_age: 7 * DAY_NS,
    max_bytes: maxBytes,
    discard: DiscardPolicy.New,
    duplicate_window: 10 * 60 * 1e9,
    num_replicas: replicas,
  },
  events: {
    name: names.eventsStream,
    subjects: [names.events],
    max_age: 7 * DAY_NS,
    max_bytes: maxBytes,
    discard: DiscardPolicy.New,
    duplicate_window: 10 * 60 * 1e9,
    num_replicas: replicas,
  },
  eventBatches: {
    name: names.eventBatchesStream,
    subjects: [names.eventBatches],
    retention: RetentionPolicy.Interest,
    max_age: 7 * DAY_NS,
    max_bytes: 2 * maxBytes,
    discard: DiscardPolicy.New,
    duplicate_window: 10 * 60 * 1e9,
    num_replicas: replicas,
  },
  timers: {
    name: names.timersStream,
    subjects: [names.timers],
    max_age: 7 * DAY_NS,
    max_bytes: maxBytes,
    discard: DiscardPolicy.New,
    duplicate_window: TIMERS_DUPLICATE_WINDOW_MS * 1e6,
    num_replicas: replicas,
  },
});

/** The durable consumers of the event batches stream (each service that consumes it, by its consumer's name). */
export const EVENT_BATCH_DURABLES = ['webhook-event-batches'] as const;

/**
 * Makes each durable consumer of the event batches stream that does not exist yet, as the service
 * that owns it will (it brings the rest of its settings when it starts): the stream keeps an event
 * only while a consumer has not had it, so an event published before a consumer's service ever
 * started (a new installation, a JetStream store lost) would otherwise be gone. Called by the
 * publishers after `ensureStream`.
 */
export async function ensureEventBatchInterest(jsm: JetStreamManager, names: NatsNames): Promise<void> {
  for (const durable of EVENT_BATCH_DURABLES) {
    try {
      await jsm.consumers.info(names.eventBatchesStream, durable);
    } catch (err) {
      if (!/consumer not found/i.test((err as Error).message) && (err as Error).name !== 'ConsumerNotFoundError') throw err;
      await jsm.consumers.add(names.eventBatchesStream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: names.eventBatches,
      });
    }
  }
}
