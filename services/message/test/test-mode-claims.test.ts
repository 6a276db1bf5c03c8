import { AppError, connectNats, createLogger, type Nats } from '@smsgw/platform';
import type { Subscription } from '@nats-io/transport-node';
import { NATS_URL, randomHex, sleep } from './support/database';
import { seed, startMessageService, type RunningService } from './support/service';

describe('ClaimNext with a mode, through gRPC', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startMessageService();
  });

  afterAll(async () => {
    await svc?.stop();
  });

  const device = () => `device_${randomHex(5)}`;
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

  /** Claims until nothing is due, returning the message ids in claim order. */
  async function drain(
    req: { deviceId: string; mode?: 'MODE_LIVE' | 'MODE_TEST' | 'MODE_UNSPECIFIED' },
    leaseMs = 60_000,
  ): Promise<string[]> {
    const out: string[] = [];
    for (;;) {
      const claimed = await svc.client.claimNext({ leaseMs, ...req });
      if (!claimed.message?.messageId) return out;
      out.push(claimed.message.messageId);
    }
  }

  describe('when the simulated device asks with MODE_TEST and no device', () => {
    it('then it gets the due test-mode messages of every client and device, priority first then oldest, and never a live one', async () => {
      const [phoneA, phoneB] = [device(), device()];
      const seeded = await seed(svc, [
        { clientId: 'client_71', mode: 'MODE_TEST', deviceId: phoneA, priority: 3, createdAt: minutesAgo(10) },
        { clientId: 'client_72', mode: 'MODE_TEST', deviceId: phoneB, priority: 3, createdAt: minutesAgo(20) },
        { clientId: 'client_72', mode: 'MODE_TEST', deviceId: phoneA, priority: 1, createdAt: minutesAgo(1) },
        { clientId: 'client_71', mode: 'MODE_TEST', deviceId: phoneB, priority: 5, createdAt: minutesAgo(30) },
        { clientId: 'client_71', mode: 'MODE_LIVE', deviceId: phoneA, priority: 1, createdAt: minutesAgo(40) },
      ]);
      const [later, older, urgent, lowest, live] = seeded.map((s) => s.messageId);

      const claimed = await drain({ deviceId: '', mode: 'MODE_TEST' });

      expect(claimed).toEqual([urgent, older, later, lowest]);
      expect(await drain({ deviceId: phoneA })).toEqual([live]);
    });

    it('then a claimed message stays with its claimer until the lease runs out, and comes back as a second attempt', async () => {
      const [queued] = await seed(svc, [{ clientId: 'client_73', mode: 'MODE_TEST', deviceId: device(), createdAt: minutesAgo(1) }]);

      const first = await svc.client.claimNext({ deviceId: '', mode: 'MODE_TEST', leaseMs: 150 });
      expect(first).toMatchObject({ attempt: 1, message: { messageId: queued!.messageId, mode: 'MODE_TEST' } });
      expect((await svc.client.claimNext({ deviceId: '', mode: 'MODE_TEST', leaseMs: 150 })).message).toBeFalsy();

      await sleep(250);

      expect(await svc.client.claimNext({ deviceId: '', mode: 'MODE_TEST', leaseMs: 60_000 })).toMatchObject({
        attempt: 2,
        message: { messageId: queued!.messageId },
      });
    });

    it('then a test message scheduled for later, cancelled or already accepted is not offered', async () => {
      const deviceId = device();
      const scheduled = await svc.client.send({
        clientId: 'client_74',
        mode: 'MODE_TEST',
        deviceId,
        message: { to: '+33612345678', text: 'plus tard' },
        priority: 1,
        scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      const [cancelled, accepted] = await seed(svc, [
        { clientId: 'client_74', mode: 'MODE_TEST', deviceId, createdAt: minutesAgo(5) },
        { clientId: 'client_74', mode: 'MODE_TEST', deviceId, createdAt: minutesAgo(4) },
      ]);
      await svc.client.cancelMessage({ clientId: 'client_74', messageId: cancelled!.messageId, mode: 'MODE_TEST' });
      await svc.pool.query('UPDATE messages SET accepted_at = now() WHERE message_id = $1', [accepted!.messageId]);

      expect(await drain({ deviceId: '', mode: 'MODE_TEST' })).toEqual([]);
      expect(scheduled.message?.status).toBe('queued');
    });
  });

  describe('when a device asks with MODE_TEST', () => {
    it("then it gets only that device's test-mode messages", async () => {
      const [mine, theirs] = [device(), device()];
      const seeded = await seed(svc, [
        { clientId: 'client_75', mode: 'MODE_TEST', deviceId: mine, createdAt: minutesAgo(3) },
        { clientId: 'client_75', mode: 'MODE_TEST', deviceId: theirs, createdAt: minutesAgo(9) },
        { clientId: 'client_75', mode: 'MODE_LIVE', deviceId: mine, createdAt: minutesAgo(9) },
      ]);

      expect(await drain({ deviceId: mine, mode: 'MODE_TEST' })).toEqual([seeded[0]!.messageId]);
      expect(await drain({ deviceId: theirs, mode: 'MODE_TEST' })).toEqual([seeded[1]!.messageId]);
      expect(await drain({ deviceId: mine, mode: 'MODE_LIVE' })).toEqual([seeded[2]!.messageId]);
    });
  });

  describe('when a phone asks in live mode or without a mode', () => {
    it('then it gets only its live messages, as before', async () => {
      const phone = device();
      const seeded = await seed(svc, [
        { clientId: 'client_76', mode: 'MODE_TEST', deviceId: phone, priority: 1, createdAt: minutesAgo(30) },
        { clientId: 'client_76', mode: 'MODE_LIVE', deviceId: phone, priority: 4, createdAt: minutesAgo(2) },
        { clientId: 'client_76', mode: 'MODE_LIVE', deviceId: phone, priority: 2, createdAt: minutesAgo(1) },
      ]);

      expect(await drain({ deviceId: phone })).toEqual([seeded[2]!.messageId, seeded[1]!.messageId]);
      expect(await drain({ deviceId: phone, mode: 'MODE_TEST' })).toEqual([seeded[0]!.messageId]);
    });

    it('then a live claim without a device is refused with INVALID_DEVICE_ID', async () => {
      for (const mode of ['MODE_LIVE', 'MODE_UNSPECIFIED'] as const) {
        const err: unknown = await svc.client.claimNext({ deviceId: '', mode, leaseMs: 1000 }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('INVALID_DEVICE_ID');
      }
    });
  });

  describe('when a message is sent', () => {
    let nats: Nats;
    let testWakes: number;
    let phoneWakes: string[];
    let subs: Subscription[];

    beforeAll(async () => {
      nats = await connectNats({
        url: NATS_URL,
        prefix: svc.natsPrefix,
        name: 'message-test-wakes',
        log: createLogger('message-test', 'silent'),
      });
      testWakes = 0;
      phoneWakes = [];
      subs = [
        nats.nc.subscribe(nats.names.testWake, {
          callback: () => {
            testWakes++;
          },
        }),
        nats.nc.subscribe(nats.names.wake('*', '*'), {
          callback: (_err, msg) => {
            phoneWakes.push(msg.subject);
          },
        }),
      ];
      await nats.nc.flush();
    });

    afterAll(async () => {
      for (const sub of subs ?? []) sub.unsubscribe();
      await nats?.nc.drain();
    });

    it('then a test-mode message wakes the simulated device, and a live one the hub holding its phone', async () => {
      const phone = device();
      await svc.client.send({ clientId: 'client_77', mode: 'MODE_TEST', deviceId: phone, message: { to: '+33612345678', text: 'essai' } });
      await svc.client.send({ clientId: 'client_77', mode: 'MODE_LIVE', deviceId: phone, message: { to: '+33612345678', text: 'réel' } });
      await nats.nc.flush();
      await sleep(100);

      expect(testWakes).toBe(1);
      expect(phoneWakes).toEqual([nats.names.wake('client_77', phone)]);
    });
  });
});
