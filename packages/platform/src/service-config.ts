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

/**
 * How a process speaks internal gRPC. `mtls` (the default): every connection is mutual TLS, with
 * the process's certificate and key and the CA that signs every service's certificate; the
 * identity is the certificate's `spiffe://smsgw/<identity>` URI. `off` (GRPC_TLS=off): plaintext,
 * only for a service mesh that already does mutual TLS between pods; callers are then unknown and
 * the per-RPC allowlists cannot be checked.
 */
export type GrpcTlsSettings = { mode: 'mtls'; caFile: string; certFile: string; keyFile: string } | { mode: 'off' };

/** The PEM contents themselves (tests, the stack's own clients), instead of files. */
export interface GrpcTlsPem {
  mode: 'mtls';
  ca: string | Buffer;
  cert: string | Buffer;
  key: string | Buffer;
}

/** What a gRPC server or client is given: the settings read from the environment, or the PEMs. */
export type GrpcTls = GrpcTlsSettings | GrpcTlsPem;

const GRPC_TLS_FILES = ['GRPC_TLS_CA_FILE', 'GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE'] as const;

/** Settings every backend service reads the same way. */
export const commonConfig = {
  grpc: (env: EnvReader, defaultPort: number) => {
    const port = env.int('GRPC_PORT', defaultPort, { min: 0, max: 65535 });
    return {
      host: env.str('GRPC_HOST', '0.0.0.0'),
      port,
      /** The plaintext port serving only grpc.health.v1.Health, for probes that cannot speak TLS. */
      healthPort: env.int('GRPC_HEALTH_PORT', port === 0 ? 0 : Math.min(port + 100, 65535), { min: 0, max: 65535 }),
    };
  },
  /** Read by every process that serves or calls internal gRPC. */
  grpcTls: (env: EnvReader): GrpcTls => {
    if (env.oneOf('GRPC_TLS', ['on', 'off'] as const, 'on') === 'off') return { mode: 'off' };
    const [caFile, certFile, keyFile] = GRPC_TLS_FILES.map((name) => env.optional(name));
    if (caFile === undefined || certFile === undefined || keyFile === undefined) {
      env.problem(
        `internal gRPC is mutual TLS: set ${GRPC_TLS_FILES.join(', ')} (PEM files), or GRPC_TLS=off behind a service mesh that already does mutual TLS`,
      );
      return { mode: 'off' };
    }
    return { mode: 'mtls', caFile, certFile, keyFile };
  },
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
    /** Each stream's byte budget (the event batches get twice it): see `streamConfigs`. */
    streamMaxBytes: env.int('NATS_STREAM_MAX_BYTES', 1024 ** 3, { min: 1024 ** 2 }),
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
