import { randomHex } from './support/database';
import { startMessageService, type RunningService } from './support/service';

describe('Idempotency-Key stored with the message: a send made again finds what was stored', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startMessageService();
  });

  afterAll(async () => {
    await svc?.stop();
  });

  const client = () => `client_${Date.now()}${randomHex(3)}`;
  const send = (
    clientId: string,
    text: string,
    key: string,
    requestHash = `hash-of-${text}`,
    mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE',
  ) => ({
    request: {
      clientId,
      mode,
      deviceId: `device_${clientId}`,
      message: { to: '+33612345678', text, metadataJson: '' },
      priority: 3,
      idempotencyKey: key,
      requestHash,
    },
    traceparent: '',
  });
  const countFor = async (clientId: string) =>
    (await svc.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE client_id = $1', [clientId])).rows[0]!.n;

  it('when a send is made again with its key and the same request, then the same message comes back, marked replayed, and only one is stored', async () => {
    const c = client();
    const first = await svc.client.sendMany({ items: [send(c, 'Une fois', 'order-1')] });
    const again = await svc.client.sendMany({ items: [send(c, 'Une fois', 'order-1')] });

    expect(first.results[0]).toMatchObject({ errorCode: '', receipt: { status: 'queued', replayed: false } });
    expect(again.results[0]).toMatchObject({
      errorCode: '',
      receipt: { messageId: first.results[0]!.receipt!.messageId, status: 'queued', replayed: true },
    });
    expect(again.results[0]!.receipt!.queuedAt).toBe(first.results[0]!.receipt!.queuedAt);
    expect(await countFor(c)).toBe(1);

    // Sent since: the answer is still the send's own (queued), its estimate the time it was sent.
    await svc.pool.query("UPDATE messages SET status = 'sent', sent_at = '2030-01-15T10:00:00Z' WHERE client_id = $1", [c]);
    const later = await svc.client.sendMany({ items: [send(c, 'Une fois', 'order-1')] });
    expect(later.results[0]!.receipt).toMatchObject({
      messageId: first.results[0]!.receipt!.messageId,
      status: 'queued',
      replayed: true,
      estimatedDelivery: '2030-01-15T10:00:00.000Z',
    });
  });

  it('when the same key comes with another request, then it is IDEMPOTENCY_KEY_REUSED and nothing more is stored', async () => {
    const c = client();
    await svc.client.sendMany({ items: [send(c, 'Premier', 'order-2')] });
    const other = await svc.client.sendMany({ items: [send(c, 'Autre texte', 'order-2')] });

    expect(other.results[0]).toMatchObject({ errorCode: 'IDEMPOTENCY_KEY_REUSED' });
    expect(other.results[0]!.receipt).toBeFalsy();
    expect(await countFor(c)).toBe(1);
  });

  it('when two clients, or one client in live and test mode, use the same key, then each gets its own message', async () => {
    const [a, b] = [client(), client()];
    const { results } = await svc.client.sendMany({
      items: [send(a, 'x', 'shared'), send(b, 'x', 'shared'), send(a, 'x', 'shared', 'hash-of-x', 'MODE_TEST')],
    });

    expect(results.map((r) => r.errorCode)).toEqual(['', '', '']);
    expect(new Set(results.map((r) => r.receipt!.messageId)).size).toBe(3);
    expect(results.map((r) => r.receipt!.replayed)).toEqual([false, false, false]);
  });

  it('when one call carries the same key twice, then one message is stored and both get it; with another request the second is refused', async () => {
    const c = client();
    const { results } = await svc.client.sendMany({
      items: [send(c, 'double', 'twice'), send(c, 'double', 'twice'), send(c, 'autre', 'twice')],
    });

    expect(results.map((r) => r.errorCode)).toEqual(['', '', 'IDEMPOTENCY_KEY_REUSED']);
    expect(results[1]!.receipt!.messageId).toBe(results[0]!.receipt!.messageId);
    expect(await countFor(c)).toBe(1);
  });

  it('when the answer of a send is lost (deadline shorter than the write) and the send is made again, then the message stored by the first is returned and only one is stored', async () => {
    const c = client();
    // Hold every insert into messages until the test lets go.
    const lock = await svc.pool.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE messages IN SHARE MODE');
    try {
      await expect(
        svc.client.sendMany({ items: [send(c, 'Perdu puis retrouvé', 'lost-answer')] }, { deadlineMs: 300 }),
      ).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
      });
      // The retry arrives while the first write still waits; both go through once the lock is released.
      const retry = svc.client.sendMany({ items: [send(c, 'Perdu puis retrouvé', 'lost-answer')] });
      await new Promise((r) => setTimeout(r, 200));
      await lock.query('COMMIT');
      const { results } = await retry;

      const stored = await svc.pool.query<{ message_id: string }>('SELECT message_id FROM messages WHERE client_id = $1', [c]);
      expect(stored.rows).toHaveLength(1);
      // (Whichever of the two statements took the key first stored the message: both have the same one.)
      expect(results[0]).toMatchObject({ errorCode: '', receipt: { messageId: stored.rows[0]!.message_id, status: 'queued' } });
    } finally {
      await lock.query('ROLLBACK').catch(() => undefined);
      lock.release();
    }
  });

  it('when a key is older than the idempotency TTL, then it is free again and a new message is stored', async () => {
    const c = client();
    const first = await svc.client.sendMany({ items: [send(c, 'Hier', 'daily')] });
    await svc.pool.query("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE client_id = $1", [c]);
    const next = await svc.client.sendMany({ items: [send(c, "Aujourd'hui", 'daily')] });

    expect(next.results[0]).toMatchObject({ errorCode: '', receipt: { replayed: false } });
    expect(next.results[0]!.receipt!.messageId).not.toBe(first.results[0]!.receipt!.messageId);
    expect(await countFor(c)).toBe(2);
  });

  it('when a batch is made again with its key, then the same batch and messages come back; with another request, or a key of a single send, it is refused', async () => {
    const c = client();
    const batch = (text: string, key: string) => ({
      clientId: c,
      mode: 'MODE_LIVE' as const,
      deviceIds: ['device_a', 'device_b'],
      messages: [
        { to: '+33611111111', text, metadataJson: '' },
        { to: '+33622222222', text, metadataJson: '' },
      ],
      priority: 3,
      webhookUrl: '',
      idempotencyKey: key,
      requestHash: `batch-${text}`,
    });
    const first = await svc.client.sendBatch(batch('Promo', 'campaign'));
    const again = await svc.client.sendBatch(batch('Promo', 'campaign'));

    expect(first.replayed).toBe(false);
    expect(again).toMatchObject({ batchId: first.batchId, replayed: true, queuedAt: first.queuedAt });
    expect(again.messages.map((m) => [m.messageId, m.to])).toEqual(first.messages.map((m) => [m.messageId, m.to]));
    await expect(svc.client.sendBatch(batch('Autre promo', 'campaign'))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });

    await svc.client.sendMany({ items: [send(c, 'seul', 'single-then-batch')] });
    await expect(svc.client.sendBatch(batch('Promo', 'single-then-batch'))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await countFor(c)).toBe(3);
  });
});
