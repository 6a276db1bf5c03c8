import { commonConfig, loadConfig } from '@smsgw/platform';
import { DEFAULT_GUARD, GUARD_BOUNDS, type GuardSettings } from './domain/otp-guard';

const bounds = (name: keyof typeof GUARD_BOUNDS) => GUARD_BOUNDS[name];

export type OtpConfig = ReturnType<typeof loadOtpConfig>;

export function loadOtpConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50054),
      grpcTls: commonConfig.grpcTls(env),
      database: commonConfig.database(env, 'otp'),
      redis: commonConfig.redis(env),
      nats: commonConfig.nats(env),
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
      /**
       * The pumping guard's defaults, for every client that did not set its own (domain/otp-guard.ts
       * has the reasons and the bounds; the dashboard and `npm run admin -- set-otp-guard` change a
       * client's).
       */
      guard: {
        enabled: env.bool('OTP_GUARD_ENABLED', DEFAULT_GUARD.enabled),
        windowSeconds: env.int('OTP_GUARD_WINDOW_SECONDS', DEFAULT_GUARD.windowSeconds, bounds('window_seconds')),
        prefix: {
          minRequests: env.int('OTP_GUARD_PREFIX_MIN_REQUESTS', DEFAULT_GUARD.prefix.minRequests, bounds('prefix_min_requests')),
          minConversion: env.int('OTP_GUARD_PREFIX_MIN_CONVERSION', DEFAULT_GUARD.prefix.minConversion, bounds('prefix_min_conversion')),
        },
        country: {
          minRequests: env.int('OTP_GUARD_COUNTRY_MIN_REQUESTS', DEFAULT_GUARD.country.minRequests, bounds('country_min_requests')),
          minConversion: env.int('OTP_GUARD_COUNTRY_MIN_CONVERSION', DEFAULT_GUARD.country.minConversion, bounds('country_min_conversion')),
        },
        endUser: {
          limit: env.int('OTP_END_USER_LIMIT', DEFAULT_GUARD.endUser.limit, bounds('end_user_limit')),
          windowSeconds: env.int('OTP_END_USER_WINDOW_SECONDS', DEFAULT_GUARD.endUser.windowSeconds, bounds('end_user_window_seconds')),
        },
      } satisfies GuardSettings,
    }),
    source,
  );
}
