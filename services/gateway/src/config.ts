import { commonConfig, loadConfig } from '@smsgw/platform';

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      http: {
        host: env.str('HTTP_HOST', '0.0.0.0'),
        port: env.int('HTTP_PORT', 8443, { min: 0, max: 65535 }),
        /** In `native` mode a plain HTTP request on the same port gets 403 HTTPS_REQUIRED. */
        tls: commonConfig.tls(env),
      },
      grpcTls: commonConfig.grpcTls(env),
      accountAddress: env.str('ACCOUNT_GRPC_ADDR', '127.0.0.1:50051'),
      messageAddress: env.str('MESSAGE_GRPC_ADDR', '127.0.0.1:50052'),
      deviceHubAddress: env.str('DEVICE_HUB_GRPC_ADDR', '127.0.0.1:50053'),
      otpAddress: env.str('OTP_GRPC_ADDR', '127.0.0.1:50054'),
      /** How long a verified key is trusted without asking the account service (revocation delay). */
      redis: commonConfig.redis(env),
      rateLimit: {
        /** Requests a client may make in any window of `windowMs`, across every gateway replica. */
        limit: env.int('RATE_LIMIT_PER_MINUTE', 100, { min: 1 }),
        windowMs: env.int('RATE_LIMIT_WINDOW_MS', 60_000, { min: 1000 }),
      },
      idempotencyTtlSeconds: env.int('IDEMPOTENCY_TTL_SECONDS', 24 * 3600, { min: 60 }),
      /**
       * What the answers kept for Idempotency-Key replays may take in Redis: one answer (a larger
       * one is kept without its body), one client's in a TTL, every client's in a TTL. Past them
       * the message service answers the replays.
       */
      idempotencyBudget: {
        maxAnswerBytes: env.int('IDEMPOTENCY_MAX_ANSWER_BYTES', 32 * 1024, { min: 0 }),
        clientBytes: env.int('IDEMPOTENCY_CLIENT_BYTES', 2 * 1024 * 1024, { min: 0 }),
        totalBytes: env.int('IDEMPOTENCY_TOTAL_BYTES', 32 * 1024 * 1024, { min: 0 }),
      },
      /** A message's `webhook_url` with a private, loopback or link-local IP is refused unless this is on (as in the webhook service). */
      allowPrivateWebhooks: env.bool('WEBHOOK_ALLOW_PRIVATE_ADDRESSES', false),
      authCacheTtlMs: env.int('AUTH_CACHE_TTL_MS', 5000, { min: 0, max: 5000 }),
      /** How long a refused key is refused without asking again (so a key created just now works within this delay). */
      authNegativeCacheTtlMs: env.int('AUTH_NEGATIVE_CACHE_TTL_MS', 2000, { min: 0, max: 5000 }),
      /** Refused authentications allowed per client address in a window, across every replica; past it, 429. */
      authFailures: {
        limit: env.int('AUTH_FAILURE_LIMIT', 30, { min: 1 }),
        windowMs: env.int('AUTH_FAILURE_WINDOW_MS', 60_000, { min: 1000 }),
      },
      /** A Redis command unanswered after this long fails (503) rather than holding the request. */
      redisCommandTimeoutMs: env.int('REDIS_COMMAND_TIMEOUT_MS', 1000, { min: 50 }),
      /** How long the owner of a device is remembered (it never changes; presence is always read live). */
      deviceCacheTtlMs: env.int('DEVICE_CACHE_TTL_MS', 60_000, { min: 0 }),
      grpcDeadlineMs: env.int('GRPC_DEADLINE_MS', 5000, { min: 100 }),
      /**
       * Tests only: a file holding milliseconds added to the clock of the keys' daily quotas (the
       * end-to-end tests move a key's day forward with it). Unset: the system clock.
       */
      clockOffsetFile: env.optional('CLOCK_OFFSET_FILE'),
      /**
       * GET /v1/events/listen (`smsgw listen`): the events come from NATS, optional (without
       * NATS_URL, or while NATS is away, the route answers 503 and nothing else changes).
       */
      listen: {
        nats: env.optional('NATS_URL') ? commonConfig.nats(env) : undefined,
        /** Listeners a client may have open at once, across every replica. */
        maxPerClient: env.int('LISTEN_MAX_PER_CLIENT', 5, { min: 1, max: 100 }),
        /** A `: keepalive` comment this often, so that proxies keep the idle stream open. */
        keepaliveMs: env.int('LISTEN_KEEPALIVE_MS', 15_000, { min: 100, max: 60_000 }),
        /** How often an open stream checks its key again (through the same cache as requests): a revoked key's stream ends within AUTH_CACHE_TTL_MS and this. */
        keyCheckMs: env.int('LISTEN_KEY_CHECK_MS', 1000, { min: 100, max: 5000 }),
        /** Bytes a listener may leave unread before its stream is closed. */
        maxBufferedBytes: env.int('LISTEN_MAX_BUFFERED_BYTES', 1024 * 1024, { min: 16 * 1024 }),
      },
      /**
       * Single sends that arrive together go to the message service in one call,
       * stored in one statement: at most `maxBatch` a call, `maxInFlight` calls at once,
       * `maxWaiting` sends waiting for a call (more are refused with 503).
       */
      sendGather: {
        maxBatch: env.int('SEND_GATHER_MAX_BATCH', 100, { min: 1, max: 500 }),
        maxInFlight: env.int('SEND_GATHER_MAX_IN_FLIGHT', 4, { min: 1, max: 64 }),
        maxWaiting: env.int('SEND_GATHER_MAX_WAITING', 5000, { min: 1 }),
      },
    }),
    source,
  );
}
