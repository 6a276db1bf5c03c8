// Over 300 lines: both ends of a gRPC call, the server (handlers, error mapping, readiness,
// callers) and the client (channels, deadlines, errors back to AppError, health checks), kept
// together because each reads what the other writes (the status and its code metadata).
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation, service as healthService } from 'grpc-health-check';
import { AppError, fromServiceError, toServiceError } from './errors';
import { callerIdentity, channelCredentials, identityServing, serverCredentials } from './grpc-tls';
import type { GrpcTls } from './service-config';
import { isRedisUnavailable } from './redis';
import { isPostgresUnavailable } from './db';
import { isStorableJson } from './storable-text';
import type { Logger } from './logger';
import { recordRpc } from './metrics';
import type { ServiceIdentity } from './service-identity';

type AsyncUnary<H> =
  H extends grpc.handleUnaryCall<infer Req, infer Res> ? (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res> : never;

/** The async form of a generated `...Handlers` interface: every method returns a promise. */
export type AsyncHandlers<H> = { [K in keyof H]: AsyncUnary<H[K]> };

/**
 * Adapts async handlers to grpc-js callbacks. Thrown AppErrors become their
 * gRPC status with the error code in metadata; anything else is logged and
 * answered INTERNAL without leaking its text, except when the request holds
 * text that cannot be stored (U+0000, which Postgres refuses in text): a
 * handler that let it through to SQL (a dashboard form value, an id) failed on
 * the request, which is answered VALIDATION_ERROR (INVALID_ARGUMENT). A
 * handler's own check of such text (INVALID_CHARACTER with its field) wins.
 */
export function unaryHandlers<H extends grpc.UntypedServiceImplementation>(impl: AsyncHandlers<H>, log: Logger): H {
  const out: grpc.UntypedServiceImplementation = {};
  for (const [name, fn] of Object.entries(impl) as [string, (req: unknown, call: unknown) => Promise<unknown>][]) {
    out[name] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const started = performance.now();
      fn(call.request, call).then(
        (response) => {
          log.debug({ method: name, duration_ms: Math.round(performance.now() - started) }, 'gRPC call');
          recordRpc(name, 'OK', (performance.now() - started) / 1000);
          callback(null, response);
        },
        (thrown: unknown) => {
          // A dependency that cannot be reached now (Redis, Postgres restarting, a refused connection) is UNAVAILABLE, not a bug.
          // A request holding text that cannot be stored (U+0000, which Postgres refuses in text) that
          // no check of the handler's caught fails in SQL: the request is wrong, not the service.
          const err =
            thrown instanceof AppError
              ? thrown
              : isRedisUnavailable(thrown) || isPostgresUnavailable(thrown)
                ? new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 1, cause: thrown })
                : !isStorableJson(call.request)
                  ? new AppError('VALIDATION_ERROR', {
                      message: 'Un champ contient un caractère qui ne peut pas être enregistré (U+0000).',
                      cause: thrown,
                    })
                  : thrown;
          if (!(err instanceof AppError) || err.code === 'INTERNAL_ERROR') log.error({ err, method: name }, 'gRPC handler failed');
          else if (err.code === 'SERVICE_UNAVAILABLE') log.warn({ err: err.cause, method: name }, 'a dependency is unavailable');
          else log.debug({ method: name, code: err.code, duration_ms: Math.round(performance.now() - started) }, 'gRPC call');
          recordRpc(name, err instanceof AppError ? err.code : 'INTERNAL_ERROR', (performance.now() - started) / 1000);
          callback(toServiceError(err));
        },
      );
    };
  }
  return out as H;
}

export interface GrpcServerHandle {
  port: number;
  /** The plaintext port that serves only grpc.health.v1.Health (for probes that cannot speak TLS). */
  healthPort: number;
  /** Flip readiness of every service (and the overall "" entry) served here. */
  setServing(serving: boolean): void;
  stop(graceMs?: number): Promise<void>;
}

export interface ServiceRegistration {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
  /** Fully qualified name for health checks, e.g. `smsgw.account.v1.AccountService`. */
  name: string;
  /**
   * Who may call each method (by handler name): a method absent is refused to everyone. Absent
   * altogether, any caller with a certificate of the CA may call every method.
   */
  callers?: Readonly<Record<string, readonly ServiceIdentity[]>>;
}

/** The answer to a caller not allowed: PERMISSION_DENIED naming the caller and the method. */
function callerRefused(caller: ServiceIdentity | undefined, path: string): Partial<grpc.StatusObject> {
  return { code: grpc.status.PERMISSION_DENIED, details: `${caller ?? 'a caller without an smsgw identity'} may not call ${path}` };
}

/** Checks the caller's identity (from its client certificate) against the method's allowlist before the handler runs. */
function callersOnly(
  s: ServiceRegistration & { callers: Readonly<Record<string, readonly ServiceIdentity[]>> },
  log: Logger | undefined,
): grpc.UntypedServiceImplementation {
  const out: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(s.implementation)) {
    const unary = handler as (call: unknown, callback?: grpc.sendUnaryData<unknown>) => void;
    const allowed = s.callers[name] ?? [];
    const path = (s.definition[name] as { path?: string } | undefined)?.path ?? name;
    out[name] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback?: grpc.sendUnaryData<unknown>) => {
      const caller = callerIdentity(call);
      if ((caller === undefined || !allowed.includes(caller)) && typeof callback === 'function') {
        log?.warn({ caller: caller ?? 'unknown', method: path }, 'gRPC call refused: caller not allowed');
        recordRpc(name, 'CALLER_NOT_ALLOWED', 0);
        callback(callerRefused(caller, path));
        return;
      }
      unary(call, callback);
    }) as grpc.UntypedHandleCall;
  }
  return out;
}

/**
 * Until the first `setServing(true)` (migrations not yet run), every unary
 * call is refused with UNAVAILABLE (SERVICE_UNAVAILABLE): the port is bound
 * early, but no handler runs against a schema that is not there yet.
 */
function refusedUntilReady(implementation: grpc.UntypedServiceImplementation, isReady: () => boolean): grpc.UntypedServiceImplementation {
  const out: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(implementation)) {
    const unary = handler as (call: unknown, callback?: grpc.sendUnaryData<unknown>) => void;
    out[name] = ((call: unknown, callback?: grpc.sendUnaryData<unknown>) => {
      if (!isReady() && typeof callback === 'function') {
        callback(toServiceError(new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 1 })));
        return;
      }
      unary(call, callback);
    }) as grpc.UntypedHandleCall;
  }
  return out;
}

/** The health service name a liveness probe asks for (the Helm chart's probes use it). */
export const LIVENESS_SERVICE = 'liveness';
const MAX_CONNECTION_AGE_MS = 5 * 60_000;

function bind(server: grpc.Server, address: string, credentials: grpc.ServerCredentials): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.bindAsync(address, credentials, (err, bound) => (err ? reject(err) : resolve(bound)));
  });
}

/**
 * Starts a gRPC server that also serves `grpc.health.v1.Health`, on its main port (mutual TLS
 * unless `tls` is off) and alone on a plaintext health port. Every service answers NOT_SERVING
 * until `setServing(true)` is called, once its dependencies are ready, and refuses calls with
 * UNAVAILABLE until then. With mutual TLS, each service's `callers` are checked before its handlers.
 */
export async function startGrpcServer(options: {
  host?: string;
  port: number;
  /** The plaintext health port; absent, the port + 100 (a free one when `port` is 0). */
  healthPort?: number;
  tls: GrpcTls;
  services: ServiceRegistration[];
  log?: Logger;
}): Promise<GrpcServerHandle> {
  const host = options.host ?? '0.0.0.0';
  const server = new grpc.Server({
    'grpc.keepalive_permit_without_calls': 1,
    // Clients reconnect (and so re-resolve the service's addresses) at least
    // this often, so replicas added by a scale-up get their share of calls.
    'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
    'grpc.max_connection_age_grace_ms': 30_000,
  });
  const names = ['', ...options.services.map((s) => s.name)];
  const health = new HealthImplementation({
    ...Object.fromEntries(names.map((n) => [n, 'NOT_SERVING' as const])),
    // The liveness probe's service: SERVING while the process answers at all,
    // so that a dependency outage (NOT_SERVING for '') never restarts the pod.
    [LIVENESS_SERVICE]: 'SERVING',
  });
  health.addToServer(server);
  // Kubernetes' gRPC probes cannot speak TLS: they get a port of their own that serves nothing else.
  const healthServer = new grpc.Server();
  health.addToServer(healthServer);
  let started = false;
  for (const s of options.services) {
    const gated = refusedUntilReady(s.implementation, () => started);
    server.addService(
      s.definition,
      s.callers && options.tls.mode !== 'off' ? callersOnly({ ...s, implementation: gated, callers: s.callers }, options.log) : gated,
    );
  }
  const port = await bind(server, `${host}:${options.port}`, serverCredentials(options.tls));
  const healthPort = await bind(
    healthServer,
    `${host}:${options.healthPort ?? (options.port === 0 ? 0 : port + 100)}`,
    grpc.ServerCredentials.createInsecure(),
  ).catch((err: unknown) => {
    server.forceShutdown();
    throw err;
  });
  return {
    port,
    healthPort,
    setServing(serving) {
      if (serving) started = true;
      for (const n of names) health.setStatus(n, serving ? 'SERVING' : 'NOT_SERVING');
    },
    stop(graceMs = 5000) {
      for (const n of names) health.setStatus(n, 'NOT_SERVING');
      healthServer.forceShutdown();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

export { healthService };

type Callback<Res> = (err: grpc.ServiceError | null, value?: Res) => void;
type UnaryClientMethod<Req, Res> = (
  argument: Req,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: Callback<Res>,
) => grpc.ClientUnaryCall;

/** Per-call options of a promise client method. */
export interface CallOptions {
  deadlineMs?: number;
  metadata?: grpc.Metadata;
}

/**
 * A generated client seen as promises: `await accounts.verifyApiKey(req)`.
 * Only the lower-camel-case names are kept; errors arrive as AppError.
 */
export type PromiseClient<C> = {
  [
    K in Exclude<keyof C, keyof grpc.Client> as K extends `${infer F}${string}` ? (F extends Lowercase<F> ? K : never) : never
  ]: C[K] extends {
    (argument: infer Req, callback: grpc.requestCallback<infer Res>): grpc.ClientUnaryCall;
  }
    ? (request: Req, options?: CallOptions) => Promise<Res>
    : never;
} & { readonly raw: C; close(): void };

export interface ClientOptions {
  /** Deadline applied to every call that does not set its own. */
  deadlineMs?: number;
  /** This process's certificate, key and CA (mutual TLS), or `{ mode: 'off' }` (plaintext behind a mesh). */
  tls: GrpcTls;
  /** The identity the server's certificate must carry; by default the one serving the contract's package. */
  serverIdentity?: ServiceIdentity;
}

/**
 * Whether an address names several replicas: `dns:///` (a headless Service, as the Helm chart
 * sets) or a list. A plain host:port keeps gRPC's pick_first, which connects again only when a
 * call comes, at once; round_robin would keep retrying a restarting server and back off.
 */
export function spreadsOverReplicas(address: string): boolean {
  return address.startsWith('dns:') || address.includes(',');
}

/**
 * Builds a client once (at start-up) for a generated service constructor.
 * Every call gets a deadline; failures become AppError through the catalog.
 */
export function createClient<C extends grpc.Client>(
  Ctor: grpc.ServiceClientConstructor | (new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => C),
  address: string,
  options: ClientOptions,
): PromiseClient<C> {
  const defaultDeadline = options.deadlineMs ?? 5000;
  const service = (Ctor as grpc.ServiceClientConstructor).service;
  const serverIdentity = options.serverIdentity ?? identityServing(service);
  const client = new (Ctor as new (a: string, c: grpc.ChannelCredentials, o?: grpc.ClientOptions) => C)(
    address,
    channelCredentials(options.tls, serverIdentity),
    {
      // The name sent in the TLS handshake: the identity, never an IP address (which SNI forbids).
      ...(options.tls.mode !== 'off' ? { 'grpc.ssl_target_name_override': serverIdentity ?? 'smsgw' } : {}),
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.enable_retries': 1,
      // A server that went away is tried again at least every 2 s, so that one back from a
      // restart gets calls within 2 s (the default backoff grows to two minutes).
      'grpc.initial_reconnect_backoff_ms': 500,
      'grpc.max_reconnect_backoff_ms': 2000,
      ...(spreadsOverReplicas(address)
        ? {
            // Calls spread over every replica instead of all going down the first
            // connection; replicas added or gone are seen within 5 s of a change.
            'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
            'grpc.dns_min_time_between_resolutions_ms': 5000,
          }
        : {}),
    },
  );
  const wrapped: Record<string, unknown> = {
    raw: client,
    close: () => client.close(),
  };
  for (const [name, def] of Object.entries(service)) {
    const method = (client as unknown as Record<string, UnaryClientMethod<unknown, unknown>>)[name]!.bind(client);
    const call = (request: unknown, callOptions: CallOptions = {}) =>
      new Promise((resolve, reject) => {
        method(
          request,
          callOptions.metadata ?? new grpc.Metadata(),
          { deadline: Date.now() + (callOptions.deadlineMs ?? defaultDeadline) },
          (err, value) => (err ? reject(fromServiceError(err)) : resolve(value)),
        );
      });
    wrapped[def.originalName ?? name.charAt(0).toLowerCase() + name.slice(1)] = call;
  }
  return wrapped as PromiseClient<C>;
}

const HealthClient = grpc.makeGenericClientConstructor(healthService, 'Health');
type HealthCheck = (
  request: { service: string },
  options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, res?: { status?: unknown }) => void,
) => void;

/** A `grpc.health.v1.Health` client for one address, built once, for readiness checks. */
export interface HealthChecker {
  /** True when the server answers SERVING for `service` ("" is the whole server) within `deadlineMs`. */
  serving(service?: string, deadlineMs?: number): Promise<boolean>;
  close(): void;
}

/**
 * `tls` for a service's main port (mutual TLS, `serverIdentity` checked when given); absent, plaintext,
 * for a health port.
 */
export function createHealthChecker(address: string, options: { tls?: GrpcTls; serverIdentity?: ServiceIdentity } = {}): HealthChecker {
  const tls = options.tls ?? { mode: 'off' };
  const client = new HealthClient(
    address,
    channelCredentials(tls, options.serverIdentity),
    tls.mode === 'off' ? {} : { 'grpc.ssl_target_name_override': options.serverIdentity ?? 'smsgw' },
  );
  const check = (client as unknown as { Check: HealthCheck }).Check.bind(client);
  return {
    serving(service = '', deadlineMs = 1000) {
      return new Promise((resolve) => {
        check({ service }, { deadline: Date.now() + deadlineMs }, (err, res) =>
          resolve(!err && (res?.status === 'SERVING' || res?.status === 1)),
        );
      });
    },
    close: () => client.close(),
  };
}
