import { AppError, type GrpcService } from '@smsgw/platform';
import { webhookProto, type webhook } from '@smsgw/proto';
import { Admin } from '../src/index';
import { adminOnly, grpcTlsFor } from './support/stand-ins';

describe('the webhook commands of the admin tool, against a stand-in webhook service that admits the admin identity only', () => {
  const calls: Record<string, unknown[]> = {};
  const endpoints: webhook.Endpoint__Output[] = [];
  let webhooks: GrpcService;
  let admin: Admin;

  beforeAll(async () => {
    webhooks = await adminOnly(
      'webhook',
      { name: 'smsgw.webhook.v1.WebhookService', definition: webhookProto().WebhookService.service },
      {
        CreateEndpoint: async (req: webhook.CreateEndpointRequest__Output) => {
          if (!req.url.startsWith('https://')) throw new AppError('INVALID_WEBHOOK_URL');
          const created: webhook.Endpoint__Output = {
            endpointId: `whe_${endpoints.length + 1}`,
            clientId: req.clientId,
            url: req.url,
            events: req.events,
            secret: '',
            createdAt: '2026-11-28T10:00:00.000Z',
            mode: req.mode,
            enabled: true,
            description: req.description,
            batch: req.batch,
          };
          endpoints.push(created);
          return { ...created, secret: 'whsec_shown_once' };
        },
        ListEndpoints: async () => ({ endpoints }),
      },
      calls,
    );
    admin = new Admin(
      { accountAddress: '127.0.0.1:9', deviceHubAddress: '127.0.0.1:9', webhookAddress: `127.0.0.1:${webhooks.port}` },
      grpcTlsFor('admin'),
    );
  });

  afterAll(async () => {
    admin?.close();
    await webhooks?.stop(100);
  });

  it('when create-webhook is given --batch, then the endpoint is made to take batches and says so; without it, one event a POST', async () => {
    const batched = await admin.createWebhook('client_1', 'https://hooks.example/batch', ['sms.sent', 'sms.delivered'], { batch: true });
    const single = await admin.createWebhook('client_1', 'https://hooks.example/single', ['sms.sent']);

    expect(calls.CreateEndpoint).toEqual([
      expect.objectContaining({ url: 'https://hooks.example/batch', events: ['sms.sent', 'sms.delivered'], batch: true }),
      expect.objectContaining({ url: 'https://hooks.example/single', batch: false }),
    ]);
    expect(batched).toEqual({
      endpoint_id: 'whe_1',
      secret: 'whsec_shown_once',
      url: 'https://hooks.example/batch',
      events: ['sms.sent', 'sms.delivered'],
      mode: 'live',
      batch: true,
    });
    expect(single).toMatchObject({ endpoint_id: 'whe_2', batch: false });
    expect((await admin.listWebhooks('client_1')).map((e) => [e.endpoint_id, e.batch])).toEqual([
      ['whe_1', true],
      ['whe_2', false],
    ]);
  });
});
