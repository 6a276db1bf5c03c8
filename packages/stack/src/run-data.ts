import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { natsAdminOf, type InfraHandle } from './infra/index';

/** `url` naming another database of the same server. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates the run's database unless it exists. */
export async function createDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
}

/**
 * The OTP keys (OTP_HASH_KEY for the otp service, OTP_SEAL_KEY for the
 * message service): random, kept in the data folder (mode 0600) so that a
 * restart of `make dev` still verifies and delivers earlier OTPs; an
 * isolated run gets keys of its own. Set them in the environment to choose.
 */
export function otpSecrets(dataDir: string, isolated: boolean): Record<string, string> {
  const fresh = () => ({ OTP_HASH_KEY: randomBytes(32).toString('base64'), OTP_SEAL_KEY: randomBytes(32).toString('base64') });
  let keys: Record<string, string>;
  const file = path.join(dataDir, 'otp-keys.json');
  if (isolated) {
    keys = fresh();
  } else if (fs.existsSync(file)) {
    keys = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  } else {
    keys = fresh();
    fs.writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  }
  return {
    OTP_HASH_KEY: process.env.OTP_HASH_KEY ?? keys.OTP_HASH_KEY!,
    OTP_SEAL_KEY: process.env.OTP_SEAL_KEY ?? keys.OTP_SEAL_KEY!,
  };
}

/** Drops what an isolated run made: its database, its NATS streams and its Redis keys. */
export async function removeRunData(infra: InfraHandle, database: string, natsPrefix: string, redisPrefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: infra.postgresUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).finally(() => client.end());
  const nc = await connect({ servers: infra.natsUrl, ...natsAdminOf(infra.natsUrl) });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${natsPrefix.toUpperCase()}_`)) await jsm.streams.delete(name);
    }
  } finally {
    await nc.close();
  }
  const redis = new Redis(infra.redisUrl, { lazyConnect: true });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
