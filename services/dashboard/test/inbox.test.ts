import { AppError } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { startFleetWorld, type FleetWorld } from './support/fleet-world';

const rcv = (id: string, clientId: string, from: string, text: string, at: string, mode = 'MODE_LIVE'): message.ReceivedMessage__Output =>
  ({ id, clientId, mode, deviceId: 'device_a1', sim: 1, from, text, receivedAt: at, createdAt: at }) as message.ReceivedMessage__Output;

const RECEIVED = [
  rcv('rcv_3', 'client_a', '+33622222222', 'Bonjour, encore moi', '2026-11-25T09:00:00.000Z'),
  rcv('rcv_2', 'client_a', '+33611111111', 'Merci <b>beaucoup</b>', '2026-11-25T08:00:00.000Z'),
  rcv('rcv_1', 'client_a', '+33611111111', 'Quand arrive ma commande ?', '2026-11-25T07:00:00.000Z'),
  rcv('rcv_0', 'client_a', 'INFO', 'Votre forfait', '2026-11-25T06:00:00.000Z'),
  rcv('rcv_t', 'client_a', '+33633333333', 'a test-mode SMS', '2026-11-25T09:30:00.000Z', 'MODE_TEST'),
  rcv('rcv_b', 'client_b', '+33699999999', 'the secret of b', '2026-11-25T09:45:00.000Z'),
];

/** The message service's refusal the stand-in plays for this text. */
const REFUSED_TEXT = 'please refuse this';

function sent(id: string, clientId: string, to: string, text: string, at: string): message.Message__Output {
  return {
    messageId: id,
    clientId,
    deviceId: 'device_a1',
    to,
    text,
    status: 'delivered',
    mode: 'MODE_LIVE',
    createdAt: at,
    attempts: [],
  } as unknown as message.Message__Output;
}

const page = (items: unknown[], req: { page: number; limit: number }) => ({
  page: req.page,
  perPage: req.limit,
  totalItems: items.length,
  totalPages: Math.ceil(items.length / req.limit),
});

/**
 * The inbox: conversations by number from ListReceived, a conversation merging the received SMS
 * of a number with the messages sent to it, and the reply sent through message Send (stand-ins).
 */
describe('the inbox and its replies', () => {
  let world: FleetWorld;
  let next = 0;

  beforeAll(async () => {
    world = await startFleetWorld({
      message: {
        ListReceived: async (req: message.ListReceivedRequest__Output) => {
          const all = RECEIVED.filter((m) => m.clientId === req.clientId && m.mode === req.mode && (!req.from || m.from === req.from));
          return { messages: all.slice((req.page - 1) * req.limit, req.page * req.limit), ...page(all, req) };
        },
        ListMessages: async (req: message.ListMessagesRequest__Output) => {
          const all = [...world.messages.values()]
            .filter((m) => m.clientId === req.clientId && (!req.to || m.to === req.to))
            .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
          return { messages: all.slice(0, req.limit), ...page(all, req) };
        },
        Send: async (req: message.SendRequest__Output) => {
          if (req.message!.text === REFUSED_TEXT) throw new AppError('VALIDATION_ERROR', { message: 'Envoi refusé par le service.' });
          const m = sent(`msg_new${++next}`, req.clientId, req.message!.to, req.message!.text, '2026-11-25T09:10:00.000Z');
          world.messages.set(m.messageId, m);
          return { message: m, estimatedDelivery: '', replayed: false };
        },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
  });

  beforeEach(() => {
    world.messages.clear();
    world.messages.set('msg_1', sent('msg_1', 'client_a', '+33611111111', 'Demain avant midi', '2026-11-25T07:30:00.000Z'));
    world.messages.set('msg_b', sent('msg_b', 'client_b', '+33611111111', 'a message of b', '2026-11-25T07:40:00.000Z'));
    world.devices.get('device_a1')!.status = 'online';
    world.clearCalls();
  });

  const sendCalls = () => (world.calls.message.Send ?? []) as message.SendRequest__Output[];

  it('when the inbox is opened, then it lists each number once, the latest first, with its last text and time, live only', async () => {
    const browser = await world.signedIn('a');

    const res = await browser.get('/inbox');

    expect(res.status).toBe(200);
    expect([...res.text.matchAll(/data-conversation="([^"]+)"/g)].map((m) => m[1])).toEqual(['+33622222222', '+33611111111', 'INFO']);
    expect(res.text).toContain('href="/inbox/%2B33611111111"');
    expect(res.text).toContain('Merci &lt;b&gt;beaucoup&lt;/b&gt;');
    expect(res.text).not.toContain('Quand arrive');
    expect(res.text).toContain('datetime="2026-11-25T08:00:00.000Z"');
    expect(res.text).toContain('href="/inbox" aria-current="page"');
    expect(res.text).not.toContain('+33633333333');
    expect(res.text).not.toContain('secret of b');
    const calls = world.calls.message.ListReceived as message.ListReceivedRequest__Output[];
    expect(calls.every((c) => c.clientId === 'client_a' && c.mode === 'MODE_LIVE' && c.from === '')).toBe(true);
  });

  it("when a conversation is opened, then its received and sent SMS are merged oldest first, and another client's are never shown", async () => {
    const browser = await world.signedIn('a');

    const res = await browser.get('/inbox/%2B33611111111');

    expect(res.status).toBe(200);
    expect([...res.text.matchAll(/data-id="([^"]+)"/g)].map((m) => m[1])).toEqual(['rcv_1', 'msg_1', 'rcv_2']);
    expect(res.text).not.toContain('a message of b');
    expect((world.calls.message.ListReceived as message.ListReceivedRequest__Output[])[0]).toMatchObject({
      clientId: 'client_a',
      mode: 'MODE_LIVE',
      from: '+33611111111',
    });
    expect((world.calls.message.ListMessages as message.ListMessagesRequest__Output[])[0]).toMatchObject({
      clientId: 'client_a',
      mode: 'MODE_LIVE',
      to: '+33611111111',
    });
    expect(res.text).toContain('<option value="device_a1"');
    expect(res.text).not.toContain('device_b1');
  });

  it('when a reply is sent, then Send gets the live mode, the chosen phone pinned, the number and the text, and the conversation says so', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/inbox/%2B33611111111');

    const posted = await browser.post('/inbox/%2B33611111111/reply', { device_id: 'device_a1', text: 'Votre colis arrive' });
    const after = await browser.get(posted.location);

    expect([posted.status, posted.location]).toEqual([302, '/inbox/%2B33611111111?sent=1']);
    expect(sendCalls()).toEqual([
      expect.objectContaining({
        clientId: 'client_a',
        mode: 'MODE_LIVE',
        deviceId: 'device_a1',
        pinned: true,
        ttlSeconds: 7200,
        message: expect.objectContaining({ to: '+33611111111', text: 'Votre colis arrive' }),
      }),
    ]);
    expect(after.text).toContain('The reply is queued');
    expect(after.text).toContain('Votre colis arrive');
  });

  it('when the chosen phone is offline, or is not the client’s, or the text is empty, then nothing is sent and the error is at its field', async () => {
    world.devices.get('device_a1')!.status = 'offline';
    const browser = await world.signedIn('a');
    await browser.get('/inbox/%2B33611111111');

    const offline = await browser.post('/inbox/%2B33611111111/reply', { device_id: 'device_a1', text: 'Bonjour' });
    const foreign = await browser.post('/inbox/%2B33611111111/reply', { device_id: 'device_b1', text: '' });

    expect(offline.status).toBe(400);
    expect(offline.text).toMatch(/data-error="device_id">The phone “Phone of client_a” is offline/);
    expect(offline.text).toContain('>Bonjour</textarea>');
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain('data-error="device_id">This phone is not one of yours.');
    expect(foreign.text).toContain('data-error="text">Write the text of the reply.');
    expect(sendCalls()).toEqual([]);
  });

  it('when the message service refuses the reply, then its reason is shown and the text is given back', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/inbox/%2B33611111111');

    const res = await browser.post('/inbox/%2B33611111111/reply', { device_id: 'device_a1', text: REFUSED_TEXT });

    expect(res.status).toBe(400);
    expect(res.text).toContain('role="alert">Envoi refusé par le service.');
    expect(res.text).toContain(`>${REFUSED_TEXT}</textarea>`);
  });

  it('when the sender is a name, then there is no reply form and a posted reply is refused', async () => {
    const browser = await world.signedIn('a');

    const res = await browser.get('/inbox/INFO');
    const posted = await browser.post('/inbox/INFO/reply', { device_id: 'device_a1', text: 'Bonjour' });

    expect(res.text).toContain('data-no-reply');
    expect(res.text).not.toContain('/reply"');
    expect(posted.status).toBe(400);
    expect(sendCalls()).toEqual([]);
  });

  it('when a reply comes without its CSRF token, then it is refused and nothing is sent', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/inbox/%2B33611111111');

    const forged = await browser.post('/inbox/%2B33611111111/reply', { device_id: 'device_a1', text: 'Bonjour', _csrf: 'forged' });

    expect(forged.status).toBe(403);
    expect(sendCalls()).toEqual([]);
  });

  it('when a number is typed in the open form, then its E.164 conversation opens', async () => {
    const browser = await world.signedIn('a');

    const res = await browser.get('/inbox/open?number=%2B33%206%2011%2011%2011%2011');

    expect([res.status, res.location]).toEqual([302, '/inbox/%2B33611111111']);
  });
});
