import { newClientId, newDeviceId } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

describe("SendBatch's answer", () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startMessageService();
  });

  afterAll(async () => {
    await svc?.stop();
  });

  it('when a batch is stored, then each message comes back with what the batch answer shows and without its text or metadata', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const text = 'Votre commande est en route : suivez-la sur https://exemple.fr/suivi/abcdef. Merci !';
    const batch = await svc.client.sendBatch({
      clientId: client,
      mode: 'MODE_LIVE',
      priority: 3,
      deviceIds: [device, device],
      messages: [
        { to: '+33612345678', text, metadataJson: '{"order":1}' },
        { to: '+33612345679', text, metadataJson: '{"order":2}' },
      ],
      ttlSeconds: [600, 0],
    });
    expect(batch.messages.map((m) => [m.to, m.status, m.deviceId, m.parts, m.encoding, m.batchId])).toEqual([
      ['+33612345678', 'queued', device, 1, 'GSM-7', batch.batchId],
      ['+33612345679', 'queued', device, 1, 'GSM-7', batch.batchId],
    ]);
    expect(Date.parse(batch.messages[0]!.expiresAt)).toBeGreaterThan(Date.now());
    expect(batch.messages[1]!.expiresAt).toBe('');
    expect(batch.messages.map((m) => [m.text, m.metadataJson])).toEqual([
      ['', ''],
      ['', ''],
    ]);
    // The whole message is one GetMessage away.
    const stored = await svc.client.getMessage({ clientId: client, messageId: batch.messages[0]!.messageId, mode: 'MODE_LIVE' });
    expect([stored.text, stored.metadataJson]).toEqual([text, '{"order":1}']);
  });
});
