import {
  AppError,
  createCertificateAuthority,
  createLogger,
  issueServiceCertificate,
  SERVICE_IDENTITIES,
  startGrpcService,
  type GrpcService,
  type GrpcTlsPem,
  type ServiceIdentity,
} from '@smsgw/platform';

type Handler = (req: never) => Promise<unknown>;

// One CA for the tests' stand-ins and the admin tool (@smsgw/testing would make a build cycle:
// it needs the stack, which needs this tool).
const ca = createCertificateAuthority();
export function grpcTlsFor(identity: ServiceIdentity): GrpcTlsPem {
  const issued = issueServiceCertificate(ca, identity);
  return { mode: 'mtls', ca: ca.certPem, cert: issued.certPem, key: issued.keyPem };
}

/** A stand-in gRPC server whose `methods` only the admin identity may call; the calls are recorded. */
export async function adminOnly(
  identity: ServiceIdentity,
  service: { name: string; definition: Record<string, unknown> },
  methods: Record<string, Handler>,
  calls: Record<string, unknown[]>,
): Promise<GrpcService> {
  const callers: Record<string, readonly ServiceIdentity[]> = Object.fromEntries(
    Object.keys(service.definition).map((method) => [method, SERVICE_IDENTITIES]),
  );
  const handlers: Record<string, unknown> = {};
  for (const method of Object.keys(service.definition)) {
    if (methods[method]) callers[method] = ['admin'];
    handlers[method] = async (req: unknown) => {
      (calls[method] ??= []).push(req);
      if (!methods[method]) throw new AppError('INTERNAL_ERROR');
      return methods[method](req as never);
    };
  }
  const server = await startGrpcService({
    listen: { host: '127.0.0.1', port: 0 },
    tls: grpcTlsFor(identity),
    callers: callers,
    name: service.name,
    definition: service.definition as never,
    handlers: handlers as never,
    log: createLogger('admin-test', 'silent'),
  });
  server.ready();
  return server;
}
