import tls from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { accountProto, type account } from '@smsgw/proto';
import {
  AppError,
  createCertificateAuthority,
  createClient,
  createHealthChecker,
  createLogger,
  loadConfig,
  commonConfig,
  ConfigError,
  startGrpcService,
  type AsyncHandlers,
  type Callers,
  type GrpcService,
  type GrpcTls,
  type ServiceIdentity,
} from '../src';
import { tlsFor } from './support/service-tls';

const NAME = 'smsgw.account.v1.AccountService';
const methods = Object.keys(accountProto().AccountService.service);
const handlers = Object.fromEntries(
  methods.map((m) => [
    m,
    async (req: { clientId?: string }) => {
      if (m !== 'GetClient') throw new AppError('INTERNAL_ERROR');
      return { clientId: req.clientId, email: 'owner@example.com', name: 'Owner', createdAt: '' };
    },
  ]),
) as unknown as AsyncHandlers<account.AccountServiceHandlers>;
// GetClient: the dashboard and the webhook service only; nobody else is listed.
const callers = Object.fromEntries(
  methods.map((m) => [m, m === 'GetClient' ? ['dashboard', 'webhook'] : []]),
) as unknown as Callers<account.AccountServiceHandlers>;

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

describe('internal gRPC over mutual TLS', () => {
  let service: GrpcService;
  const clients: { close(): void }[] = [];
  const clientAs = (tls: GrpcTls, serverIdentity?: ServiceIdentity) => {
    const client = createClient<account.AccountServiceClient>(accountProto().AccountService, `127.0.0.1:${service.port}`, {
      tls,
      serverIdentity,
      deadlineMs: 3000,
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    service = await startGrpcService({
      listen: { host: '127.0.0.1', port: 0, healthPort: 0 },
      tls: tlsFor('account'),
      callers,
      name: NAME,
      definition: accountProto().AccountService.service,
      handlers,
      log: createLogger('test', 'silent'),
    });
    service.ready();
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await service.stop(100);
  });

  it('when an allowed identity calls, then its call gets through', async () => {
    await expect(clientAs(tlsFor('dashboard')).getClient({ clientId: 'c1' })).resolves.toMatchObject({ clientId: 'c1' });
  });

  it('when an identity not allowed calls, then it gets PERMISSION_DENIED naming the caller and the method', async () => {
    const err = await failure(clientAs(tlsFor('gateway')).getClient({ clientId: 'c1' }));

    const status = err.cause as grpc.ServiceError;
    expect(status.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(status.details).toContain('gateway');
    expect(status.details).toContain('/smsgw.account.v1.AccountService/GetClient');
  });

  it('when a caller makes many calls on one connection, then its certificate is read once and every call is still checked', async () => {
    const allowed = clientAs(tlsFor('dashboard'));
    const refused = clientAs(tlsFor('gateway'));
    await allowed.getClient({ clientId: 'c1' });
    await failure(refused.getClient({ clientId: 'c1' }));
    const reads = jest.spyOn(tls.TLSSocket.prototype, 'getPeerCertificate');
    try {
      for (let i = 0; i < 10; i++) {
        await expect(allowed.getClient({ clientId: `c${i}` })).resolves.toMatchObject({ clientId: `c${i}` });
        expect(((await failure(refused.getClient({ clientId: 'c1' }))).cause as grpc.ServiceError).code).toBe(
          grpc.status.PERMISSION_DENIED,
        );
      }
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
  });

  it('when a method lists no caller, then even an identity allowed elsewhere is refused', async () => {
    const err = await failure(clientAs(tlsFor('dashboard')).createApiKey({ clientId: 'c1', mode: 'KEY_MODE_LIVE' } as never));

    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.PERMISSION_DENIED);
  });

  it('when a client calls in plaintext, then the mutual TLS port refuses it', async () => {
    const err = await failure(clientAs({ mode: 'off' }).getClient({ clientId: 'c1' }));

    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
  });

  it('when a client certificate comes from another CA, then the server refuses the connection', async () => {
    const stranger = createCertificateAuthority({ commonName: 'another CA' });
    const own = tlsFor('dashboard', stranger);
    // It trusts the real CA, so only the server's check of its certificate can refuse it.
    const err = await failure(clientAs({ ...own, ca: tlsFor('dashboard').ca }).getClient({ clientId: 'c1' }));

    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
  });

  it('when a client expects another identity than the server has, then it refuses the server', async () => {
    const err = await failure(clientAs(tlsFor('dashboard'), 'message').getClient({ clientId: 'c1' }));

    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
    expect((err.cause as grpc.ServiceError).details).toMatch(/account, not message|handshake|certificate/i);
  });

  it('when a probe asks the plaintext health port, then it answers, and the health port serves nothing else', async () => {
    expect(service.healthPort).toBeGreaterThan(0);
    const probe = createHealthChecker(`127.0.0.1:${service.healthPort}`);
    try {
      expect(await probe.serving(NAME)).toBe(true);
    } finally {
      probe.close();
    }
    const plain = createClient<account.AccountServiceClient>(accountProto().AccountService, `127.0.0.1:${service.healthPort}`, {
      tls: { mode: 'off' },
    });
    try {
      const err = await failure(plain.getClient({ clientId: 'c1' }));
      expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.UNIMPLEMENTED);
    } finally {
      plain.close();
    }
  });
});

describe('the gRPC TLS settings', () => {
  it('when the certificate files are not set, then the configuration is refused in one line naming the variables', () => {
    const err = (() => {
      try {
        loadConfig((env) => commonConfig.grpcTls(env), {});
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatch(/GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE.*GRPC_TLS=off/);
  });

  it('when GRPC_TLS=off, then no file is needed; otherwise the three files are read', () => {
    expect(loadConfig((env) => commonConfig.grpcTls(env), { GRPC_TLS: 'off' })).toEqual({ mode: 'off' });
    expect(
      loadConfig((env) => commonConfig.grpcTls(env), { GRPC_TLS_CA_FILE: 'ca', GRPC_TLS_CERT_FILE: 'c', GRPC_TLS_KEY_FILE: 'k' }),
    ).toEqual({ mode: 'mtls', caFile: 'ca', certFile: 'c', keyFile: 'k' });
  });

  it('when the health port is not set, then it is the gRPC port + 100, or a free one for port 0', () => {
    expect(loadConfig((env) => commonConfig.grpc(env, 50051), {}).healthPort).toBe(50151);
    expect(loadConfig((env) => commonConfig.grpc(env, 50051), { GRPC_PORT: '0' }).healthPort).toBe(0);
    expect(loadConfig((env) => commonConfig.grpc(env, 50051), { GRPC_HEALTH_PORT: '9000' }).healthPort).toBe(9000);
  });
});
