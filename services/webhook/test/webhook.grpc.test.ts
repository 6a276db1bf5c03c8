import { randomBytes } from 'node:crypto';
import {
  AppError,
  createClient,
  createLogger,
  createPool,
  quoteIdent,
  startGrpcService,
  type AsyncHandlers,
  type GrpcService,
  type PromiseClient,
} from '@smsgw/platform';
import { accountProto, webhookProto, type account, type webhook } from '@smsgw/proto';
import { DATABASE_URL, NATS_URL, randomHex, thrownBy, anyCaller, grpcTlsEnv, grpcTlsFor } from '@smsgw/testing';
import { loadWebhookConfig } from '../src/config';
import { start } from '../src/main';

const CLIENT = 'client_known';

/** An account service that knows one client. */
function accountKnowing(clientId: string): AsyncHandlers<account.AccountServiceHandlers> {
  const handlers: Record<string, unknown> = {
    GetClient: async (req: account.GetClientRequest) => {
      if (req.clientId !== clientId) throw new AppError('INVALID_CLIENT_ID');
      return { clientId, email: 'owner@example.com', name: 'Owner', createdAt: new Date().toISOString() };
    },
    GetSigningSecret: async () => ({ secret: 'whsec_test' }),
  };
  for (const method of Object.keys(accountProto().AccountService.service)) {
    handlers[method] ??= async () => {
      throw new AppError('INTERNAL_ERROR');
    };
  }
  return handlers as unknown as AsyncHandlers<account.AccountServiceHandlers>;
}

describe('the webhook service through its gRPC API (real Postgres and NATS)', () => {
  const schema = `t_${randomHex()}`;
  let accounts: GrpcService;
  let service: Awaited<ReturnType<typeof start>>;
  let client: PromiseClient<webhook.WebhookServiceClient>;

  beforeAll(async () => {
    const log = createLogger('webhook-test', 'silent');
    accounts = await startGrpcService({
      listen: { host: '127.0.0.1', port: 0 },
      tls: grpcTlsFor('account'),
      callers: anyCaller(accountProto().AccountService.service),
      name: 'smsgw.account.v1.AccountService',
      definition: accountProto().AccountService.service,
      handlers: accountKnowing(CLIENT),
      log,
    });
    accounts.ready();
    service = await start(
      loadWebhookConfig({
        GRPC_HOST: '127.0.0.1',
        ...grpcTlsEnv('webhook'),
        GRPC_PORT: '0',
        DATABASE_URL,
        DATABASE_SCHEMA: schema,
        NATS_URL,
        NATS_PREFIX: `t${randomBytes(5).toString('hex')}`,
        ACCOUNT_GRPC_ADDR: `127.0.0.1:${accounts.port}`,
        SCHEDULER_GRPC_ADDR: '127.0.0.1:9',
        WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      }),
      log,
    );
    client = createClient(webhookProto().WebhookService, `127.0.0.1:${service.port}`, { deadlineMs: 5000, tls: grpcTlsFor('dashboard') });
  });

  afterAll(async () => {
    client?.close();
    await service?.stop();
    await accounts?.stop(100);
    const pool = createPool({ url: DATABASE_URL, schema: 'public', max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await pool.end();
  });

  it('when a known client creates an endpoint, then its secret is shown once and the endpoint is listed with its mode and events', async () => {
    const created = await client.createEndpoint({
      clientId: CLIENT,
      url: 'https://127.0.0.1:9/hook',
      events: ['sms.delivered', 'sms.failed'],
      mode: 'MODE_TEST',
      description: 'mine',
    });

    expect(created.secret).toMatch(/^whsec_/);
    const listed = await client.listEndpoints({ clientId: CLIENT });
    expect(listed.endpoints).toHaveLength(1);
    expect(listed.endpoints[0]).toMatchObject({
      endpointId: created.endpointId,
      url: 'https://127.0.0.1:9/hook',
      events: ['sms.delivered', 'sms.failed'],
      mode: 'MODE_TEST',
      secret: '',
    });
  });

  it('when the client is unknown to the account service, then CreateEndpoint is INVALID_CLIENT_ID and nothing is stored', async () => {
    const err = await thrownBy<AppError>(
      client.createEndpoint({
        clientId: 'client_unknown',
        url: 'https://127.0.0.1:9/hook',
        events: ['sms.sent'],
        mode: 'MODE_LIVE',
        description: '',
      }),
    );

    expect(err.code).toBe('INVALID_CLIENT_ID');
    expect((await client.listEndpoints({ clientId: 'client_unknown' })).endpoints).toEqual([]);
  });
});
