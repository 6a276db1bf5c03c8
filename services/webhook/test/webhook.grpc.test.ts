import type { AppError } from '@smsgw/platform';
import { thrownBy } from '@smsgw/testing';
import { startWebhookService, type RunningWebhookService } from './support/service';

const CLIENT = 'client_known';

describe('the webhook service through its gRPC API (real Postgres and NATS)', () => {
  let service: RunningWebhookService;

  beforeAll(async () => {
    service = await startWebhookService({ clientId: CLIENT }, { WEBHOOK_MAX_ENDPOINTS_PER_CLIENT: '3' });
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('when a known client creates an endpoint, then its secret is shown once and the endpoint is listed with its mode and events', async () => {
    const created = await service.client.createEndpoint({
      clientId: CLIENT,
      url: 'https://127.0.0.1:9/hook',
      events: ['sms.delivered', 'sms.failed'],
      mode: 'MODE_TEST',
      description: 'mine',
    });

    expect(created.secret).toMatch(/^whsec_/);
    const listed = await service.client.listEndpoints({ clientId: CLIENT });
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
      service.client.createEndpoint({
        clientId: 'client_unknown',
        url: 'https://127.0.0.1:9/hook',
        events: ['sms.sent'],
        mode: 'MODE_LIVE',
        description: '',
      }),
    );

    expect(err.code).toBe('INVALID_CLIENT_ID');
    expect((await service.client.listEndpoints({ clientId: 'client_unknown' })).endpoints).toEqual([]);
  });

  it('when a client has as many endpoints as its cap, then another is refused LIMIT_REACHED with the cap in words, until one is deleted', async () => {
    const create = () =>
      service.client.createEndpoint({
        clientId: CLIENT,
        url: 'https://127.0.0.1:9/more',
        events: ['sms.sent'],
        mode: 'MODE_LIVE',
        description: '',
      });
    while ((await service.client.listEndpoints({ clientId: CLIENT })).endpoints.length < 3) await create();

    const err = await thrownBy<AppError>(create());

    expect(err.code).toBe('LIMIT_REACHED');
    expect(err.message).toBe(
      "Un compte peut avoir 3 points de terminaison de webhook au plus : supprimez-en un avant d'en ajouter un autre.",
    );
    const { endpoints } = await service.client.listEndpoints({ clientId: CLIENT });
    expect(endpoints).toHaveLength(3);
    await service.client.deleteEndpoint({ clientId: CLIENT, endpointId: endpoints[0]!.endpointId });
    await expect(create()).resolves.toMatchObject({ secret: expect.stringMatching(/^whsec_/) });
  });

  it('when several endpoints are created at once past the cap, then the cap still holds', async () => {
    const { endpoints } = await service.client.listEndpoints({ clientId: CLIENT });
    for (const e of endpoints.slice(1)) await service.client.deleteEndpoint({ clientId: CLIENT, endpointId: e.endpointId });
    const tries = Array.from({ length: 5 }, () =>
      service.client
        .createEndpoint({ clientId: CLIENT, url: 'https://127.0.0.1:9/race', events: ['sms.sent'], mode: 'MODE_LIVE', description: '' })
        .then(
          () => 'created',
          (err: AppError) => err.code,
        ),
    );
    expect((await Promise.all(tries)).sort()).toEqual(['LIMIT_REACHED', 'LIMIT_REACHED', 'LIMIT_REACHED', 'created', 'created']);
    expect((await service.client.listEndpoints({ clientId: CLIENT })).endpoints).toHaveLength(3);
  });
});

describe('the webhook service, for an account whose owner has not confirmed its address', () => {
  let service: RunningWebhookService;

  beforeAll(async () => {
    service = await startWebhookService({ clientId: CLIENT, accountVerified: false });
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('when it creates an endpoint, then it is refused ACCOUNT_NOT_VERIFIED and nothing is stored', async () => {
    const err = await thrownBy<AppError>(
      service.client.createEndpoint({
        clientId: CLIENT,
        url: 'https://127.0.0.1:9/hook',
        events: ['sms.sent'],
        mode: 'MODE_LIVE',
        description: '',
      }),
    );

    expect(err.code).toBe('ACCOUNT_NOT_VERIFIED');
    expect((await service.client.listEndpoints({ clientId: CLIENT })).endpoints).toEqual([]);
  });
});
