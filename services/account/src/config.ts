import { commonConfig, loadConfig } from '@smsgw/platform';

export type AccountConfig = ReturnType<typeof loadAccountConfig>;

export function loadAccountConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50051),
      grpcTls: commonConfig.grpcTls(env),
      database: commonConfig.database(env, 'account'),
    }),
    source,
  );
}
