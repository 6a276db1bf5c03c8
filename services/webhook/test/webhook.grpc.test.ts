import type { AppError } from '@smsgw/platform';
import { thrownBy } from '@smsgw/testing';
import { startWebhookService, type RunningWebhookService } from './support/service';

const CLIENT = 'client_known';

describe('the webhook service through its gRPC API (real Postgres and NATS)', () => {
  let service: RunningWebhookService;

  beforeAll(async () => {
    service = await startWebhookService({ clientId: CLIENT });
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
});
