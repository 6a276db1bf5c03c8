import type { EnvReader } from './config';
import { DEFAULT_TRUSTED_PROXIES, TrustedProxies } from './net/forwarded';

/**
 * The URL with the user name and password put in, each percent-encoded. The
 * Helm chart gives passwords in their own variables (from Secrets), apart from
 * the URLs, so that a password may hold any character.
 */
export function withCredentials(url: string | undefined, username: string | undefined, password: string | undefined): string | undefined {
  if (url === undefined || (username === undefined && password === undefined)) return url;
  const parsed = new URL(url);
  if (username !== undefined) parsed.username = encodeURIComponent(username);
  if (password !== undefined) parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/**
 * How a public endpoint (gateway, dashboard, the hub's phones) speaks TLS. `native`: the process
 * serves HTTPS with TLS_CERT_FILE and TLS_KEY_FILE (both then required). `proxy`: a trusted proxy
 * (an Ingress) terminates TLS and forwards plain HTTP, saying `X-Forwarded-Proto: https`; its
 * forwarded headers are believed only from TRUSTED_PROXIES (net/forwarded.ts).
 */
export type TlsSettings = { mode: 'native'; certFile: string; keyFile: string } | { mode: 'proxy'; trustedProxies: readonly string[] };

/** Settings every backend service reads the same way. */
export const commonConfig = {
  grpc: (env: EnvReader, defaultPort: number) => ({
    host: env.str('GRPC_HOST', '0.0.0.0'),
    port: env.int('GRPC_PORT', defaultPort, { min: 0, max: 65535 }),
  }),
  database: (env: EnvReader, defaultSchema: string) => ({
    /** DATABASE_URL, with DATABASE_PASSWORD (when set) as its password. */
    url: withCredentials(
      env.url('DATABASE_URL', undefined, ['postgres', 'postgresql']),
      undefined,
      env.optional('DATABASE_PASSWORD'),
    ) as string,
    schema: env.str('DATABASE_SCHEMA', defaultSchema),
    poolMax: env.int('DATABASE_POOL_MAX', 10, { min: 1, max: 200 }),
  }),
  nats: (env: EnvReader) => ({
    url: env.str('NATS_URL', 'nats://127.0.0.1:4222'),
    /** Subject and stream prefix; empty in production, set per test run. */
    prefix: env.str('NATS_PREFIX', ''),
    /** Replicas of the platform's JetStream streams: 3 on a NATS cluster, so that a lost node loses nothing. */
    streamReplicas: env.int('NATS_STREAM_REPLICAS', 1, { min: 1, max: 5 }),
    /** User and password, when the NATS server asks for them. */
    user: env.optional('NATS_USER'),
    password: env.optional('NATS_PASSWORD'),
  }),
  redis: (env: EnvReader) => ({
    /** REDIS_URL, with REDIS_USERNAME (an ACL user) and REDIS_PASSWORD when set. */
    url: withCredentials(
      env.url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis', 'rediss']),
      env.optional('REDIS_USERNAME'),
      env.optional('REDIS_PASSWORD'),
    ) as string,
    keyPrefix: env.str('REDIS_PREFIX', 'smsgw:'),
  }),
  grpcAddress: (env: EnvReader, name: string, fallback: string) => env.str(name, fallback),
  tls: (env: EnvReader): TlsSettings =>
    env.oneOf('TLS_MODE', ['native', 'proxy'] as const, 'native') === 'proxy'
      ? {
          mode: 'proxy',
          trustedProxies: env.parsed('TRUSTED_PROXIES', DEFAULT_TRUSTED_PROXIES.join(','), (t) => TrustedProxies.parse(t).ranges),
        }
      : { mode: 'native', certFile: env.str('TLS_CERT_FILE'), keyFile: env.str('TLS_KEY_FILE') },
};
