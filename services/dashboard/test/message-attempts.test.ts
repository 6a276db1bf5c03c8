import type { message } from '@smsgw/proto';
import { startFleetWorld, type FleetWorld } from './support/fleet-world';

function aMessage(id: string, clientId: string, change: Partial<message.Message__Output> = {}): message.Message__Output {
  return {
    messageId: id,
    clientId,
    deviceId: 'device_a2',
    to: '+33612345678',
    text: 'Votre commande est prête',
    status: 'delivered',
    parts: 1,
    encoding: 'GSM-7',
    priority: 3,
    batchId: '',
    metadataJson: '',
    createdAt: '2026-11-25T08:00:00.000Z',
    queuedAt: '2026-11-25T08:00:00.000Z',
    scheduledAt: '',
    sentAt: '2026-11-25T08:03:10.000Z',
    deliveredAt: '2026-11-25T08:03:12.000Z',
    failedAt: '',
    cancelledAt: '',
    errorCode: '',
    errorMessage: '',
    expiresAt: '',
    pinned: false,
    attempts: [],
    ...change,
  } as message.Message__Output;
}

/** The message page's timeline: each phone's try in order, and when the message expires. */
describe("a message's attempts and expiry", () => {
  let world: FleetWorld;

  beforeAll(async () => {
    world = await startFleetWorld();
    world.messages.set(
      'msg_moved',
      aMessage('msg_moved', 'client_a', {
        sim: 1,
        requestedSim: 1,
        expiresAt: '2026-11-25T09:00:00.000Z',
        attempts: [
          {
            deviceId: 'device_a0',
            status: 'moved',
            errorCode: 'DEVICE_OFFLINE',
            errorMessage: 'Le téléphone est hors ligne.',
            at: '2026-11-25T08:01:00.000Z',
            sim: 0,
            reconciled: '',
          },
          {
            deviceId: 'device_a1',
            status: 'failed',
            errorCode: 'OUT_OF_NETWORK',
            errorMessage: 'radio off',
            at: '2026-11-25T08:02:00.000Z',
            sim: 2,
            reconciled: '',
          },
          {
            deviceId: 'device_a2',
            status: 'delivered',
            errorCode: '',
            errorMessage: '',
            at: '2026-11-25T08:03:12.000Z',
            sim: 1,
            reconciled: 'report_applied',
          },
        ],
      }),
    );
    world.messages.set('msg_plain', aMessage('msg_plain', 'client_a', { pinned: true, deviceId: 'device_a1' }));
    world.messages.set('msg_other', aMessage('msg_other', 'client_b'));
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
  });

  it('when a message that moved is opened, then each attempt shows its phone, status, error and time, oldest first, and its expiry', async () => {
    const browser = await world.signedIn('a');

    const res = await browser.get('/messages/msg_moved');

    expect(res.status).toBe(200);
    const rows = [...res.text.matchAll(/<tr data-attempt="(\d)">(.*?)<\/tr>/g)].map(([, n, row]) => [
      n,
      /<code class="small">([^<]+)<\/code>/.exec(row!)![1],
      /<span class="status [^"]+">([^<]+)<\/span>/.exec(row!)![1],
      /<td><code>([A-Z_]+)<\/code>/.exec(row!)?.[1] ?? 'none',
      /datetime="([^"]+)"/.exec(row!)![1],
    ]);
    expect(rows).toEqual([
      ['1', 'device_a0', 'moved', 'DEVICE_OFFLINE', '2026-11-25T08:01:00.000Z'],
      ['2', 'device_a1', 'failed', 'OUT_OF_NETWORK', '2026-11-25T08:02:00.000Z'],
      ['3', 'device_a2', 'delivered', 'none', '2026-11-25T08:03:12.000Z'],
    ]);
    expect([...res.text.matchAll(/<td data-attempt-sim>([^<]+)<\/td>/g)].map((m) => m[1])).toEqual(['—', '2', '1']);
    // The last try was repaired from the phone's digest: a lost report applied.
    expect([...res.text.matchAll(/<span class="muted" data-reconciled>([^<]+)<\/span>/g)].map((m) => m[1])).toEqual([
      "(repaired from the phone's digest: report applied)",
    ]);
    expect(res.text).toMatch(/<dd data-sim>SIM 1 <span class="muted">\(asked for SIM 1\)<\/span><\/dd>/);
    expect(res.text).toContain('Le téléphone est hors ligne.');
    expect(res.text).toMatch(/<dt>Expires<\/dt><dd data-expires><time datetime="2026-11-25T09:00:00.000Z">/);
    expect(res.text).not.toContain('data-pinned');
  });

  it('when a message has no expiry nor attempts, then neither is shown; a pinned one says it stays on its phone', async () => {
    const browser = await world.signedIn('a');

    const res = await browser.get('/messages/msg_plain');

    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<dt>Expires</dt>');
    expect(res.text).not.toContain('id="attempts"');
    expect(res.text).toContain('data-pinned');
  });

  it("when another client's message is asked for, then it is 404", async () => {
    const browser = await world.signedIn('a');

    expect((await browser.get('/messages/msg_other')).status).toBe(404);
  });
});
