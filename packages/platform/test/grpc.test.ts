import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { accountProto, type account } from '@smsgw/proto';
import {
  AppError,
  createClient,
  createHealthChecker,
  createLogger,
  ERROR_CATALOG,
  healthService,
  LIVENESS_SERVICE,
  startGrpcServer,
  unaryHandlers,
  type AsyncHandlers,
  type GrpcServerHandle,
  type PromiseClient,
} from '../src';
import { tlsFor } from './support/service-tls';

const SERVICE_NAME = 'smsgw.account.v1.AccountService';

/** A real service whose behaviour each test picks through the client id it sends. */
const handlers: AsyncHandlers<account.AccountServiceHandlers> = {
  async GetClient(req) {
    switch (req.clientId) {
      case 'unknown':
        throw new AppError('INVALID_CLIENT_ID');
      case 'invalid':
        throw new AppError('VALIDATION_ERROR', {
          details: [
            { field: 'email', code: 'INVALID_EMAIL', message: 'Adresse e-mail invalide.' },
            { field: 'name', code: 'TOO_LONG' },
          ],
        });
      case 'limited':
        throw new AppError('RATE_LIMIT_EXCEEDED', { retryAfterSeconds: 42 });
      case 'client_\u0000':
      case '\u0000':
      case 'a\u0000b':
        // What pg throws for text holding NUL.
        throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
      case 'bug':
        throw new Error('connection to db-primary.internal:5432 refused for user admin');
      case 'redis-down':
        // What ioredis throws for a command while its connection is down.
        throw new Error('Connection is closed.');
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, 600));
        return { clientId: 'slow' };
      default:
        return { clientId: req.clientId, email: 'owner@example.com', name: 'Owner', createdAt: '2025-01-01T00:00:00.000Z' };
    }
  },
  async CreateClient() {
    throw new AppError('INTERNAL_ERROR');
  },
  async CreateApiKey() {
    throw new AppError('INTERNAL_ERROR');
  },
  async VerifyApiKey() {
    throw new AppError('INTERNAL_ERROR');
  },
  async RevokeApiKey() {
    throw new AppError('INTERNAL_ERROR');
  },
  async GetSigningSecret() {
    throw new AppError('INTERNAL_ERROR');
  },
  async SignUp() {
    throw new AppError('INTERNAL_ERROR');
  },
  async SignIn() {
    throw new AppError('INTERNAL_ERROR');
  },
  async GetUser() {
    throw new AppError('INTERNAL_ERROR');
  },
  async ChangePassword() {
    throw new AppError('INTERNAL_ERROR');
  },
  async UpdateClient() {
    throw new AppError('INTERNAL_ERROR');
  },
  async ListApiKeys() {
    throw new AppError('INTERNAL_ERROR');
  },
  async RevokeApiKeyById() {
    throw new AppError('INTERNAL_ERROR');
  },
  async RotateSigningSecret() {
    throw new AppError('INTERNAL_ERROR');
  },
  async IssueEmailVerification() {
    throw new AppError('INTERNAL_ERROR');
  },
  async VerifyEmail() {
    throw new AppError('INTERNAL_ERROR');
  },
  async IssuePasswordReset() {
    throw new AppError('INTERNAL_ERROR');
  },
  async ResetPassword() {
    throw new AppError('INTERNAL_ERROR');
  },
  async MarkAccountVerified() {
    throw new AppError('INTERNAL_ERROR');
  },
  async ListAuditEvents() {
    throw new AppError('INTERNAL_ERROR');
  },
  async RecordAuditEvent() {
    throw new AppError('INTERNAL_ERROR');
  },
  async InviteMember() {
    throw new AppError('INTERNAL_ERROR');
  },
  async GetInvitation() {
    throw new AppError('INTERNAL_ERROR');
  },
  async AcceptInvitation() {
    throw new AppError('INTERNAL_ERROR');
  },
  async ListMembers() {
    throw new AppError('INTERNAL_ERROR');
  },
  async ChangeMemberRole() {
    throw new AppError('INTERNAL_ERROR');
  },
  async RemoveMember() {
    throw new AppError('INTERNAL_ERROR');
  },
  async WithdrawInvitation() {
    throw new AppError('INTERNAL_ERROR');
  },
  async BeginTotpEnrolment() {
    throw new AppError('INTERNAL_ERROR');
  },
  async ConfirmTotpEnrolment() {
    throw new AppError('INTERNAL_ERROR');
  },
  async VerifySecondFactor() {
    throw new AppError('INTERNAL_ERROR');
  },
  async DisableTwoFactor() {
    throw new AppError('INTERNAL_ERROR');
  },
  async SetTwoFactorRequired() {
    throw new AppError('INTERNAL_ERROR');
  },
  async CreateSmppCredential() {
    throw new AppError('INTERNAL_ERROR');
  },
  async ListSmppCredentials() {
    throw new AppError('INTERNAL_ERROR');
  },
  async RevokeSmppCredential() {
    throw new AppError('INTERNAL_ERROR');
  },
  async VerifySmppBind() {
    throw new AppError('INTERNAL_ERROR');
  },
};

interface HealthClient extends grpc.Client {
  check(
    request: { service: string },
    options: grpc.CallOptions,
    callback: grpc.requestCallback<{ status: string | number }>,
  ): grpc.ClientUnaryCall;
}
const HealthClientCtor = grpc.makeGenericClientConstructor(healthService, 'Health') as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
) => HealthClient;

function healthStatus(health: HealthClient, service: string): Promise<string | number> {
  return new Promise((resolve, reject) => {
    health.check({ service }, { deadline: Date.now() + 2000 }, (err, res) => (err ? reject(err) : resolve(res!.status)));
  });
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

/** A local port where nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('gRPC server and client', () => {
  let server: GrpcServerHandle;
  let health: HealthClient;
  let client: PromiseClient<account.AccountServiceClient>;

  beforeAll(async () => {
    server = await startGrpcServer({
      host: '127.0.0.1',
      tls: tlsFor('account'),
      port: 0,
      services: [
        {
          name: SERVICE_NAME,
          definition: accountProto().AccountService.service,
          implementation: unaryHandlers(handlers, createLogger('test', 'silent')),
        },
      ],
    });
    health = new HealthClientCtor(`127.0.0.1:${server.healthPort}`, grpc.credentials.createInsecure());
    client = createClient(accountProto().AccountService, `127.0.0.1:${server.port}`, { tls: tlsFor('gateway') });
  });

  afterAll(async () => {
    client?.close();
    health?.close();
    await server?.stop(1000);
  });

  it('when the server has just started, then health answers NOT_SERVING and calls are refused with SERVICE_UNAVAILABLE until it is marked ready, then both serve', async () => {
    expect(server.port).toBeGreaterThan(0);
    expect(await healthStatus(health, '')).toBe('NOT_SERVING');
    expect(await healthStatus(health, SERVICE_NAME)).toBe('NOT_SERVING');
    const checker = createHealthChecker(`127.0.0.1:${server.port}`, { tls: tlsFor('gateway') });
    expect(await checker.serving()).toBe(false);
    // Before its migrations ran, no handler runs.
    const early = await rejection(client.getClient({ clientId: 'client_1' }));
    expect(early.code).toBe('SERVICE_UNAVAILABLE');
    expect(early.retryAfterSeconds).toBeGreaterThan(0);

    server.setServing(true);

    expect(await healthStatus(health, '')).toBe('SERVING');
    expect(await healthStatus(health, SERVICE_NAME)).toBe('SERVING');
    expect(await checker.serving()).toBe(true);
    expect(await checker.serving(SERVICE_NAME)).toBe(true);
    checker.close();
    await expect(client.getClient({ clientId: 'client_1' })).resolves.toMatchObject({ clientId: 'client_1' });
  });

  it('when the server is not ready yet, then the liveness service already answers SERVING (a probe restarts only a dead process)', async () => {
    const fresh = await startGrpcServer({ host: '127.0.0.1', port: 0, tls: tlsFor('account'), services: [] });
    const probe = new HealthClientCtor(`127.0.0.1:${fresh.healthPort}`, grpc.credentials.createInsecure());
    try {
      expect(await healthStatus(probe, '')).toBe('NOT_SERVING');
      expect(await healthStatus(probe, LIVENESS_SERVICE)).toBe('SERVING');
    } finally {
      probe.close();
      await fresh.stop(1000);
    }
  });

  it('when the one server of a plain address is down a while and comes back on its port, then the very next call reaches it', async () => {
    const registration = () => [
      {
        name: SERVICE_NAME,
        definition: accountProto().AccountService.service,
        implementation: unaryHandlers(handlers, createLogger('test', 'silent')),
      },
    ];
    const first = await startGrpcServer({ host: '127.0.0.1', port: 0, tls: tlsFor('account'), services: registration() });
    first.setServing(true);
    const port = first.port;
    const single = createClient(accountProto().AccountService, `127.0.0.1:${port}`, { tls: tlsFor('gateway') });
    try {
      await single.getClient({ clientId: 'client_1' });
      await first.stop(1000);
      // Down for longer than a reconnection backoff: a client that kept retrying would be waiting now.
      await new Promise((r) => setTimeout(r, 3000));
      const back = await startGrpcServer({ host: '127.0.0.1', port, tls: tlsFor('account'), services: registration() });
      back.setServing(true);
      try {
        await expect(single.getClient({ clientId: 'client_1' })).resolves.toMatchObject({ clientId: 'client_1' });
      } finally {
        await back.stop(1000);
      }
    } finally {
      single.close();
    }
  });

  it('when the address names two replicas, then the client spreads its calls over both', async () => {
    const served: string[] = [];
    const replicas = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const replica = await startGrpcServer({
          host: '127.0.0.1',
          tls: tlsFor('account'),
          port: 0,
          services: [
            {
              name: SERVICE_NAME,
              definition: accountProto().AccountService.service,
              implementation: unaryHandlers(
                { ...handlers, GetClient: async (req) => (served.push(name), { clientId: req.clientId }) },
                createLogger('test', 'silent'),
              ),
            },
          ],
        });
        replica.setServing(true);
        return replica;
      }),
    );
    const spread = createClient(accountProto().AccountService, `ipv4:${replicas.map((r) => `127.0.0.1:${r.port}`).join(',')}`, {
      tls: tlsFor('gateway'),
    });
    try {
      for (let i = 0; i < 20; i++) await spread.getClient({ clientId: `client_${i}` });
      expect(served.filter((n) => n === 'a').length).toBeGreaterThanOrEqual(5);
      expect(served.filter((n) => n === 'b').length).toBeGreaterThanOrEqual(5);
    } finally {
      spread.close();
      await Promise.all(replicas.map((r) => r.stop(1000)));
    }
  });

  it('when health is asked about a service that is not served, then it answers NOT_FOUND', async () => {
    await expect(healthStatus(health, 'smsgw.nope.v1.Nope')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it('when a handler answers, then the promise client resolves with the response', async () => {
    await expect(client.getClient({ clientId: 'client_1' })).resolves.toEqual({
      clientId: 'client_1',
      email: 'owner@example.com',
      name: 'Owner',
      createdAt: '2025-01-01T00:00:00.000Z',
      // Fields the handler leaves out come as their proto defaults.
      emailVerified: false,
      defaultTtlSeconds: 0,
      failoverDelaySeconds: 0,
      simRule: '',
      defaultSim: 0,
      accountVerified: false,
      smsCountries: [],
      otpCountries: [],
      otpNumberTypes: [],
      requireTwoFactor: false,
    });
  });

  it('when a handler throws an AppError, then the client gets an AppError with the same code over the mapped status', async () => {
    const err = await rejection(client.getClient({ clientId: 'unknown' }));

    expect(err.code).toBe('INVALID_CLIENT_ID');
    expect(err.message).toBe(ERROR_CATALOG.INVALID_CLIENT_ID.message);
    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('when a handler throws an AppError with details, then the client sees the same details', async () => {
    const err = await rejection(client.getClient({ clientId: 'invalid' }));

    expect(err.code).toBe('VALIDATION_ERROR');
    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toEqual([
      { field: 'email', code: 'INVALID_EMAIL', message: 'Adresse e-mail invalide.' },
      { field: 'name', code: 'TOO_LONG' },
    ]);
  });

  it('when a handler fails in SQL on a request holding U+0000, then the answer is VALIDATION_ERROR, not INTERNAL', async () => {
    for (const clientId of ['client_\u0000', '\u0000', 'a\u0000b']) {
      const err = await rejection(client.getClient({ clientId }));

      expect(err.code).toBe('VALIDATION_ERROR');
      expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT);
    }
    await expect(client.getClient({ clientId: 'client_été 👍' })).resolves.toMatchObject({ clientId: 'client_été 👍' });
  });

  it('when a handler throws an AppError with a retry delay, then the client sees the delay', async () => {
    const err = await rejection(client.getClient({ clientId: 'limited' }));

    expect(err.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(err.retryAfterSeconds).toBe(42);
    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });

  it('when a handler throws a plain Error, then the client sees INTERNAL_ERROR without the original text', async () => {
    const err = await rejection(client.getClient({ clientId: 'bug' }));

    expect(err.code).toBe('INTERNAL_ERROR');
    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.INTERNAL);
    expect(err.message).toBe(ERROR_CATALOG.INTERNAL_ERROR.message);
    expect(JSON.stringify({ message: err.message, details: err.details, cause: String(err.cause) })).not.toMatch(
      /db-primary|admin|refused/,
    );
  });

  it('when a handler fails because Redis cannot be reached, then the client sees SERVICE_UNAVAILABLE with a retry delay, not INTERNAL_ERROR', async () => {
    const err = await rejection(client.getClient({ clientId: 'redis-down' }));

    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
    expect(err.retryAfterSeconds).toBe(1);
  });

  it('when a call takes longer than its deadline, then the client sees SERVICE_UNAVAILABLE', async () => {
    const started = Date.now();
    const err = await rejection(client.getClient({ clientId: 'slow' }, { deadlineMs: 100 }));

    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('when nothing listens at the address, then a call with a 300 ms deadline fails SERVICE_UNAVAILABLE', async () => {
    const nowhere = createClient(accountProto().AccountService, `127.0.0.1:${await closedPort()}`, { tls: tlsFor('gateway') });
    try {
      const started = Date.now();
      const err = await rejection(nowhere.getClient({ clientId: 'client_1' }, { deadlineMs: 300 }));

      expect(err.code).toBe('SERVICE_UNAVAILABLE');
      expect(err.retryAfterSeconds).toBe(5);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      nowhere.close();
    }
  });

  it('when the client is built from a generated constructor, then only the lower-camel-case methods are exposed', () => {
    expect(typeof client.verifyApiKey).toBe('function');
    expect(typeof client.getSigningSecret).toBe('function');
    expect((client as unknown as Record<string, unknown>).VerifyApiKey).toBeUndefined();
  });
});
