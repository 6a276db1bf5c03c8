import { commonConfig, loadConfig } from '@smsgw/platform';

export type OtpConfig = ReturnType<typeof loadOtpConfig>;

export function loadOtpConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50054),
      grpcTls: commonConfig.grpcTls(env),
      database: commonConfig.database(env, 'otp'),
      redis: commonConfig.redis(env),
      messageAddress: env.str('MESSAGE_GRPC_ADDR', '127.0.0.1:50052'),
      grpcDeadlineMs: env.int('GRPC_DEADLINE_MS', 5000, { min: 100 }),
      /**
       * Keys the hashes of codes (HMAC-SHA256, bound to the OTP id) and of
       * phone numbers in rate-limit keys: 32 bytes or more, hex or base64.
       */
      hashKey: env.key('OTP_HASH_KEY', 32),
      /** Seals an OTP's SMS text until its SMS is stored (AES-256-GCM), as the message service does: 32 bytes, hex or base64. */
      sealKey: env.key('OTP_SEAL_KEY', 32),
      /** How long a send-otp Idempotency-Key answers the OTP it made (as the gateway's and the message service's keys). */
      idempotencyTtlSeconds: env.int('IDEMPOTENCY_TTL_SECONDS', 24 * 3600, { min: 60 }),
      /** OTPs whose expiry passed this long ago are deleted (hourly). */
      keepExpiredHours: env.int('OTP_KEEP_EXPIRED_HOURS', 24, { min: 1 }),
    }),
    source,
  );
}
