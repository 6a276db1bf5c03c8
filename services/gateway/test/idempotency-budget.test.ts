import { presenceKey } from '@smsgw/platform';
import { apiKey, CLIENT, FleetGateway } from './support/fleet-gateway';

const A = 'device_A';
const recipients = Array.from({ length: 20 }, (_, n) => `+336123456${String(n).padStart(2, '0')}`);

/** What Redis keeps for Idempotency-Key replays is bounded: per answer, per client and in all, each window of the TTL. */
describe('the answers kept for Idempotency-Key replays, through the real app on real Redis', () => {
  async function gateway(budget: { maxAnswerBytes: number; clientBytes: number; totalBytes: number }): Promise<FleetGateway> {
    const gw = new FleetGateway();
    gw.idempotencyBudget = budget;
    await gw.start();
    gw.devices = [{ deviceId: A, status: 'online', hasRoom: true }];
    await gw.redis.set(presenceKey(A), 'online');
    return gw;
  }
  const kept = async (gw: FleetGateway) => {
    const keys = (await gw.redis.keys(`${gw.redis.options.keyPrefix ?? ''}idempotency:*`)).map((k) =>
      k.slice((gw.redis.options.keyPrefix ?? '').length),
    );
    return Promise.all(keys.map(async (k) => JSON.parse((await gw.redis.get(k))!) as { state: string; body?: unknown }));
  };

  it('when an answer is over the bound of one, then it is kept done without its body, and its replay is the message service’s, with the same key', async () => {
    const gw = await gateway({ maxAnswerBytes: 1000, clientBytes: 1024 * 1024, totalBytes: 1024 * 1024 });
    try {
      const key = apiKey();
      const headers = { 'idempotency-key': 'bulk-1', 'x-device-id': A };
      const first = await gw.call('POST', '/v1/sms/send-bulk', { key, body: { recipients, message: 'Bonjour' }, headers });
      expect(first.status).toBe(200);
      expect(await kept(gw)).toEqual([expect.objectContaining({ state: 'done' })]);
      expect((await kept(gw))[0]!.body).toBeUndefined();

      const again = await gw.call('POST', '/v1/sms/send-bulk', { key, body: { recipients, message: 'Bonjour' }, headers });
      expect(again.status).toBe(200);
      expect(gw.batches).toHaveLength(2);
      expect(gw.batches[1]!.idempotencyKey).toBe('bulk-1');
      expect(gw.batches[1]!.requestHash).toBe(gw.batches[0]!.requestHash);
      // Another body with the key is refused from Redis still.
      const other = await gw.call('POST', '/v1/sms/send-bulk', { key, body: { recipients, message: 'Autre' }, headers });
      expect(other.body.error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(gw.batches).toHaveLength(2);

      const small = await gw.call('POST', '/v1/sms/send', {
        key,
        body: { to: recipients[0], message: 'x' },
        headers: { 'idempotency-key': 'one' },
      });
      const replay = await gw.call('POST', '/v1/sms/send', {
        key,
        body: { to: recipients[0], message: 'x' },
        headers: { 'idempotency-key': 'one' },
      });
      expect(replay.body).toEqual(small.body);
      expect(gw.sends).toHaveLength(1);
    } finally {
      await gw.stop();
    }
  });

  it.each([
    ['its client', { maxAnswerBytes: 32 * 1024, clientBytes: 3000, totalBytes: 1024 * 1024 }],
    ['every client', { maxAnswerBytes: 32 * 1024, clientBytes: 1024 * 1024, totalBytes: 3000 }],
  ])(
    'when the answers kept reach the bytes of %s in the window, then the next are not kept and their replays go to the message service',
    async (_who, budget) => {
      const gw = await gateway(budget);
      try {
        const key = apiKey();
        const send = (n: number) =>
          gw.call('POST', '/v1/sms/send', {
            key,
            body: { to: recipients[0], message: `n° ${n}` },
            headers: { 'idempotency-key': `k${n}` },
          });
        for (let n = 0; n < 10; n++) expect((await send(n)).status).toBe(200);

        const stored = await kept(gw);
        expect(stored.length).toBeGreaterThan(0);
        expect(stored.length).toBeLessThan(10);
        const budgetKey = budget.clientBytes < budget.totalBytes ? `idempotency-budget:${CLIENT}` : 'idempotency-budget:all';
        expect(Number(await gw.redis.get(budgetKey))).toBeLessThanOrEqual(3000);
        expect(await gw.redis.ttl(budgetKey)).toBeGreaterThan(0);

        const sendsBefore = gw.sends.length;
        await send(9);
        expect(gw.sends.length).toBe(sendsBefore + 1);
        expect(gw.sends.at(-1)!.idempotencyKey).toBe('k9');
        await send(0);
        expect(gw.sends.length).toBe(sendsBefore + 1);
      } finally {
        await gw.stop();
      }
    },
  );
});
