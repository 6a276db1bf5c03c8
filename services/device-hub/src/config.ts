import { commonConfig, loadConfig } from '@smsgw/platform';

export type DeviceHubConfig = ReturnType<typeof loadDeviceHubConfig>;

export function loadDeviceHubConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50053),
      grpcTls: commonConfig.grpcTls(env),
      database: commonConfig.database(env, 'devicehub'),
      nats: commonConfig.nats(env),
      redis: commonConfig.redis(env),
      messageAddress: env.str('MESSAGE_GRPC_ADDR', '127.0.0.1:50052'),
      /** The account service: each client's failover delay (the failover sweep) and SIM rule (the sessions). */
      accountAddress: commonConfig.grpcAddress(env, 'ACCOUNT_GRPC_ADDR', '127.0.0.1:50051'),
      agents: {
        host: env.str('AGENT_HOST', '0.0.0.0'),
        port: env.int('AGENT_PORT', 8444, { min: 0, max: 65535 }),
        /** Address phones use to reach this hub (pairing URLs); defaults to https://127.0.0.1:<port>. */
        publicUrl: env.optional('HUB_PUBLIC_URL'),
        tls: commonConfig.tls(env),
        /**
         * The file of the TLS session-ticket keys (the base64 of 48 random bytes), shared by every
         * replica and kept across restarts, so that a reconnecting phone resumes its session
         * instead of a full handshake (the RSA signature is most of the hub's CPU per phone in a
         * reconnection storm); read at start (agent-server.ts). Only used when the hub ends TLS
         * itself (TLS_MODE=native); unset, each process makes its own keys.
         */
        ticketKeysFile: env.optional('HUB_TLS_TICKET_KEYS_FILE'),
        /** How often that file is read again, so that keys the secrets Job rotated take effect without a restart. */
        ticketKeysReloadMs: env.int('HUB_TLS_TICKET_KEYS_RELOAD_MS', 60_000, { min: 100 }),
      },
      dispatch: {
        minIntervalMs: env.int('DISPATCH_INTERVAL_MIN_MS', 2000, { min: 0 }),
        maxIntervalMs: env.int('DISPATCH_INTERVAL_MAX_MS', 3000, { min: 0 }),
        leaseMs: env.int('DISPATCH_LEASE_MS', 30_000, { min: 1000 }),
        /** Longest wait without a wake-up before the queue is checked anyway. */
        sweepMs: env.int('DISPATCH_SWEEP_MS', 15_000, { min: 100 }),
        /**
         * Each time an idle phone finds its queue empty again, its wait doubles, up to this (never
         * below sweepMs): an idle fleet does not poll the queue (a claim per phone every sweep).
         */
        idleSweepMaxMs: env.int('DISPATCH_IDLE_SWEEP_MAX_MS', 60_000, { min: 100 }),
        /**
         * How long the phones' claims and acknowledgements wait for others of the moment before
         * they go to the message service together (0: the next turn of the event loop). An idle
         * phone's SMS waits for its claim, so this stays short.
         */
        batchWindowMs: env.int('DISPATCH_BATCH_WINDOW_MS', 20, { min: 0, max: 1000 }),
        /**
         * How long the phones' reports wait for others before they go to JetStream together: one
         * batch, then one statement, one commit and one event batch downstream for all of them.
         * Only the events wait on a report, so this can be longer: at 100 ms the whole path costs
         * a sixth less CPU per SMS than at 20 ms (bench/fleet/RESULTS-LOG.md) for about 80 ms more
         * between a phone's report and its webhook.
         */
        reportWindowMs: env.int('REPORT_BATCH_WINDOW_MS', 100, { min: 0, max: 1000 }),
      },
      testMode: {
        pollMs: env.int('TEST_MODE_POLL_MS', 1000, { min: 50 }),
        sentDelayMs: env.int('TEST_MODE_SENT_DELAY_MS', 200, { min: 0 }),
        deliveryDelayMs: env.int('TEST_MODE_DELIVERY_DELAY_MS', 500, { min: 0 }),
      },
      pingIntervalMs: env.int('AGENT_PING_INTERVAL_MS', 25_000, { min: 100 }),
      /**
       * What one phone, and all the phones of one client, may send the hub in a window
       * (PROTOCOL.md §3, budgets), counted in Redis across replicas: received SMS in parts (a
       * received SMS weighs its SMS parts), acks and reports in frames. Far above what real phones
       * send at the hub's pace; past one, the frame is not stored (a received SMS is answered
       * `received_retry`, the phone keeps it).
       */
      budgets: {
        windowMs: env.int('HUB_BUDGET_WINDOW_MS', 60_000, { min: 1000 }),
        received: {
          device: env.int('HUB_RECEIVED_BUDGET_PER_DEVICE', 120, { min: 1 }),
          client: env.int('HUB_RECEIVED_BUDGET_PER_CLIENT', 1200, { min: 1 }),
        },
        ack: {
          device: env.int('HUB_ACK_BUDGET_PER_DEVICE', 1200, { min: 20 }),
          client: env.int('HUB_ACK_BUDGET_PER_CLIENT', 120_000, { min: 20 }),
        },
        report: {
          device: env.int('HUB_REPORT_BUDGET_PER_DEVICE', 2400, { min: 20 }),
          client: env.int('HUB_REPORT_BUDGET_PER_CLIENT', 240_000, { min: 20 }),
        },
      },
      presenceTtlMs: env.int('PRESENCE_TTL_MS', 60_000, { min: 1000 }),
      /** How often each replica checks that its phones' tokens are still good (closes revoked ones). */
      credentialCheckMs: env.int('HUB_CREDENTIAL_CHECK_MS', 2000, { min: 100 }),
      /** How often each replica looks for messages stranded on offline or removed phones (0: never). */
      failoverSweepMs: env.int('HUB_FAILOVER_SWEEP_MS', 5000, { min: 0 }),
      /**
       * How often the failover sweep looks at every device holding stranded messages; between,
       * it looks only at the phones that went offline lately (a handful, whatever the fleet).
       */
      failoverFullSweepMs: env.int('HUB_FAILOVER_FULL_SWEEP_MS', 60_000, { min: 0 }),
      /**
       * How often each replica reads the limits of all its phones again, a query per 1,000 phones
       * (a lost SetDeviceLimits order is made up by it); above a minute, a session past a minute
       * without a reload reads its own.
       */
      limitsReloadMs: env.int('HUB_LIMITS_RELOAD_MS', 30_000, { min: 100 }),
      /** How often the phones' telemetry samples older than a day are deleted (issue 38). */
      /**
       * The offline warning (issue 38): how often each replica looks for phones offline past their
       * account's delay (0: never), and the delay of an account that set none (0: no warning).
       */
      offlineAlert: {
        sweepMs: env.int('HUB_OFFLINE_ALERT_SWEEP_MS', 60_000, { min: 0 }),
        defaultSeconds: env.int('HUB_OFFLINE_ALERT_DEFAULT_SECONDS', 1800, { min: 0, max: 7 * 86_400 }),
      },
      telemetryPurgeMs: env.int('HUB_TELEMETRY_PURGE_MS', 10 * 60_000, { min: 100 }),
      pairing: {
        codeTtlMs: env.int('PAIRING_CODE_TTL_MS', 15 * 60_000, { min: 60_000, max: 24 * 3600_000 }),
        rateLimit: env.int('PAIRING_RATE_LIMIT', 20, { min: 1 }),
        rateWindowMs: env.int('PAIRING_RATE_WINDOW_MS', 15 * 60_000, { min: 1000 }),
        maxFailures: env.int('PAIRING_MAX_FAILURES', 5, { min: 1 }),
        lockMs: env.int('PAIRING_LOCK_MS', 15 * 60_000, { min: 1000 }),
        /** Pairings one device may make in `perDeviceWindowMs` (each revokes the device's earlier tokens). */
        perDeviceMax: env.int('PAIRING_PER_DEVICE_MAX', 5, { min: 1 }),
        perDeviceWindowMs: env.int('PAIRING_PER_DEVICE_WINDOW_MS', 3600_000, { min: 1000 }),
        /** Phones one client may have (CreateDevice; the operator's bulk CreateDevices is not held to it); 0: no cap. */
        maxDevicesPerClient: env.int('HUB_MAX_PHONES_PER_CLIENT', 100, { min: 0 }),
      },
    }),
    source,
  );
}
