import { connectNats, createLogger, type Nats } from '@smsgw/platform';
import { NATS_URL, randomHex } from './support/database';
import { startMessageService, type RunningService } from './support/service';

describe('SendMany through gRPC: sends gathered by the gateway, stored together', () => {
  let svc: RunningService;
  let nats: Nats;

  beforeAll(async () => {
    svc = await startMessageService();
    nats = await connectNats({
      url: NATS_URL,
      prefix: svc.natsPrefix,
      name: 'send-many-test',
      log: createLogger('send-many-test', 'silent'),
    });
  });

  afterAll(async () => {
    await nats?.nc.drain();
    await svc?.stop();
  });

  const device = () => `device_${randomHex(5)}`;
  const send = (clientId: string, deviceId: string, text: string, extra: Record<string, unknown> = {}, metadataJson = '') => ({
    request: { clientId, mode: 'MODE_LIVE' as const, deviceId, message: { to: '+33612345678', text, metadataJson }, priority: 3, ...extra },
    traceparent: `00-${randomHex(16)}-${randomHex(8)}-01`,
  });

  it('when sends of two clients come in one call with one bad item, then the good ones are stored for their own client, in order, and only the bad one fails', async () => {
    const [phoneA, phoneB] = [device(), device()];
    const woken: string[] = [];
    const sub = nats.nc.subscribe(nats.names.wake('*', '*'), { callback: (_err, msg) => void woken.push(msg.subject) });
    await nats.nc.flush();

    const { results } = await svc.client.sendMany({
      items: [
        send('client_81', phoneA, 'un'),
        send('client_82', phoneB, 'deux', { priority: 1 }, '{"order":7}'),
        send('client_81', phoneA, ''),
        send('client_81', phoneA, 'trois', { mode: 'MODE_TEST' }),
        send('client_81', phoneA, 'quatre'),
      ],
    });

    expect(results.map((r) => r.errorCode)).toEqual(['', '', 'MESSAGE_REQUIRED', '', '']);
    expect(results[2]!.receipt).toBeFalsy();
    expect(results.map((r) => r.receipt?.status)).toEqual(['queued', 'queued', undefined, 'queued', 'queued']);
    expect(results[0]!.receipt).toMatchObject({ parts: 1, encoding: 'GSM-7', scheduledAt: '' });

    // Each is stored for its own client and mode, and readable by that client only.
    const owners: [string, 'MODE_LIVE' | 'MODE_TEST'][] = [
      ['client_81', 'MODE_LIVE'],
      ['client_82', 'MODE_LIVE'],
      ['', 'MODE_LIVE'],
      ['client_81', 'MODE_TEST'],
      ['client_81', 'MODE_LIVE'],
    ];
    const stored = await Promise.all(
      results.map((r, i) =>
        r.receipt
          ? svc.client.getMessage({ clientId: owners[i]![0], messageId: r.receipt.messageId, mode: owners[i]![1] })
          : Promise.resolve(undefined),
      ),
    );
    expect(stored.map((m) => m?.text)).toEqual(['un', 'deux', undefined, 'trois', 'quatre']);
    expect(stored[1]).toMatchObject({ priority: 1, metadataJson: '{"order":7}', deviceId: phoneB });
    await expect(
      svc.client.getMessage({ clientId: 'client_81', messageId: results[1]!.receipt!.messageId, mode: 'MODE_LIVE' }),
    ).rejects.toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
    });
    await expect(
      svc.client.getMessage({ clientId: 'client_81', messageId: results[3]!.receipt!.messageId, mode: 'MODE_LIVE' }),
    ).rejects.toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
    });

    // "quatre" waits behind "un" on the same phone: its estimate is later.
    const estimate = (i: number) => Date.parse(results[i]!.receipt!.estimatedDelivery);
    expect(estimate(4)).toBeGreaterThan(estimate(0));

    // Both phones are woken.
    await nats.nc.flush();
    for (let i = 0; i < 50 && woken.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    sub.unsubscribe();
    expect(new Set(woken)).toEqual(new Set([nats.names.wake('client_81', phoneA), nats.names.wake('client_82', phoneB)]));

    // The phone gets them in claim order: "un" then "quatre".
    const first = await svc.client.claimNext({ deviceId: phoneA, leaseMs: 60_000 });
    const next = await svc.client.claimNext({ deviceId: phoneA, leaseMs: 60_000 });
    expect([first.message?.text, next.message?.text]).toEqual(['un', 'quatre']);
  });

  it('when one call carries 200 sends, then all 200 are stored, each with its own id', async () => {
    const phone = device();
    const { results } = await svc.client.sendMany({ items: Array.from({ length: 200 }, (_, i) => send('client_83', phone, `n° ${i}`)) });

    expect(results.every((r) => r.errorCode === '')).toBe(true);
    expect(new Set(results.map((r) => r.receipt!.messageId)).size).toBe(200);
    const { rows } = await svc.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM messages WHERE device_id = $1 AND status = 'queued'",
      [phone],
    );
    expect(rows[0]!.n).toBe(200);
  });

  it('when a phone already has messages to claim, then its hub is not woken again; once it has none left to claim, it is', async () => {
    const phone = device();
    const woken: string[] = [];
    const sub = nats.nc.subscribe(nats.names.wake('client_84', phone), { callback: (_err, msg) => void woken.push(msg.subject) });
    await nats.nc.flush();
    const settle = async () => {
      await nats.nc.flush();
      await new Promise((r) => setTimeout(r, 150));
    };

    await svc.client.sendMany({ items: [send('client_84', phone, 'premier')] });
    await settle();
    expect(woken).toHaveLength(1);

    // The first one is still waiting to be claimed: the hub is busy with this phone.
    await svc.client.sendMany({ items: [send('client_84', phone, 'deuxième'), send('client_84', phone, 'troisième')] });
    await settle();
    expect(woken).toHaveLength(1);

    // Both waiting ones claimed (under lease): nothing left to claim, so the next send wakes the hub.
    await svc.client.claimNext({ deviceId: phone, leaseMs: 60_000 });
    await svc.client.claimNext({ deviceId: phone, leaseMs: 60_000 });
    await svc.client.claimNext({ deviceId: phone, leaseMs: 60_000 });
    await svc.client.sendMany({ items: [send('client_84', phone, 'quatrième')] });
    await settle();
    sub.unsubscribe();
    expect(woken).toHaveLength(2);
  });

  it('when one call queues for three idle phones of a client, then one wake-up message names all three', async () => {
    const phones = [device(), device(), device()];
    const woken: { subject: string; body: string }[] = [];
    const sub = nats.nc.subscribe(nats.names.clientWakes('client_85'), {
      callback: (_err, msg) => void woken.push({ subject: msg.subject, body: msg.string() }),
    });
    await nats.nc.flush();

    await svc.client.sendMany({ items: phones.map((p, i) => send('client_85', p, `n° ${i}`)) });
    await nats.nc.flush();
    await new Promise((r) => setTimeout(r, 150));
    sub.unsubscribe();

    expect(woken).toHaveLength(1);
    expect(woken[0]!.subject).toBe(nats.names.wakeMany('client_85'));
    expect(new Set(woken[0]!.body.split(','))).toEqual(new Set(phones));
  });
});
