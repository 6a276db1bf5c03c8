import { EVENT_BATCH_DURABLES, natsInboxPrefix, natsNames } from './nats';

/**
 * Who may do what on NATS and Redis: one user per service, with only the subjects and keys its code
 * uses. The local stack, the Helm chart (through `npm run bus-users` in charts/sms-gateway) and the
 * tests read these lists; nothing else says them again.
 */

/** The services that connect to NATS. */
export const NATS_SERVICES = ['message', 'device-hub', 'scheduler', 'webhook', 'dashboard', 'gateway', 'otp', 'smpp'] as const;
export type NatsService = (typeof NATS_SERVICES)[number];

/** The services that connect to Redis. */
export const REDIS_SERVICES = ['gateway', 'dashboard', 'device-hub', 'otp', 'smpp'] as const;
export type RedisService = (typeof REDIS_SERVICES)[number];

export type StreamKey = 'reports' | 'reportBatches' | 'events' | 'eventBatches' | 'timers';

/** The durable JetStream consumers, by service: `stream` is a key of `streamConfigs`. */
export const DURABLE_CONSUMERS: Record<NatsService, { stream: StreamKey; durable: string }[]> = {
  message: [
    { stream: 'reportBatches', durable: 'message-report-batches' },
    { stream: 'reports', durable: 'message-reports' },
    { stream: 'reports', durable: 'message-received' },
    { stream: 'timers', durable: 'message-timers' },
  ],
  'device-hub': [],
  scheduler: [{ stream: 'timers', durable: 'scheduler-jobs' }],
  webhook: [
    { stream: 'eventBatches', durable: 'webhook-event-batches' },
    { stream: 'events', durable: 'webhook-events' },
    { stream: 'timers', durable: 'webhook-timers' },
    // The owner's alert e-mail of each `otp.fraud_suspected`.
    { stream: 'events', durable: 'webhook-otp-alerts' },
    // The owner's alert e-mail of each `device.degraded` (a SIM quarantined).
    { stream: 'events', durable: 'webhook-device-alerts' },
    // The owner's warning e-mail of each `device.battery_low` (issue 38).
    { stream: 'events', durable: 'webhook-phone-alerts' },
    // The owner's warning e-mail of each `device.offline` (issue 38).
    { stream: 'events', durable: 'webhook-offline-alerts' },
  ],
  dashboard: [],
  gateway: [],
  otp: [],
  // Receipts and received SMS for the SMPP receivers.
  smpp: [{ stream: 'eventBatches', durable: 'smpp-event-batches' }],
};

/** The streams each service creates or brings up to date at start-up (`ensureStream`). */
const ENSURED_STREAMS: Record<NatsService, StreamKey[]> = {
  message: ['reports', 'reportBatches', 'events', 'eventBatches', 'timers'],
  'device-hub': ['reports', 'reportBatches', 'events'],
  scheduler: ['timers'],
  webhook: ['events', 'eventBatches', 'timers'],
  dashboard: [],
  gateway: [],
  // The pumping guard's `otp.fraud_suspected` events.
  otp: ['events'],
  smpp: ['eventBatches'],
};

/**
 * `smsgw listen`'s core NATS subjects: the webhook service publishes every event it consumes on
 * `listen.<client_id>.<mode>`; the gateway subscribes to one client and mode per listener.
 */
export function listenSubject(prefix: string, clientId: string, mode: 'live' | 'test'): string {
  return `${prefix ? `${prefix}.` : ''}listen.${clientId}.${mode}`;
}
const listenSubjects = (prefix: string) => `${prefix ? `${prefix}.` : ''}listen.>`;

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
}

/** The subjects `service` may publish to and subscribe to, for the subject prefix `prefix` (NATS_PREFIX). */
export function natsPermissions(service: NatsService, prefix: string): NatsPermissions {
  const n = natsNames(prefix);
  const streamName: Record<StreamKey, string> = {
    reports: n.reportsStream,
    reportBatches: n.reportBatchesStream,
    events: n.eventsStream,
    eventBatches: n.eventBatchesStream,
    timers: n.timersStream,
  };
  const own: Record<NatsService, NatsPermissions> = {
    message: {
      publish: [n.wake('*', '*'), n.wakeClient('*'), n.testWake, n.eventBatch('message')],
      subscribe: [],
    },
    'device-hub': {
      publish: [n.agentReport('*'), n.reportBatch('*'), n.agentReceived('*'), n.event('device.*'), n.hubControls, n.wakeClient('*')],
      subscribe: [n.wake('*', '*'), n.wakeClient('*'), n.testWake, n.hubControls],
    },
    scheduler: {
      publish: [n.timers, n.schedulerWake],
      subscribe: [n.schedulerWake],
    },
    webhook: { publish: [listenSubjects(prefix)], subscribe: [] },
    // The live device view only: core NATS, no JetStream.
    dashboard: { publish: [], subscribe: [n.event('device.*')] },
    // GET /v1/events/listen only: core NATS, no JetStream, nothing to publish.
    gateway: { publish: [], subscribe: [listenSubjects(prefix)] },
    // The pumping guard's events only (JetStream publishes, acknowledged on its inbox).
    otp: { publish: [n.event('otp.*')], subscribe: [] },
    // JetStream only (its consumer of the event batches).
    smpp: { publish: [], subscribe: [] },
  };
  const jetStream: string[] = [];
  const streams = ENSURED_STREAMS[service].map((s) => streamName[s]);
  const consumers = DURABLE_CONSUMERS[service];
  if (streams.length > 0 || consumers.length > 0) jetStream.push('$JS.API.INFO');
  for (const stream of streams) {
    jetStream.push(`$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`);
  }
  for (const { stream, durable } of consumers) {
    const s = streamName[stream];
    jetStream.push(
      // Servers from 2.9 name the consumer (and its filter) in the subject; older ones use DURABLE.CREATE.
      `$JS.API.CONSUMER.CREATE.${s}.${durable}`,
      `$JS.API.CONSUMER.CREATE.${s}.${durable}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${s}.${durable}`,
      `$JS.API.CONSUMER.INFO.${s}.${durable}`,
      `$JS.API.CONSUMER.MSG.NEXT.${s}.${durable}`,
      `$JS.ACK.${s}.${durable}.>`,
    );
  }
  // Whoever ensures the event batches stream makes its consumers that do not exist yet (ensureEventBatchInterest).
  if (streams.includes(n.eventBatchesStream) && service !== 'webhook') {
    for (const durable of EVENT_BATCH_DURABLES) {
      jetStream.push(
        `$JS.API.CONSUMER.CREATE.${n.eventBatchesStream}.${durable}`,
        `$JS.API.CONSUMER.CREATE.${n.eventBatchesStream}.${durable}.>`,
        `$JS.API.CONSUMER.DURABLE.CREATE.${n.eventBatchesStream}.${durable}`,
        `$JS.API.CONSUMER.INFO.${n.eventBatchesStream}.${durable}`,
      );
    }
  }
  const usesReplies = jetStream.length > 0;
  return {
    publish: [...own[service].publish, ...jetStream],
    subscribe: [...own[service].subscribe, ...(usesReplies ? [`${natsInboxPrefix(prefix, service)}.>`] : [])],
  };
}

/** Redis key patterns (after the key prefix, REDIS_PREFIX) each service reads and writes. */
const REDIS_KEYS: Record<RedisService, { readWrite: string[]; readOnly: string[] }> = {
  // authfail: the failed-authentication counter; presence and device-removed: read to answer X-Device-ID.
  // listen: the open GET /v1/events/listen sessions of each client (at most 5 at once); idempotency-budget: the bytes
  // of the answers kept for replays, per client and in all. key-usage: each key's SMS of each UTC day (its daily quota).
  gateway: {
    readWrite: ['authfail:*', 'idempotency:*', 'idempotency-budget:*', 'ratelimit:*', 'listen:*', 'key-usage:*'],
    readOnly: ['presence:*', 'device-removed:*'],
  },
  // key-usage: read to show each key's use of the day against its quota.
  dashboard: { readWrite: ['dashboard:*'], readOnly: ['key-usage:*'] },
  // hub-sent: each phone's SMS in its limits' windows (and each SIM's: hub-sent:<device>:sim<n>, the round robin's
  // last SIM: hub-sent:<device>:last-sim); presence-last: when a phone was last seen online; presence-client:
  // each client's online phones (the automatic choice draws from it); presence-offline: the phones gone lately (the
  // failover sweep); hub-budget: what each phone and each client sent of each budgeted frame in the window.
  'device-hub': {
    readWrite: [
      'pairing:*',
      'presence:*',
      'presence-last:*',
      'presence-client:*',
      'presence-offline:*',
      'hub-sent:*',
      'device-removed:*',
      'hub-budget:*',
    ],
    readOnly: [],
  },
  // otp-rate: the per-number limit; otp-user: the end-user key limit; otp-guard: the pumping guard's
  // windows by prefix and country; otp-hold: the prefixes and countries it holds.
  otp: { readWrite: ['otp-rate:*', 'otp-user:*', 'otp-guard:*', 'otp-hold:*'], readOnly: [] },
  // ratelimit: the client's rate limit, shared with the gateway; smpp-bindfail: refused binds per address.
  smpp: { readWrite: ['ratelimit:*', 'smpp-bindfail:*'], readOnly: [] },
};

/**
 * The commands every service may run: reads and writes of its own keys, MULTI (the dashboard's
 * sessions), the limiters' Lua scripts (EVALSHA, EVAL when the script is not cached yet, and what
 * the scripts call: TIME), and what ioredis sends on connecting (CLIENT SETNAME, INFO).
 * `-@dangerous` takes out KEYS, FLUSHALL, DEBUG, CONFIG, MIGRATE and the like.
 */
export const REDIS_COMMANDS = [
  '-@all',
  '+@read',
  '+@write',
  '+@transaction',
  '-@dangerous',
  // FUNCTION LOAD and FLUSH are writes, not dangerous: no service uses functions.
  '-function',
  '+eval',
  '+evalsha',
  '+time',
  '+ping',
  '+info',
  '+client|setname',
] as const;

/**
 * The ACL rules of a service's Redis user (after `ACL SETUSER <name> on >password`), for the key
 * prefix `keyPrefix` (REDIS_PREFIX). Read-only patterns use Redis 7's `%R~`.
 */
export function redisAclRules(service: RedisService, keyPrefix: string): string[] {
  const keys = REDIS_KEYS[service];
  return [
    'resetkeys',
    'resetchannels',
    ...keys.readWrite.map((k) => `~${keyPrefix}${k}`),
    ...keys.readOnly.map((k) => `%R~${keyPrefix}${k}`),
    ...REDIS_COMMANDS,
  ];
}

/** The key patterns of a service, for documentation (`%R~` read only). */
export function redisKeyPatterns(service: RedisService): { readWrite: string[]; readOnly: string[] } {
  return REDIS_KEYS[service];
}

/**
 * nats-server's configuration of the users (`authorization { users: [...] }`), for a config file.
 * `users` gives each service's user name and password; `admin`, when set, is a user with no limits
 * (for tools and tests).
 */
export function natsAuthorizationConfig(options: {
  prefix: string;
  users: Record<NatsService, { user: string; password: string }>;
  admin?: { user: string; password: string };
  /** A user allowed nothing, for `no_auth_user`: a connection without credentials can then do nothing. */
  anonymous?: { user: string; password: string };
}): string {
  const q = (s: string) => JSON.stringify(s);
  // An empty allow list would allow everything: a user with nothing to publish is denied all.
  const rule = (subjects: string[]) => (subjects.length > 0 ? `{ allow: [${subjects.map(q).join(', ')}] }` : `{ deny: [">"] }`);
  const entries = NATS_SERVICES.map((service) => {
    const { user, password } = options.users[service];
    const p = natsPermissions(service, options.prefix);
    return (
      `    { user: ${q(user)}, password: ${q(password)}, permissions: {\n` +
      `        publish: ${rule(p.publish)},\n` +
      `        subscribe: ${rule(p.subscribe)} } }`
    );
  });
  if (options.anonymous) {
    const { user, password } = options.anonymous;
    entries.push(
      `    { user: ${q(user)}, password: ${q(password)}, permissions: { publish: { deny: [">"] }, subscribe: { deny: [">"] } } }`,
    );
  }
  if (options.admin) entries.unshift(`    { user: ${q(options.admin.user)}, password: ${q(options.admin.password)} }`);
  return `authorization {\n  users: [\n${entries.join(',\n')}\n  ]\n}\n`;
}
