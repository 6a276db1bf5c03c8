import { commonConfig, loadConfig } from '@smsgw/platform';

export type SmppConfig = ReturnType<typeof loadSmppConfig>;

export function loadSmppConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpcTls: commonConfig.grpcTls(env),
      database: commonConfig.database(env, 'smpp'),
      nats: commonConfig.nats(env),
      redis: commonConfig.redis(env),
      accountAddress: commonConfig.grpcAddress(env, 'ACCOUNT_GRPC_ADDR', '127.0.0.1:50051'),
      messageAddress: commonConfig.grpcAddress(env, 'MESSAGE_GRPC_ADDR', '127.0.0.1:50052'),
      deviceHubAddress: commonConfig.grpcAddress(env, 'DEVICE_HUB_GRPC_ADDR', '127.0.0.1:50053'),
      /** Deadline of each call to the other services. */
      grpcDeadlineMs: env.int('SMPP_GRPC_DEADLINE_MS', 5000, { min: 100 }),
      listen: {
        host: env.str('SMPP_HOST', '0.0.0.0'),
        /** SMPP over TLS (the server's certificate: TLS_CERT_FILE and TLS_KEY_FILE). */
        tlsPort: env.int('SMPP_TLS_PORT', 3550, { min: 0, max: 65535 }),
        /** Plain TCP, for SMPP clients on a private network only; unset: off. */
        plainPort: env.optional('SMPP_PLAIN_PORT') === undefined ? undefined : env.int('SMPP_PLAIN_PORT', 2775, { min: 0, max: 65535 }),
        certFile: env.str('TLS_CERT_FILE'),
        keyFile: env.str('TLS_KEY_FILE'),
        /** Plain HTTP `/healthz` and `/readyz` for the probes. */
        healthPort: env.int('SMPP_HEALTH_PORT', 2776, { min: 0, max: 65535 }),
      },
      session: {
        /** Requests of a session (submit_sm, query_sm, cancel_sm) under way at once; past it ESME_RMSGQFUL. */
        window: env.int('SMPP_WINDOW', 10, { min: 1, max: 1000 }),
        /** deliver_sm sent to one session without their answer yet. */
        deliverWindow: env.int('SMPP_DELIVER_WINDOW', 10, { min: 1, max: 1000 }),
        /** A deliver_sm unanswered this long ends its session (it is sent again at the next bind). */
        responseTimeoutMs: env.int('SMPP_RESPONSE_TIMEOUT_MS', 30_000, { min: 1000 }),
        /** A session that sends nothing (not even enquire_link) this long is closed. */
        idleTimeoutMs: env.int('SMPP_IDLE_TIMEOUT_MS', 120_000, { min: 5000 }),
        /** A connection that has not bound within this long is closed. */
        bindTimeoutMs: env.int('SMPP_BIND_TIMEOUT_MS', 10_000, { min: 1000 }),
        /** The parts of a long message must all come within this long of the first. */
        concatTimeoutMs: env.int('SMPP_CONCAT_TIMEOUT_MS', 60_000, { min: 1000 }),
        /** Long messages being gathered at once per session. */
        concatMaxMessages: env.int('SMPP_CONCAT_MAX_MESSAGES', 100, { min: 1 }),
        /** Sessions bound at once on this replica. */
        maxSessions: env.int('SMPP_MAX_SESSIONS', 1000, { min: 1 }),
      },
      /** The client's rate limit: the gateway's, counted on the same Redis keys (set both services alike). */
      rateLimit: {
        limit: env.int('RATE_LIMIT_PER_MINUTE', 100, { min: 1 }),
        windowMs: env.int('RATE_LIMIT_WINDOW_MS', 60_000, { min: 1000 }),
      },
      /** Refused binds allowed per address in a window; past it, that address's binds are refused without asking. */
      bindFailures: {
        limit: env.int('SMPP_BIND_FAILURE_LIMIT', 10, { min: 1 }),
        windowMs: env.int('SMPP_BIND_FAILURE_WINDOW_MS', 300_000, { min: 1000 }),
      },
      pending: {
        /** Receipts and received SMS waiting for a receiver, per client and mode; past it the oldest go. */
        maxPerClient: env.int('SMPP_PENDING_MAX_PER_CLIENT', 10_000, { min: 1 }),
        /** Days a waiting receipt or received SMS, and a submit waiting for its outcome, is kept. */
        keepDays: env.int('SMPP_PENDING_DAYS', 7, { min: 1, max: 90 }),
        /** How often waiting ones are looked for, for the clients bound here. */
        pollMs: env.int('SMPP_PENDING_POLL_MS', 1000, { min: 50 }),
      },
    }),
    source,
  );
}
