import { EventEmitter } from 'node:events';
import { accountProto, type account } from '@smsgw/proto';
import {
  AppError,
  createClient,
  createHealthChecker,
  createLogger,
  SERVICE_IDENTITIES,
  startGrpcService,
  type Callers,
  type AsyncHandlers,
  type GrpcService,
  type Redis,
} from '../src';
import { tlsFor } from './support/service-tls';

const NAME = 'smsgw.account.v1.AccountService';
const refuse = async () => {
  throw new AppError('INTERNAL_ERROR');
};
const handlers = {
  GetClient: async (req: account.GetClientRequest) => ({
    clientId: req.clientId,
    email: 'owner@example.com',
    name: 'Owner',
    createdAt: '',
  }),
} as unknown as AsyncHandlers<account.AccountServiceHandlers>;
for (const method of Object.keys(accountProto().AccountService.service)) (handlers as Record<string, unknown>)[method] ??= refuse;
const everyoneMayCall = Object.fromEntries(
  Object.keys(accountProto().AccountService.service).map((m) => [m, SERVICE_IDENTITIES]),
) as unknown as Callers<account.AccountServiceHandlers>;

describe('startGrpcService', () => {
  let service: GrpcService;
  let client: ReturnType<typeof createClient<account.AccountServiceClient>>;
  let health: ReturnType<typeof createHealthChecker>;

  beforeEach(async () => {
    service = await startGrpcService({
      listen: { host: '127.0.0.1', port: 0 },
      tls: tlsFor('account'),
      callers: everyoneMayCall,
      name: NAME,
      definition: accountProto().AccountService.service,
      handlers,
      log: createLogger('test', 'silent'),
    });
    client = createClient(accountProto().AccountService, `127.0.0.1:${service.port}`, { tls: tlsFor('gateway') });
    health = createHealthChecker(`127.0.0.1:${service.port}`, { tls: tlsFor('gateway') });
  });

  afterEach(async () => {
    client.close();
    health.close();
    await service.stop(100);
  });

  it('when it has started but is not ready, then it is bound, NOT_SERVING, and refuses calls with SERVICE_UNAVAILABLE', async () => {
    expect(service.port).toBeGreaterThan(0);
    expect(await health.serving(NAME)).toBe(false);
    await expect(client.getClient({ clientId: 'c1' })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('when it is ready, then it is SERVING and its handlers answer', async () => {
    service.ready();

    expect(await health.serving(NAME)).toBe(true);
    expect(await health.serving('')).toBe(true);
    expect((await client.getClient({ clientId: 'c1' })).clientId).toBe('c1');
  });

  it('when it follows NATS, then readiness goes down and up with the connection', async () => {
    const listeners: ((up: boolean) => void)[] = [];
    service.ready({ nats: { onConnectionChange: (l) => listeners.push(l) } });
    expect(await health.serving(NAME)).toBe(true);

    listeners.forEach((l) => l(false));
    expect(await health.serving(NAME)).toBe(false);
    listeners.forEach((l) => l(true));

    expect(await health.serving(NAME)).toBe(true);
  });

  it('when it follows Redis, then it is ready only while Redis is', async () => {
    const redis = Object.assign(new EventEmitter(), { status: 'connecting' }) as unknown as Redis;
    service.ready({ redis });
    expect(await health.serving(NAME)).toBe(false);

    (redis as unknown as EventEmitter).emit('ready');
    expect(await health.serving(NAME)).toBe(true);
    (redis as unknown as EventEmitter).emit('close');

    expect(await health.serving(NAME)).toBe(false);
  });
});
