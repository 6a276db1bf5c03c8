import { commonConfig, loadConfig } from '@smsgw/platform';

export type AccountConfig = ReturnType<typeof loadAccountConfig>;

export function loadAccountConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50051),
      grpcTls: commonConfig.grpcTls(env),
      database: commonConfig.database(env, 'account'),
      emailLinks: {
        /** How long the link that verifies an owner's alert address works. */
        verificationTtlMs: env.int('EMAIL_VERIFICATION_TTL_MS', 48 * 3600_000, { min: 60_000 }),
        /** How long a password reset link works. */
        resetTtlMs: env.int('PASSWORD_RESET_TTL_MS', 30 * 60_000, { min: 60_000, max: 24 * 3600_000 }),
      },
    }),
    source,
  );
}
