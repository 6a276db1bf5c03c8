import { AppError, createLogger, startGrpcService, type GrpcService } from '@smsgw/platform';
import { accountProto, deviceHubProto, messageProto } from '@smsgw/proto';
import { anyCaller, grpcTlsFor } from '@smsgw/testing';

const SERVICES = {
  account: () => ({ name: 'smsgw.account.v1.AccountService', definition: accountProto().AccountService.service }),
  'device-hub': () => ({ name: 'smsgw.devicehub.v1.DeviceHubService', definition: deviceHubProto().DeviceHubService.service }),
  message: () => ({ name: 'smsgw.message.v1.MessageService', definition: messageProto().MessageService.service }),
};

/** A request as the stand-in received it, by method name. */
export type Calls = Record<string, unknown[]>;

type Handler = (req: never) => Promise<unknown>;

/**
 * A stand-in for one of the dashboard's upstream gRPC services: `handlers` answer (their requests
 * are recorded in `calls`), every other method fails with INTERNAL_ERROR. It knows nothing of the
 * real service: what a test needs of it, it says.
 */
export async function stubService(
  kind: keyof typeof SERVICES,
  handlers: Record<string, Handler>,
  calls: Calls = {},
): Promise<GrpcService & { calls: Calls }> {
  const { name, definition } = SERVICES[kind]();
  const all: Record<string, unknown> = {};
  for (const method of Object.keys(definition)) {
    const handler = handlers[method];
    all[method] = async (req: unknown) => {
      (calls[method] ??= []).push(req);
      if (!handler) throw new AppError('INTERNAL_ERROR');
      return handler(req as never);
    };
  }
  const server = await startGrpcService({
    listen: { host: '127.0.0.1', port: 0 },
    tls: grpcTlsFor(kind),
    callers: anyCaller(definition),
    name,
    definition,
    handlers: all as never,
    log: createLogger(`dashboard-test-${kind}`, 'silent'),
  });
  server.ready();
  return Object.assign(server, { calls });
}
