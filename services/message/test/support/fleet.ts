import { connectNats, createLogger, type AgentReport, type Nats, type PublicEvent } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { eventually, NATS_URL, randomHex } from './database';
import type { RunningService } from './service';
import { storedEvents } from './events';

/** A client's phones, and what a test of the fleet does with them over the service's gRPC and NATS. */
export interface FleetHarness {
  nats: Nats;
  /** The wake-ups published for each client (core NATS `dispatch.wake-client.<client>`), counted. */
  wakes(clientId: string): number;
  /** What the client's last wake-up said: how many messages were opened to its fleet. */
  lastWake(clientId: string): string | undefined;
  send(clientId: string, deviceId: string, extra?: Partial<message.SendRequest>): Promise<string>;
  claim(deviceId: string, clientId: string, leaseMs?: number): Promise<string | undefined>;
  get(clientId: string, messageId: string): Promise<message.Message__Output>;
  /** Publishes a report as the hub does (a batch of one) and waits until the service has acknowledged it. */
  report(body: AgentReport): Promise<void>;
  /** Publishes reports in one batch as a hub does (`msgId`: its Nats-Msg-Id) and waits until the service has acknowledged it. */
  reports(bodies: readonly unknown[], msgId?: string): Promise<void>;
  /** The public events stored for a message, oldest first. */
  events(messageId: string): Promise<PublicEvent[]>;
  row(messageId: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export const newClientId = () => `client_${randomHex()}`;
export const newDeviceId = () => `device_${randomHex()}`;

export async function fleetHarness(svc: RunningService): Promise<FleetHarness> {
  const nats = await connectNats({ url: NATS_URL, prefix: svc.natsPrefix, name: 'fleet-test', log: createLogger('fleet-test', 'silent') });
  const wakes = new Map<string, number>();
  const lastWakes = new Map<string, string>();
  const prefix = nats.names.wakeClient('');
  const sub = nats.nc.subscribe(`${prefix}*`, {
    callback: (_err, msg) => {
      const client = msg.subject.slice(prefix.length);
      wakes.set(client, (wakes.get(client) ?? 0) + 1);
      lastWakes.set(client, msg.string());
    },
  });
  await nats.nc.flush();
  async function publishReports(bodies: readonly unknown[], msgId = `rep_${randomHex()}`): Promise<void> {
    // As a hub stores them: in a batch, on the report batches' work queue.
    const ack = await nats.js.publish(nats.names.reportBatch('test'), JSON.stringify({ reports: bodies }), { msgID: msgId });
    await eventually(
      async () => {
        const info = await nats.jsm.consumers.info(nats.names.reportBatchesStream, 'message-report-batches');
        return info.ack_floor.stream_seq >= ack.seq && info.num_ack_pending === 0;
      },
      5000,
      `report ${ack.seq} to be acknowledged`,
    );
  }
  return {
    nats,
    wakes: (clientId) => wakes.get(clientId) ?? 0,
    lastWake: (clientId) => lastWakes.get(clientId),
    async send(clientId, deviceId, extra = {}) {
      const { message } = await svc.client.send({
        clientId,
        mode: 'MODE_LIVE',
        deviceId,
        priority: 3,
        message: { to: '+33612345678', text: 'Bonjour', metadataJson: '' },
        ...extra,
      });
      return message!.messageId;
    },
    async claim(deviceId, clientId, leaseMs = 30_000) {
      return (await svc.client.claimNext({ deviceId, clientId, leaseMs, mode: 'MODE_LIVE' })).message?.messageId || undefined;
    },
    get: (clientId, messageId) => svc.client.getMessage({ clientId, messageId, mode: 'MODE_LIVE' }),
    async report(body) {
      await publishReports([body]);
    },
    reports: (bodies, msgId) => publishReports(bodies, msgId),
    async events(messageId) {
      return (await storedEvents(nats)).filter((e) => e.event.data.message_id === messageId).map((e) => e.event);
    },
    async row(messageId) {
      const { rows } = await svc.pool.query<Record<string, unknown>>('SELECT * FROM messages WHERE message_id = $1', [messageId]);
      return rows[0]!;
    },
    async close() {
      sub.unsubscribe();
      await nats.nc.drain();
    },
  };
}
