import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import {
  NATS_SERVICES,
  REDIS_SERVICES,
  natsAuthorizationConfig,
  redisAclRules,
  type NatsService,
  type RedisService,
} from '@smsgw/platform';
import { privateServerAt, startPrivateServer, type PrivateServer } from './infra/index';

export interface Credentials {
  user: string;
  password: string;
}

/** Each service's NATS and Redis user (bus-permissions.ts says what each may do). */
export interface BusUsers {
  nats: Record<NatsService, Credentials>;
  redis: Record<RedisService, Credentials>;
  /** The NATS user of tools and tests: no limits. */
  natsAdmin: Credentials;
}

const password = () => randomBytes(24).toString('base64url');

/**
 * The users of a run: random passwords, kept in `<dataDir>/bus-users.json` (mode 0600) for make
 * dev, whose NATS keeps its data between runs; an isolated run gets users of its own, named after
 * it on the shared Redis.
 */
export function busUsers(dataDir: string, runId: string): BusUsers {
  const fresh = (): BusUsers => ({
    nats: Object.fromEntries(NATS_SERVICES.map((s) => [s, { user: `smsgw-${s}`, password: password() }])) as BusUsers['nats'],
    redis: Object.fromEntries(
      REDIS_SERVICES.map((s) => [s, { user: `smsgw-${runId || 'dev'}-${s}`, password: password() }]),
    ) as BusUsers['redis'],
    natsAdmin: { user: 'stack', password: password() },
  });
  if (runId) return fresh();
  const file = path.join(dataDir, 'bus-users.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as BusUsers;
  const users = fresh();
  fs.writeFileSync(file, JSON.stringify(users, null, 2), { mode: 0o600 });
  return users;
}

/**
 * nats-server's `authorization` for the users, for the subject prefix `prefix`. A connection
 * without credentials (a service given none) is a user allowed nothing (`no_auth_user`).
 */
export function natsAuthorization(users: BusUsers, prefix: string): string {
  const anonymous = { user: 'anonymous', password: password() };
  return `${natsAuthorizationConfig({ prefix, users: users.nats, admin: users.natsAdmin, anonymous })}no_auth_user: "anonymous"\n`;
}

/**
 * Creates the Redis users at `redisUrl` (as its default user), saved to the server's ACL file when it
 * has one (a private server that a test restarts); returns what deletes them again.
 */
export async function addRedisUsers(redisUrl: string, users: BusUsers, keyPrefix: string): Promise<() => Promise<void>> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    for (const service of REDIS_SERVICES) {
      const { user, password } = users.redis[service];
      await redis.call('ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, ...redisAclRules(service, keyPrefix));
    }
    await saveAcl(redis);
  } finally {
    redis.disconnect();
  }
  return async () => {
    const admin = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await admin.connect();
    try {
      await admin.call('ACL', 'DELUSER', ...REDIS_SERVICES.map((s) => users.redis[s].user));
      await saveAcl(admin);
    } finally {
      admin.disconnect();
    }
  };
}

/** ACL SAVE, when the server has an ACL file (the shared Redis has none: its users live until stop). */
async function saveAcl(redis: Redis): Promise<void> {
  await redis.call('ACL', 'SAVE').catch((err: Error) => {
    if (!/not configured to use an ACL file/i.test(err.message)) throw err;
  });
}

/** NATS_USER/NATS_PASSWORD and REDIS_USERNAME/REDIS_PASSWORD of a service, for those it has. */
export function busEnv(users: BusUsers, service: string): Record<string, string> {
  const nats = (users.nats as Record<string, Credentials>)[service];
  const redis = (users.redis as Record<string, Credentials>)[service];
  return {
    ...(nats ? { NATS_USER: nats.user, NATS_PASSWORD: nats.password } : {}),
    ...(redis ? { REDIS_USERNAME: redis.user, REDIS_PASSWORD: redis.password } : {}),
  };
}

export interface StackBus {
  /** The NATS the services use: the run's own server, or the one the stack was given. */
  natsUrl: string | undefined;
  users: { nats?: BusUsers['nats']; redis: BusUsers['redis'] };
  /** The NATS administrator (tests, tools), when the run's NATS has users. */
  natsAdmin: Credentials | undefined;
  /** A service's credentials as environment variables. */
  env(service: string): Record<string, string>;
  /** Creates the Redis users; returns what deletes them. */
  addRedisUsers(redisUrl: string): Promise<() => Promise<void>>;
  stop(): Promise<void>;
}

/**
 * The run's users. NATS users need the server's configuration: unless given a NATS, the stack starts
 * a nats-server of its own with them (JetStream data in its data folder); a given NATS gets them only
 * when it is a private server of this process (an outage test's), else the services connect
 * without a user.
 */
export async function startBusUsers(options: {
  dataDir: string;
  runId: string;
  natsPrefix: string;
  redisPrefix: string;
  natsUrl?: string;
  log: (line: string) => void;
}): Promise<StackBus> {
  const users = busUsers(options.dataDir, options.runId);
  const authorization = natsAuthorization(users, options.natsPrefix);
  const givenUrl = options.natsUrl ?? (process.env.SMSGW_NATS_URL || undefined);
  let server: PrivateServer | undefined;
  let natsUsers = true;
  const runDir = path.join(options.dataDir, 'infra', options.runId ? `bus-${options.runId}` : 'bus');
  if (givenUrl === undefined) {
    server = await startPrivateServer('nats', {
      dataDir: runDir,
      log: options.log,
      natsAuthorization: authorization,
      natsAdmin: users.natsAdmin,
    });
    options.log(`nats: the run's own server at ${server.url}, one user per service (output in ${runDir}/nats.log)`);
  } else if (privateServerAt(givenUrl)) {
    await privateServerAt(givenUrl)!.authorize(authorization, users.natsAdmin);
  } else {
    natsUsers = false;
    options.log(`nats: ${givenUrl} is not the stack's own server: the services connect to it without a user of their own`);
  }
  return {
    natsUrl: server?.url ?? givenUrl,
    users: { ...(natsUsers ? { nats: users.nats } : {}), redis: users.redis },
    natsAdmin: natsUsers ? users.natsAdmin : undefined,
    env: (service) => busEnv(natsUsers ? users : { ...users, nats: {} as BusUsers['nats'] }, service),
    addRedisUsers: (redisUrl) => addRedisUsers(redisUrl, users, options.redisPrefix),
    async stop() {
      await server?.stop();
      if (server && options.runId) fs.rmSync(runDir, { recursive: true, force: true });
    },
  };
}
