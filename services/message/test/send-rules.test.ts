import { checkSendRules } from '../src/domain/send-rules';
import { randomHex } from './support/database';
import { startMessageService, type RunningService } from './support/service';

describe('the send rules', () => {
  it('when a number is not a valid E.164 number, then INVALID_PHONE_NUMBER names `to`', () => {
    for (const to of ['+3361', '0612345678', '+33 6 12 34 56 78', '']) {
      expect(() => checkSendRules({ to, text: 'Bonjour' })).toThrow(expect.objectContaining({ code: 'INVALID_PHONE_NUMBER' }));
    }
  });

  it('when a text has 1600 characters, counted as code points, then it passes, and one more is MESSAGE_TOO_LONG', () => {
    expect(() => checkSendRules({ to: '+33612345678', text: '😀'.repeat(1600) })).not.toThrow();
    expect(() => checkSendRules({ to: '+33612345678', text: 'a'.repeat(1601) })).toThrow(
      expect.objectContaining({ code: 'MESSAGE_TOO_LONG', details: [{ field: 'message', code: 'MESSAGE_TOO_LONG' }] }),
    );
  });
});

describe('the gRPC sends refuse what breaks the send rules', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startMessageService();
  });

  afterAll(async () => {
    await svc?.stop();
  });

  const run = randomHex(4);
  const stored = async (clientId: string) => (await svc.pool.query('SELECT 1 FROM messages WHERE client_id = $1', [clientId])).rowCount;
  const send = (clientId: string, to: string, text: string) => ({
    request: { clientId, mode: 'MODE_LIVE' as const, deviceId: `device_${clientId}`, message: { to, text, metadataJson: '' }, priority: 3 },
    traceparent: '',
  });

  it('when SendMany carries a bad number and a text too long among good sends, then only those two fail, with the API codes', async () => {
    const good = send(`client_${run}_good`, '+33612345678', 'Bonjour');
    const { results } = await svc.client.sendMany({
      items: [good, send(`client_${run}_nb`, '+3361', 'Bonjour'), send(`client_${run}_long`, '+33612345678', 'a'.repeat(1601))],
    });

    expect(results.map((r) => r.errorCode)).toEqual(['', 'INVALID_PHONE_NUMBER', 'MESSAGE_TOO_LONG']);
    expect([await stored(`client_${run}_good`), await stored(`client_${run}_nb`), await stored(`client_${run}_long`)]).toEqual([1, 0, 0]);
  });

  it('when SendBatch carries a bad number, then the batch is refused naming that message, and nothing is stored', async () => {
    const clientId = `client_${run}_batch`;
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
    expect(await stored(clientId)).toBe(0);
  });
});
