import type { devicehub } from '@smsgw/proto';
import { HUB_REFUSAL, startFleetWorld, type FleetWorld } from './support/fleet-world';

const VALID = {
  per_minute: '5',
  per_hour: '100',
  per_day: '',
  min_interval_ms: '4000',
  max_interval_ms: '8000',
  sending_hours_start: '22:00',
  sending_hours_end: '07:30',
  time_zone: 'Europe/Paris',
};

/** The text of a field's error on the page, or undefined. */
const errorOf = (text: string, field: string) => new RegExp(`data-error="${field}">([^<]*)<`).exec(text)?.[1];

/**
 * A phone's page: the use of its limits, and the form of its limits and hours saved with the
 * hub's SetDeviceLimits (a stand-in), its refusals shown per field; another client's phone refused.
 */
describe("a phone's limits and their use", () => {
  let world: FleetWorld;

  beforeAll(async () => {
    world = await startFleetWorld();
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
  });

  beforeEach(() => {
    const d = world.devices.get('device_a1')!;
    d.limits = {
      perMinute: 10,
      perHour: 0,
      perDay: 500,
      minIntervalMs: 0,
      maxIntervalMs: 0,
      sendingHoursStart: '',
      sendingHoursEnd: '',
      timeZone: '',
    };
    d.usage = { lastMinute: 3, lastHour: 42, lastDay: 120 };
    d.hasRoom = true;
    world.clearCalls();
  });

  const limitCalls = () => (world.calls.hub.SetDeviceLimits ?? []) as devicehub.SetDeviceLimitsRequest__Output[];

  it('when the phones are listed, then each says whether it may send now and links to its limits', async () => {
    world.devices.get('device_a1')!.hasRoom = false;
    const browser = await world.signedIn('a');

    const res = await browser.get('/phones');

    expect(res.status).toBe(200);
    expect(res.text).toContain('href="/phones/device_a1" data-limits');
    expect(res.text).toContain('data-room="no"');
    expect(res.text).not.toContain('device_b1');
  });

  it("when a phone's page is opened, then it shows its use of each limit, no limit for 0, whether it may send now, and its limits in the form", async () => {
    const browser = await world.signedIn('a');

    const res = await browser.get('/phones/device_a1');

    expect(res.status).toBe(200);
    const rows = [...res.text.matchAll(/<th scope="row">([^<]+)<\/th><td data-used>(\d+)<\/td><td data-limit>([^<]+)<\/td>/g)].map((m) =>
      m.slice(1),
    );
    expect(rows).toEqual([
      ['Last minute', '3', '10'],
      ['Last hour', '42', 'no limit'],
      ['Last 24 hours', '120', '500'],
    ]);
    expect(res.text).toContain('data-room="yes"');
    expect(res.text).toContain(
      '<dd data-repairs>3 messages: 2 lost reports applied, 1 sent but shown queued, 0 never on the phone and queued again</dd>',
    );
    expect(res.text).toMatch(/name="per_minute" value="10"/);
    expect(res.text).toMatch(/name="per_hour" value=""/);
    expect(res.text).toMatch(/name="per_day" value="500"/);
    expect(res.text).toContain('any time');
  });

  it('when a phone reported two SIMs, then its page lists each with its carrier, number and use of the limits; a phone that never said shows them as unknown', async () => {
    const browser = await world.signedIn('a');
    const phone = world.devices.get('device_a1')!;
    phone.sims = [
      { slot: 1, carrier: 'Orange F', number: '+33611111111', usage: { lastMinute: 2, lastHour: 30, lastDay: 80 }, hasRoom: true },
      { slot: 2, carrier: 'Free', number: '', usage: { lastMinute: 1, lastHour: 12, lastDay: 40 }, hasRoom: false },
    ];

    const res = await browser.get('/phones/device_a1');
    phone.sims = [];
    const unknown = await browser.get('/phones/device_a1');

    const rows = [
      ...res.text.matchAll(
        /<tr data-slot="(\d)"><th scope="row">([^<]+)<\/th><td>([^<]+)<\/td><td>([^<]+)<\/td><td data-sim-used>([^<]+)<\/td><td>(yes|no)<\/td>/g,
      ),
    ].map((m) => m.slice(1));
    expect(rows).toEqual([
      ['1', 'SIM 1', 'Orange F', '+33611111111', '2 / 30 / 80', 'yes'],
      ['2', 'SIM 2', 'Free', 'unknown', '1 / 12 / 40', 'no'],
    ]);
    expect(res.text).toContain('the limits apply to each SIM');
    expect(unknown.text).toContain('data-sims="unknown"');
  });

  it('when the limits form is saved, then SetDeviceLimits gets every field of it, and the page says so with the new limits', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/phones/device_a1');

    const saved = await browser.post('/phones/device_a1/limits', VALID);
    const after = await browser.get(saved.location);

    expect([saved.status, saved.location]).toEqual([302, '/phones/device_a1?saved=1']);
    expect(limitCalls()).toEqual([
      {
        clientId: 'client_a',
        deviceId: 'device_a1',
        limits: {
          perMinute: 5,
          perHour: 100,
          perDay: 0,
          minIntervalMs: 4000,
          maxIntervalMs: 8000,
          sendingHoursStart: '22:00',
          sendingHoursEnd: '07:30',
          timeZone: 'Europe/Paris',
        },
      },
    ]);
    expect(after.text).toContain('The limits are saved');
    expect(after.text).toContain('22:00 to 07:30 (Europe/Paris, across midnight)');
    expect(after.text).toMatch(/name="per_hour" value="100"/);
  });

  it('when a field is not right, then each error is shown at its field, what was typed is given back, and nothing is sent to the hub', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/phones/device_a1');

    const res = await browser.post('/phones/device_a1/limits', {
      ...VALID,
      per_hour: 'lots',
      min_interval_ms: '9000',
      max_interval_ms: '1000',
      sending_hours_start: '25:00',
      time_zone: 'Mars/Olympus',
    });
    const oneEnd = await browser.post('/phones/device_a1/limits', { ...VALID, sending_hours_end: '' });

    expect(res.status).toBe(400);
    expect(errorOf(res.text, 'per_hour')).toBe('The limit per hour is a whole number of SMS, 0 for none.');
    expect(errorOf(res.text, 'max_interval_ms')).toBe('The longest pause cannot be shorter than the shortest one.');
    expect(errorOf(res.text, 'sending_hours_start')).toBe('Sending hours are written HH:MM, from 00:00 to 23:59.');
    expect(errorOf(res.text, 'time_zone')).toContain('Unknown time zone');
    expect(errorOf(res.text, 'per_minute')).toBeUndefined();
    expect(res.text).toMatch(/name="per_hour" value="lots"/);
    expect(res.text).toContain('nothing was changed');
    expect(oneEnd.status).toBe(400);
    expect(errorOf(oneEnd.text, 'sending_hours_end')).toBe('Give both ends of the sending hours, or neither for any time.');
    expect(limitCalls()).toEqual([]);
    expect(world.devices.get('device_a1')!.limits!.perMinute).toBe(10);
  });

  it("when the hub refuses the limits (INVALID_PARAMETER), then its reason is shown at the field it names and the phone's limits stay", async () => {
    const browser = await world.signedIn('a');
    await browser.get('/phones/device_a1');

    const res = await browser.post('/phones/device_a1/limits', { ...VALID, per_minute: '500', per_hour: '100' });

    expect(res.status).toBe(400);
    expect(errorOf(res.text, 'per_minute')).toBe(HUB_REFUSAL);
    expect(res.text).toMatch(/name="per_minute" value="500"/);
    expect(world.devices.get('device_a1')!.limits!.perMinute).toBe(10);
  });

  it("when another client's phone is asked for or its limits posted, then it is 404 as if it did not exist, and nothing is sent", async () => {
    const browser = await world.signedIn('a');
    await browser.get('/phones/device_a1');

    const page = await browser.get('/phones/device_b1');
    const posted = await browser.post('/phones/device_b1/limits', VALID);

    expect(page.status).toBe(404);
    expect(posted.status).toBe(404);
    expect(posted.text).toContain('This page does not exist, or it is not yours.');
    expect(limitCalls()).toEqual([]);
  });

  it('when the limits form comes without its CSRF token, or without a session, then it is refused and nothing is sent', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/phones/device_a1');

    const forged = await browser.post('/phones/device_a1/limits', { ...VALID, _csrf: 'forged' });
    await browser.post('/signout');
    const signedOut = await browser.post('/phones/device_a1/limits', VALID);

    expect(forged.status).toBe(403);
    expect([401, 403]).toContain(signedOut.status);
    expect(limitCalls()).toEqual([]);
  });
});
