import { connectNats, createLogger, type AgentReport, type Nats, type PublicEvent } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { eventually, NATS_URL, randomHex } from './database';
import type { RunningService } from './service';

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
  /** Publishes a report as the hub does and waits until the service has acknowledged it. */
  report(body: AgentReport): Promise<void>;
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
      const ack = await nats.js.publish(nats.names.agentReport(body.device_id), JSON.stringify(body), { msgID: `rep_${randomHex()}` });
      await eventually(
        async () => {
          const info = await nats.jsm.consumers.info(nats.names.reportsStream, 'message-reports');
          return info.ack_floor.stream_seq >= ack.seq && info.num_ack_pending === 0;
        },
        5000,
        `report ${ack.seq} to be acknowledged`,
      );
    },
    async events(messageId) {
      const info = await nats.jsm.streams.info(nats.names.eventsStream);
      const out: PublicEvent[] = [];
      for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
        const event = (await nats.jsm.streams.getMessage(nats.names.eventsStream, { seq }))?.json<PublicEvent>();
        if (event?.data.message_id === messageId) out.push(event);
      }
      return out;
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
