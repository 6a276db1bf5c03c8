import { connectNats, createLogger, type Nats, type PublicEvent } from '@smsgw/platform';
import { eventually, NATS_URL, sleep } from './support/database';
import { startMessageService, type RunningService } from './support/service';
import { storedEvents } from './support/events';

const CLIENT = 'client_7301';
const DEVICE = 'device_accept01';

describe('a phone acknowledgement against a cancel, over real gRPC, Postgres and JetStream', () => {
  let svc: RunningService;
  let nats: Nats;

  beforeAll(async () => {
    svc = await startMessageService();
    nats = await connectNats({ url: NATS_URL, prefix: svc.natsPrefix, name: 'accept-test', log: createLogger('accept-test', 'silent') });
  });

  afterAll(async () => {
    await nats?.nc.drain();
    await svc?.stop();
  });

  async function queuedMessage(text: string): Promise<string> {
    const sent = await svc.client.sendBatch({
      clientId: CLIENT,
      mode: 'MODE_LIVE',
      priority: 3,
      deviceIds: [DEVICE],
      messages: [{ to: '+33612345678', text }],
    });
    return sent.messages[0]!.messageId;
  }

  async function claim(leaseMs: number): Promise<string> {
    const claimed = await svc.client.claimNext({ deviceId: DEVICE, leaseMs });
    return claimed.message!.messageId;
  }

  const cancel = (messageId: string) => svc.client.cancelMessage({ clientId: CLIENT, messageId, mode: 'MODE_LIVE' });

  async function events(messageId: string): Promise<PublicEvent[]> {
    return (await storedEvents(nats)).filter((e) => e.event.data.message_id === messageId).map((e) => e.event);
  }

  it('when the phone acknowledged a message and its lease then ran out before any report was applied, then a cancel is refused with MESSAGE_NOT_CANCELLABLE', async () => {
    const id = await queuedMessage('Déjà sur le téléphone');
    expect(await claim(300)).toBe(id);

    // What the hub does when the phone's `ack` frame arrives, before it moves on.
    expect(await svc.client.acceptMessage({ deviceId: DEVICE, messageId: id, at: new Date().toISOString() })).toMatchObject({
      accepted: true,
      status: 'queued',
    });
    // No report reaches the service (a lagging or stopped report consumer); the lease runs out.
    await sleep(600);

    await expect(cancel(id)).rejects.toMatchObject({ code: 'MESSAGE_NOT_CANCELLABLE' });
    expect((await svc.client.getMessage({ clientId: CLIENT, messageId: id, mode: 'MODE_LIVE' })).status).toBe('queued');
    // Nor is it offered to a phone again.
    expect((await svc.client.claimNext({ deviceId: DEVICE, leaseMs: 300 })).message).toBeFalsy();
  });

  it('when a message was cancelled before the acknowledgement arrived, then the acknowledgement says so and the message stays cancelled', async () => {
    const id = await queuedMessage('Annulé à temps');
    expect(await claim(200)).toBe(id);
    await sleep(400);
    expect((await cancel(id)).status).toBe('cancelled');

    expect(await svc.client.acceptMessage({ deviceId: DEVICE, messageId: id, at: new Date().toISOString() })).toMatchObject({
      accepted: false,
      status: 'cancelled',
    });
  });

  it('when a cancelled message is reported sent then delivered by the phone, then what the phone did wins: the status follows it and sms.sent and sms.delivered are published', async () => {
    const id = await queuedMessage('Le téléphone avait raison');
    expect(await claim(200)).toBe(id);
    await sleep(400);
    expect((await cancel(id)).status).toBe('cancelled');

    const sentAt = new Date().toISOString();
    await nats.js.publish(
      nats.names.agentReport(DEVICE),
      JSON.stringify({ message_id: id, device_id: DEVICE, status: 'sent', at: sentAt }),
      { msgID: `${id}:sent` },
    );
    await nats.js.publish(
      nats.names.agentReport(DEVICE),
      JSON.stringify({ message_id: id, device_id: DEVICE, status: 'delivered', at: sentAt }),
      { msgID: `${id}:delivered` },
    );

    const delivered = await eventually(
      async () => {
        const row = await svc.client.getMessage({ clientId: CLIENT, messageId: id, mode: 'MODE_LIVE' });
        return row.status === 'delivered' ? row : undefined;
      },
      5000,
      'the delivered report to be applied',
    );
    expect(delivered.sentAt).toBeTruthy();
    const kinds = (
      await eventually(
        async () => {
          const found = await events(id);
          return found.length >= 2 ? found : undefined;
        },
        5000,
        'both events',
      )
    ).map((e) => e.event);
    expect(kinds.sort()).toEqual(['sms.delivered', 'sms.sent']);
  });

  it('when an unknown message is acknowledged, then the call answers MESSAGE_NOT_FOUND', async () => {
    await expect(
      svc.client.acceptMessage({ deviceId: DEVICE, messageId: 'msg_00000000000000000000000000', at: new Date().toISOString() }),
    ).rejects.toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
    });
  });
});
