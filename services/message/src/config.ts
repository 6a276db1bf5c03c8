import { commonConfig, loadConfig } from '@smsgw/platform';

export type MessageConfig = ReturnType<typeof loadMessageConfig>;

export function loadMessageConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50052),
      grpcTls: commonConfig.grpcTls(env),
      database: commonConfig.database(env, 'message'),
      nats: commonConfig.nats(env),
      /** The hub's pacing, used here only to estimate delivery times. */
      pacing: {
        minMs: env.int('DISPATCH_INTERVAL_MIN_MS', 2000, { min: 0 }),
        maxMs: env.int('DISPATCH_INTERVAL_MAX_MS', 3000, { min: 0 }),
      },
      /** How long an Idempotency-Key holds: a key older than this is free again (as the gateway's). */
      idempotencyTtlSeconds: env.int('IDEMPOTENCY_TTL_SECONDS', 24 * 3600, { min: 60 }),
      /** Full history is kept this long; older messages survive only as daily rollups. */
      retention: {
        days: env.int('RETENTION_DAYS', 90, { min: 1, max: 36_500 }),
      },
      /** The owner of devices: whether a device a send names is its client's. */
      deviceHubAddress: commonConfig.grpcAddress(env, 'DEVICE_HUB_GRPC_ADDR', '127.0.0.1:50053'),
      /** Timers of scheduled sends; the periodic jobs (retention) come from the scheduler too. */
      scheduler: {
        address: commonConfig.grpcAddress(env, 'SCHEDULER_GRPC_ADDR', '127.0.0.1:50055'),
        deadlineMs: env.int('SCHEDULER_DEADLINE_MS', 2000, { min: 100 }),
      },
      /** A message the phone accepted but never reported ends `failed` (`EXPIRED`) after this long. */
      reportTimeout: {
        timeoutMs: env.int('ACCEPTED_REPORT_TIMEOUT_MS', 86_400_000, { min: 1 }),
        /**
         * A local timer for the job, for a deployment without the scheduler; 0 (the
         * default) leaves it to the scheduler's `message.report-timeout` job.
         */
        intervalMs: env.int('ACCEPTED_REPORT_SWEEP_INTERVAL_MS', 0, { min: 0 }),
      },
      /** Reconciliation with the phones' digests (protocol 7). */
      reconcile: {
        /** An SMS whose last step on the phone is more recent than this is left alone: its report may still come. */
        graceMs: env.int('RECONCILE_GRACE_MS', 60_000, { min: 0 }),
        /** How far the phone's and the service's clocks may disagree once set against each other. */
        clockMarginMs: env.int('RECONCILE_CLOCK_MARGIN_MS', 30_000, { min: 0 }),
      },
      otp: {
        /** Seals the full text of OTP messages until a phone has it (AES-256-GCM): 32 bytes, hex or base64. */
        sealKey: env.key('OTP_SEAL_KEY', 32),
      },
      /**
       * A campaign's file between its upload and its send (the dashboard): how long it is kept,
       * and each client's caps on the files kept at once (per mode) and on their bytes.
       */
      campaignUploads: {
        ttlMs: env.int('CAMPAIGN_UPLOAD_TTL_MS', 3600_000, { min: 60_000, max: 24 * 3600_000 }),
        maxPerClient: env.int('CAMPAIGN_UPLOADS_PER_CLIENT', 5, { min: 1, max: 100 }),
        maxBytesPerClient: env.int('CAMPAIGN_UPLOAD_BYTES_PER_CLIENT', 6 * 1024 * 1024, { min: 2 * 1024 * 1024 }),
      },
      expiry: {
        /**
         * How often messages still waiting for a phone past their expiry (ttl, or an
         * OTP's) are failed with EXPIRED; 0 turns the sweep off. The name is from
         * when only OTP messages expired.
         */
        sweepMs: env.int('OTP_EXPIRY_SWEEP_MS', 5000, { min: 0 }),
      },
    }),
    source,
  );
}
