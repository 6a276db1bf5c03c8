import os from 'node:os';
import path from 'node:path';
import { newId, type PublicEvent } from '@smsgw/platform';
import { ensureCerts } from '@smsgw/stack';
import { randomHex, sleep } from '@smsgw/testing';
import { Receiver } from './support/receiver';
import { startWebhookWithScheduler, type RunningWebhookService } from './support/service';

const CLIENT = 'client_retry_at_once';

/**
 * A retry's timer is created before its attempt's failure is written. With no delay and a slow
 * write (the attempts table locked meanwhile), it fires before that write: the next attempt must
 * come all the same, as soon as the write is done, and not at the sweep (every 30 s here).
 */
describe('webhook retries due at once, through the real scheduler', () => {
  let receiver: Receiver;
  let service: RunningWebhookService;

  beforeAll(async () => {
    const certs = await ensureCerts(path.join(os.tmpdir(), 'smsgw-webhook-test-certs'));
    receiver = await Receiver.start(certs);
    service = await startWebhookWithScheduler(
      { clientId: CLIENT, email: 'owner-retry@example.com', name: 'Retry', signingSecret: 'whsec_retry' },
      {
        WEBHOOK_RETRY_DELAYS_MS: '0,0',
        WEBHOOK_EXTRA_CA_FILE: certs.caCertFile,
        WEBHOOK_SWEEP_INTERVAL_MS: '30000',
      },
    );
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  async function endpoint(at: string, batch: boolean): Promise<void> {
    await service.client.createEndpoint({
      clientId: CLIENT,
      url: receiver.url(at),
      events: ['sms.delivered'],
      mode: 'MODE_LIVE',
      description: at,
      batch,
    });
  }

  async function publishDelivered(): Promise<PublicEvent> {
    const event: PublicEvent = {
      event: 'sms.delivered',
      event_id: newId('evt'),
      timestamp: new Date().toISOString(),
      data: { message_id: newId('msg'), to: '+33612345678', delivered_at: new Date().toISOString() },
      routing: { client_id: CLIENT, mode: 'live' },
    };
    const nats = service.sandbox.nats!;
    await nats.js.publish(nats.names.event(event.event), JSON.stringify(event), { msgID: event.event_id });
    return event;
  }

  it.each([
    ['an endpoint', false],
    ['a batched endpoint', true],
  ])(
    'when %s fails twice and the retries are due at once, then attempts 2 and 3 come once the failures are written, not at the sweep',
    async (_kind, batch) => {
      const at = `/at-once-${randomHex(3)}`;
      await endpoint(at, batch);
      receiver.on(at, (n) => (n <= 2 ? 503 : 200));

      const lock = await service.pool.connect();
      let event: PublicEvent;
      try {
        await lock.query('BEGIN');
        await lock.query('LOCK TABLE attempts IN EXCLUSIVE MODE');
        event = await publishDelivered();
        await receiver.waitFor(at, 1);
        // The first failure cannot be written while the lock is held; its retry's timer fires meanwhile.
        await sleep(1500);
        expect(receiver.at(at)).toHaveLength(1);
      } finally {
        await lock.query('COMMIT');
        lock.release();
      }
      const requests = await receiver.waitFor(at, 3, 10_000);

      const attempts = requests.map((r) => r.headers['x-webhook-attempt']);
      expect(attempts).toEqual(['1', '2', '3']);
      for (const r of requests) expect(r.raw).toContain(event.event_id);
    },
    20_000,
  );
});
