import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { AppError, createClient, type PromiseClient } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import { clientOfAllowedCallers, grpcTlsFor, startServiceUnderTest, thrownBy } from '@smsgw/testing';
import { loadAccountConfig } from '../src/config';
import { accountCallers } from '../src/grpc/account.handlers';
import { start } from '../src/main';

const startAccountService = () => startServiceUnderTest({ name: 'account', loadConfig: loadAccountConfig, start });

describe("a client's fleet settings (default ttl, failover delay)", () => {
  let service: Awaited<ReturnType<typeof startAccountService>>;
  let accounts: PromiseClient<account.AccountServiceClient>;

  beforeAll(async () => {
    service = await startAccountService();
    accounts = clientOfAllowedCallers(accountProto().AccountService, `127.0.0.1:${service.port}`, accountCallers);
  });

  afterAll(async () => {
    accounts?.close();
    await service?.stop();
  });

  const newClient = () => accounts.createClient({ email: `fleet-${randomBytes(3).toString('hex')}@example.com`, name: 'Flotte' });
  const setFleet = (clientId: string, defaultTtlSeconds: number, failoverDelaySeconds: number) =>
    accounts.updateClient({ clientId, email: '', name: '', setFleet: true, defaultTtlSeconds, failoverDelaySeconds });

  it('when a client is new, then it has no default ttl and a 60 s failover delay, and its keys verify with ttl 0', async () => {
    const created = await newClient();
    expect(await accounts.getClient({ clientId: created.clientId })).toMatchObject({ defaultTtlSeconds: 0, failoverDelaySeconds: 60 });
    expect(await accounts.verifyApiKey({ apiKey: created.liveApiKey, clientId: created.clientId })).toMatchObject({
      defaultTtlSeconds: 0,
    });
  });

  it('when the fleet settings are set, then the client shows them and its keys verify with the default ttl', async () => {
    const created = await newClient();
    const updated = await setFleet(created.clientId, 3600, 120);
    expect(updated).toMatchObject({ clientId: created.clientId, name: 'Flotte', defaultTtlSeconds: 3600, failoverDelaySeconds: 120 });
    expect(await accounts.getClient({ clientId: created.clientId })).toMatchObject({ defaultTtlSeconds: 3600, failoverDelaySeconds: 120 });
    expect(await accounts.verifyApiKey({ apiKey: created.testApiKey, clientId: created.clientId })).toMatchObject({
      mode: 'KEY_MODE_TEST',
      defaultTtlSeconds: 3600,
    });
    // Back to no default ttl; the extremes of both ranges are accepted.
    expect(await setFleet(created.clientId, 0, 10)).toMatchObject({ defaultTtlSeconds: 0, failoverDelaySeconds: 10 });
    expect(await setFleet(created.clientId, 60, 86_400)).toMatchObject({ defaultTtlSeconds: 60, failoverDelaySeconds: 86_400 });
    expect(await setFleet(created.clientId, 604_800, 10)).toMatchObject({ defaultTtlSeconds: 604_800 });
  });

  it('when the name or e-mail changes without set_fleet, then the fleet settings stay as they were', async () => {
    const created = await newClient();
    await setFleet(created.clientId, 900, 30);
    const renamed = await accounts.updateClient({ clientId: created.clientId, email: '', name: 'Renommé', defaultTtlSeconds: 5 });
    expect(renamed).toMatchObject({ name: 'Renommé', defaultTtlSeconds: 900, failoverDelaySeconds: 30 });
  });

  it.each([
    [59, 60, ['default_ttl_seconds']],
    [604_801, 60, ['default_ttl_seconds']],
    [-1, 60, ['default_ttl_seconds']],
    [0, 9, ['failover_delay_seconds']],
    [0, 86_401, ['failover_delay_seconds']],
    [30, 0, ['default_ttl_seconds', 'failover_delay_seconds']],
  ])(
    'when set_fleet gives ttl %p and delay %p, then it is refused VALIDATION_ERROR naming %p, and nothing changes',
    async (ttl, delay, fields) => {
      const created = await newClient();
      const err = await thrownBy<AppError>(setFleet(created.clientId, ttl, delay));
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe('VALIDATION_ERROR');
      expect(err.details?.map((d) => d.field)).toEqual(fields);
      for (const detail of err.details ?? []) expect(detail.message).toMatch(/secondes entre/);
      if (fields.length === 1) expect(err.message).toBe(err.details![0]!.message);
      expect(await accounts.getClient({ clientId: created.clientId })).toMatchObject({ defaultTtlSeconds: 0, failoverDelaySeconds: 60 });
    },
  );

  it('when set_fleet names an unknown client, then it is INVALID_CLIENT_ID', async () => {
    expect((await thrownBy<AppError>(setFleet('client_42', 600, 60))).code).toBe('INVALID_CLIENT_ID');
  });

  it('when the device-hub asks for a client, then it gets it (its failover sweep reads the delay); it may not change it', async () => {
    const hub = createClient<account.AccountServiceClient>(accountProto().AccountService, `127.0.0.1:${service.port}`, {
      tls: grpcTlsFor('device-hub'),
    });
    try {
      const created = await newClient();
      await setFleet(created.clientId, 0, 45);
      expect(await hub.getClient({ clientId: created.clientId })).toMatchObject({ failoverDelaySeconds: 45 });
      const err = await thrownBy<AppError>(hub.updateClient({ clientId: created.clientId, setFleet: true, failoverDelaySeconds: 20 }));
      expect((err.cause as grpc.ServiceError).code).toBe(grpc.status.PERMISSION_DENIED);
    } finally {
      hub.close();
    }
  });

  it('when the admin tool sets the fleet settings, then it is allowed (npm run admin -- set-fleet)', async () => {
    const admin = createClient<account.AccountServiceClient>(accountProto().AccountService, `127.0.0.1:${service.port}`, {
      tls: grpcTlsFor('admin'),
    });
    try {
      const created = await newClient();
      const updated = await admin.updateClient({
        clientId: created.clientId,
        setFleet: true,
        defaultTtlSeconds: 120,
        failoverDelaySeconds: 60,
      });
      expect(updated).toMatchObject({ defaultTtlSeconds: 120 });
    } finally {
      admin.close();
    }
  });
});
