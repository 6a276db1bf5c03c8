import { randomHex } from './support/database';
import { startMessageService, type RunningService } from './support/service';

/** One client's send that Postgres cannot store, gathered with 50 sends of other clients. */
describe('a poisoned send gathered with others fails alone', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startMessageService();
  });

  afterAll(async () => {
    await svc?.stop();
  });

  const run = randomHex(4);
  const send = (clientId: string, text: string, extra: { metadataJson?: string; priority?: number } = {}) => ({
    request: {
      clientId,
      mode: 'MODE_LIVE' as const,
      deviceId: `device_${clientId}`,
      message: { to: '+33612345678', text, metadataJson: extra.metadataJson ?? '' },
      priority: extra.priority ?? 3,
    },
    traceparent: '',
  });
  /** 50 valid sends of 50 other clients, with `poisoned` in the middle. */
  const gathered = (tag: string, poisoned: ReturnType<typeof send>) => {
    const items = Array.from({ length: 50 }, (_, i) => send(`client_${run}_${tag}_${i}`, `Bonjour n° ${i}`));
    items.splice(25, 0, poisoned);
    return items;
  };
  const storedOf = async (tag: string) =>
    (await svc.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE client_id LIKE $1', [`client_${run}_${tag}_%`]))
      .rows[0]!.n;

  it.each([
    ['a NUL in the text', 'text', send(`client_${run}_bad1`, 'avant\u0000après'), 'INVALID_CHARACTER'],
    // (A lone surrogate in the text itself cannot cross gRPC: proto strings are UTF-8, it arrives as U+FFFD.
    // The gateway refuses it; in metadata, JSON escapes carry it, and it is refused here.)
    [
      'a NUL in a nested metadata key',
      'metakey',
      send(`client_${run}_bad3`, 'ok', { metadataJson: '{"a":{"b\\u0000":"x"}}' }),
      'INVALID_CHARACTER',
    ],
    [
      'a NUL in a metadata value in an array',
      'metavalue',
      send(`client_${run}_bad4`, 'ok', { metadataJson: '{"a":["x","\\u0000"]}' }),
      'INVALID_CHARACTER',
    ],
    [
      'a lone surrogate in metadata',
      'metasurrogate',
      send(`client_${run}_bad5`, 'ok', { metadataJson: '{"a":"\\udc00"}' }),
      'INVALID_CHARACTER',
    ],
    // Not checked by the handler: Postgres refuses it (CHECK constraint), which fails the whole
    // statement; the sends are then stored one by one and only this one fails.
    ['a priority the database refuses', 'priority', send(`client_${run}_bad6`, 'ok', { priority: 9 }), 'INVALID_PRIORITY'],
    ['a priority out of the column type', 'smallint', send(`client_${run}_bad7`, 'ok', { priority: 70_000 }), 'INVALID_PRIORITY'],
  ])(
    'when one send carries %s, then only it fails and the 50 sends of the other clients are stored',
    async (_what, tag, poisoned, code) => {
      const { results } = await svc.client.sendMany({ items: gathered(tag, poisoned) });

      expect(results).toHaveLength(51);
      expect(results[25]).toMatchObject({ errorCode: code });
      expect(results[25]!.receipt).toBeFalsy();
      const others = results.filter((_, i) => i !== 25);
      expect(others.map((r) => r.errorCode)).toEqual(Array(50).fill(''));
      expect(new Set(others.map((r) => r.receipt!.messageId)).size).toBe(50);
      expect(await storedOf(tag)).toBe(50);
      const poisonedClient = poisoned.request.clientId;
      expect((await svc.pool.query('SELECT 1 FROM messages WHERE client_id = $1', [poisonedClient])).rowCount).toBe(0);
    },
  );

  it('when the poisoned send goes to a listed number (stored after the others), then only it fails and the others are stored once', async () => {
    const poisoned = send(`client_${run}_listedbad`, 'ok', { priority: 9 });
    await svc.client.addOptOut({ clientId: poisoned.request.clientId, mode: 'MODE_LIVE', phoneNumber: '+33612345678', source: 'api' });

    const { results } = await svc.client.sendMany({ items: gathered('listed', poisoned) });

    expect(results[25]).toMatchObject({ errorCode: 'INVALID_PRIORITY' });
    const others = results.filter((_, i) => i !== 25);
    expect(others.map((r) => r.errorCode)).toEqual(Array(50).fill(''));
    expect(new Set(others.map((r) => r.receipt!.messageId)).size).toBe(50);
    expect(await storedOf('listed')).toBe(50);
    expect((await svc.pool.query('SELECT 1 FROM messages WHERE client_id = $1', [poisoned.request.clientId])).rowCount).toBe(0);
  });

  it('when a batch carries a NUL in one message, then the batch is refused with INVALID_ARGUMENT naming that message, and nothing is stored', async () => {
    const clientId = `client_${run}_batch`;
    const call = svc.client.sendBatch({
      clientId,
      mode: 'MODE_LIVE',
      deviceIds: ['device_a', 'device_a'],
      messages: [
        { to: '+33611111111', text: 'bien', metadataJson: '' },
        { to: '+33622222222', text: 'mal\u0000', metadataJson: '' },
      ],
      priority: 3,
      webhookUrl: '',
    });

    await expect(call).rejects.toMatchObject({
      code: 'INVALID_CHARACTER',
      details: [{ field: 'messages[1].message', code: 'INVALID_CHARACTER' }],
    });
    await expect(call).rejects.toHaveProperty('cause.code', 3); // gRPC INVALID_ARGUMENT
    expect((await svc.pool.query('SELECT 1 FROM messages WHERE client_id = $1', [clientId])).rowCount).toBe(0);
  });

  const sendTo = (clientId: string, to: string, text: string) => {
    const item = send(clientId, text);
    return { ...item, request: { ...item.request, message: { ...item.request.message, to } } };
  };
  const storedRows = async (clientId: string) => (await svc.pool.query('SELECT 1 FROM messages WHERE client_id = $1', [clientId])).rowCount;

  it('when SendMany carries a bad number and a text too long among good sends, then only those two fail, with the API codes', async () => {
    const good = sendTo(`client_${run}_good`, '+33612345678', 'Bonjour');
    const { results } = await svc.client.sendMany({
      items: [good, sendTo(`client_${run}_nb`, '+3361', 'Bonjour'), sendTo(`client_${run}_long`, '+33612345678', 'a'.repeat(1601))],
    });

    expect(results.map((r) => r.errorCode)).toEqual(['', 'INVALID_PHONE_NUMBER', 'MESSAGE_TOO_LONG']);
    expect([await storedRows(`client_${run}_good`), await storedRows(`client_${run}_nb`), await storedRows(`client_${run}_long`)]).toEqual([
      1, 0, 0,
    ]);
  });

  it('when SendBatch carries a bad number, then the batch is refused naming that message, and nothing is stored', async () => {
    const clientId = `client_${run}_batchnb`;
    const call = svc.client.sendBatch({
      clientId,
      mode: 'MODE_LIVE',
      deviceIds: ['device_a', 'device_a'],
      messages: [
        { to: '+33611111111', text: 'bien', metadataJson: '' },
        { to: '+33 6 22 22 22 22', text: 'bien', metadataJson: '' },
      ],
      priority: 3,
      webhookUrl: '',
    });

    await expect(call).rejects.toMatchObject({
      code: 'INVALID_PHONE_NUMBER',
      details: [{ field: 'messages[1].to', code: 'INVALID_PHONE_NUMBER' }],
    });
    await expect(call).rejects.toHaveProperty('cause.code', 3); // gRPC INVALID_ARGUMENT
    expect(await storedRows(clientId)).toBe(0);
  });
});
