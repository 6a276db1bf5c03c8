import { commonConfig, loadConfig } from '@smsgw/platform';

export type OtpConfig = ReturnType<typeof loadOtpConfig>;

export function loadOtpConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50054),
      database: commonConfig.database(env, 'otp'),
      redis: commonConfig.redis(env),
      messageAddress: env.str('MESSAGE_GRPC_ADDR', '127.0.0.1:50052'),
      grpcDeadlineMs: env.int('GRPC_DEADLINE_MS', 5000, { min: 100 }),
      /**
       * Keys the hashes of codes (HMAC-SHA256, bound to the OTP id) and of
       * phone numbers in rate-limit keys: 32 bytes or more, hex or base64.
       */
      hashKey: env.key('OTP_HASH_KEY', 32),
      /** OTPs whose expiry passed this long ago are deleted (hourly). */
      keepExpiredHours: env.int('OTP_KEEP_EXPIRED_HOURS', 24, { min: 1 }),
    }),
    source,
  );
}
