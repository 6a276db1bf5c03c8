import type { Pool, PromiseClient } from '@smsgw/platform';
import { messageProto, type message } from '@smsgw/proto';
import { clientOfAllowedCallers, startDeviceOwners, startServiceUnderTest } from '@smsgw/testing';
import { loadMessageConfig } from '../../src/config';
import { messageCallers } from '../../src/grpc/message.handlers';
import { start } from '../../src/main';
import { randomHex } from './database';

/** The key that seals OTP texts in component tests (a fresh one per test process). */
export const TEST_SEAL_KEY = randomHex(32);

export interface RunningService {
  client: PromiseClient<message.MessageServiceClient>;
  natsPrefix: string;
  /** A pool on the service's schema, for seeding and inspecting rows. */
  pool: Pool;
  schema: string;
  stop(): Promise<void>;
}

/**
 * The real message service on port 0, with a schema and NATS prefix of its
 * own; `stop()` shuts it down and removes the schema and the streams. Its
 * device-hub is a stand-in that answers which devices are a client's: `owns`
 * (every device of every client, by default).
 */
export async function startMessageService(
  env: Record<string, string> = {},
  owns?: (clientId: string, deviceId: string) => boolean,
): Promise<RunningService> {
  const owners = await startDeviceOwners(owns);
  const svc = await startServiceUnderTest({
    name: 'message',
    loadConfig: loadMessageConfig,
    start,
    env: {
      OTP_SEAL_KEY: TEST_SEAL_KEY,
      // No scheduler here: timers of scheduled messages fail to be created (and are logged); tests fire timers themselves.
      SCHEDULER_GRPC_ADDR: '127.0.0.1:1',
      DEVICE_HUB_GRPC_ADDR: owners.address,
      ...env,
    },
  }).catch(async (err: unknown) => {
    await owners.stop(100);
    throw err;
  });
  const client = clientOfAllowedCallers<message.MessageServiceClient>(
    messageProto().MessageService,
    `127.0.0.1:${svc.port}`,
    messageCallers,
  );
  return {
    client,
    natsPrefix: svc.natsPrefix,
    pool: svc.pool,
    schema: svc.schema,
    async stop() {
      client.close();
      await svc.stop();
      await owners.stop(100);
    },
  };
}

export type SeedMode = 'MODE_LIVE' | 'MODE_TEST';

/** A message to put in the history, as it would be after some time. */
export interface SeedRow {
  clientId: string;
  mode?: SeedMode;
  deviceId: string;
  to?: string;
  text?: string;
  status?: 'queued' | 'sent' | 'delivered' | 'failed' | 'cancelled';
  createdAt: Date;
  priority?: number;
}

export interface Seeded extends Required<SeedRow> {
  messageId: string;
}

/**
 * Sends the messages through SendBatch (one batch per client and mode), then
 * moves them in time and status with SQL, as the months would have.
 */
export async function seed(svc: RunningService, rows: SeedRow[]): Promise<Seeded[]> {
  const full = rows.map((r) => ({
    mode: 'MODE_LIVE' as const,
    to: '+33612345678',
    text: 'Bonjour',
    status: 'queued' as const,
    priority: 3,
    ...r,
  }));
  const out: Seeded[] = new Array<Seeded>(full.length);
  const groups = new Map<string, number[]>();
  full.forEach((r, i) => {
    const key = `${r.clientId}|${r.mode}|${r.priority}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  for (const indexes of groups.values()) {
    const first = full[indexes[0]!]!;
    const batch = await svc.client.sendBatch({
      clientId: first.clientId,
      mode: first.mode,
      priority: first.priority,
      deviceIds: indexes.map((i) => full[i]!.deviceId),
      messages: indexes.map((i) => ({ to: full[i]!.to, text: full[i]!.text })),
    });
    batch.messages.forEach((m, k) => {
      const i = indexes[k]!;
      out[i] = { ...full[i]!, messageId: m.messageId };
    });
  }
  await svc.pool.query(
    `UPDATE messages m SET status = s.status, created_at = s.created_at, queued_at = s.created_at, due_at = s.created_at
     FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS s(message_id, status, created_at)
     WHERE m.message_id = s.message_id`,
    [out.map((r) => r.messageId), out.map((r) => r.status), out.map((r) => r.createdAt)],
  );
  return out;
}
