import type * as grpc from '@grpc/grpc-js';
import { startGrpcServer, unaryHandlers, type AsyncHandlers, type GrpcServerHandle } from './grpc';
import type { GrpcTls } from './service-config';
import type { Logger } from './logger';
import type { Nats } from './nats';
import type { Redis } from './redis';
import type { ServiceIdentity } from './service-identity';

/** Who may call each method of a service: every method listed, with the identities of its callers. */
export type Callers<H> = { readonly [K in keyof H]: readonly ServiceIdentity[] };

export interface GrpcService extends GrpcServerHandle {
  /**
   * Start-up is over (migrations run, streams ensured, consumers started): the service is SERVING
   * and takes calls. From then on its readiness follows the connection given, if any: NOT_SERVING
   * while NATS (or Redis) is away, SERVING again when it is back.
   */
  ready(follow?: { nats: Pick<Nats, 'onConnectionChange'> } | { redis: Redis }): void;
}

/**
 * The start-up of a service's gRPC server, the same in every service: the server with
 * `grpc.health.v1.Health` (NOT_SERVING, calls refused with UNAVAILABLE until `ready()`), the one
 * service's async handlers adapted (errors to statuses, metrics), the port bound early, mutual
 * TLS, and each method's callers checked before its handler runs (PERMISSION_DENIED otherwise).
 */
export async function startGrpcService<H extends grpc.UntypedServiceImplementation>(options: {
  /** Where to listen (the service's `config.grpc`); port 0 takes a free one, as does health port 0. */
  listen: { host?: string; port: number; healthPort?: number };
  /** The service's certificate and CA (`config.grpcTls`). */
  tls: GrpcTls;
  /** Which identities may call each method, declared next to the handlers. */
  callers: Callers<H>;
  /** The fully qualified service name, as health checks ask for it: `smsgw.account.v1.AccountService`. */
  name: string;
  definition: grpc.ServiceDefinition;
  handlers: AsyncHandlers<H>;
  log: Logger;
}): Promise<GrpcService> {
  if (options.tls.mode === 'off') {
    options.log.warn(
      { service: options.name },
      'GRPC_TLS=off: internal gRPC is plaintext, callers are not authenticated and the per-method caller allowlists are not checked',
    );
  }
  const server = await startGrpcServer({
    host: options.listen.host,
    port: options.listen.port,
    healthPort: options.listen.healthPort,
    tls: options.tls,
    log: options.log,
    services: [
      {
        name: options.name,
        definition: options.definition,
        implementation: unaryHandlers<H>(options.handlers, options.log),
        callers: options.callers,
      },
    ],
  });
  return {
    ...server,
    ready(follow) {
      if (follow && 'redis' in follow) {
        const { redis } = follow;
        server.setServing(redis.status === 'ready');
        redis.on('ready', () => server.setServing(true));
        redis.on('end', () => server.setServing(false));
        redis.on('close', () => server.setServing(false));
        return;
      }
      server.setServing(true);
      follow?.nats.onConnectionChange((up) => server.setServing(up));
    },
  };
}
