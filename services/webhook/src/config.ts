import { commonConfig, ConfigError, loadConfig } from '@smsgw/platform';

export type WebhookConfig = ReturnType<typeof loadWebhookConfig>;

/** `60000,300000`: the waits before attempts 2, 3, ... */
function parseDelays(text: string): number[] {
  const delays = text.split(',').map((s) => Number(s.trim()));
  if (delays.length === 0 || delays.some((d) => !Number.isInteger(d) || d < 0)) {
    throw new ConfigError([`WEBHOOK_RETRY_DELAYS_MS: "${text}" is not a list of milliseconds such as 60000,300000`]);
  }
  return delays;
}

export function loadWebhookConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50056),
      grpcTls: commonConfig.grpcTls(env),
      database: commonConfig.database(env, 'webhook'),
      nats: commonConfig.nats(env),
      /** The client's signing secret (per-message URLs) and e-mail address (alerts). */
      accountAddress: commonConfig.grpcAddress(env, 'ACCOUNT_GRPC_ADDR', '127.0.0.1:50051'),
      /** Retry timers. */
      scheduler: {
        address: commonConfig.grpcAddress(env, 'SCHEDULER_GRPC_ADDR', '127.0.0.1:50055'),
        deadlineMs: env.int('SCHEDULER_DEADLINE_MS', 2000, { min: 100 }),
      },
      delivery: {
        /** `User-Agent: <name>-Webhook/1.0`. */
        userAgentName: env.str('WEBHOOK_USER_AGENT_NAME', 'SMSGateway'),
        /** A receiver that has not answered within this long has failed the attempt. */
        timeoutMs: env.int('WEBHOOK_TIMEOUT_MS', 5000, { min: 100, max: 60_000 }),
        /** Waits before attempts 2, 3, ...; their number plus one is the number of attempts. */
        retryDelaysMs: parseDelays(env.str('WEBHOOK_RETRY_DELAYS_MS', '60000,300000')),
        /** Attempts in flight across every destination. */
        maxInFlight: env.int('WEBHOOK_MAX_IN_FLIGHT', 256, { min: 1, max: 10_000 }),
        /** Attempts in flight to one destination (an endpoint, or a message's URL): a slow receiver holds no more. */
        perDestination: env.int('WEBHOOK_PER_DESTINATION', 32, { min: 1, max: 1000 }),
        /** Attempts in flight for one client, whatever its destinations: many slow URLs of one client hold no more. */
        perClient: env.int('WEBHOOK_PER_CLIENT', 64, { min: 1, max: 10_000 }),
        /** How long a batched endpoint's batch gathers events after its first one before it leaves (sooner when it holds 100). */
        batchWindowMs: env.int('WEBHOOK_BATCH_WINDOW_MS', 1000, { min: 10, max: 1000 }),
        /** Deliveries waiting in memory for one destination; beyond, they wait in Postgres for the sweep. */
        maxQueuedPerDestination: env.int('WEBHOOK_MAX_QUEUED_PER_DESTINATION', 2000, { min: 1 }),
        /** Bytes of a receiver's answer that are read (the rest is discarded). */
        maxResponseBytes: env.int('WEBHOOK_MAX_RESPONSE_BYTES', 65_536, { min: 0 }),
        /**
         * Private, loopback and link-local destinations are refused unless this
         * is on: for development and tests only.
         */
        allowPrivateAddresses: env.bool('WEBHOOK_ALLOW_PRIVATE_ADDRESSES', false),
        /** Extra CA certificates (PEM file) trusted for receivers: a development receiver's local CA. */
        extraCaFile: env.optional('WEBHOOK_EXTRA_CA_FILE'),
        /** How often overdue deliveries and unsent alerts are looked for (the safety net). */
        sweepIntervalMs: env.int('WEBHOOK_SWEEP_INTERVAL_MS', 30_000, { min: 100 }),
        /** A lease on a delivery being attempted; a replica that dies holding it delays it this long. */
        leaseMs: env.int('WEBHOOK_LEASE_MS', 30_000, { min: 1000 }),
      },
      /** Endpoints one client may have at once: each one multiplies every event it subscribes to. */
      maxEndpointsPerClient: env.int('WEBHOOK_MAX_ENDPOINTS_PER_CLIENT', 20, { min: 1, max: 1000 }),
      /** Events, deliveries and attempts older than this are deleted by the `webhook.cleanup` job. */
      keepDays: env.int('WEBHOOK_LOG_DAYS', 30, { min: 1, max: 3650 }),
      alerts: {
        /** `smtp://host:port` (or `smtps://`); alerts are logged, not sent, when it is unset. */
        smtpUrl: env.optional('SMTP_URL'),
        from: env.str('ALERT_FROM', 'SMS Gateway <alerts@smsgateway.local>'),
      },
    }),
    source,
  );
}
