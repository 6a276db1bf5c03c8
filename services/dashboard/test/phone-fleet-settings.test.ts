import { startFleetWorld, type FleetWorld } from './support/fleet-world';

/**
 * The Phones page's settings for all phones (issue 38), through real HTTP, with a stand-in hub:
 * the offline warning's delay and the SIM health thresholds the account's phones follow unless a
 * phone has its own.
 */
describe('the settings for all phones', () => {
  let world: FleetWorld;

  beforeAll(async () => {
    world = await startFleetWorld();
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
  });

  beforeEach(() => {
    world.fleetSettings.clear();
    const d = world.devices.get('device_a1')!;
    d.simHealthOwn = false;
    d.simHealthSettings = { consecutiveFailures: 5, failureRatio: 50, window: 20, minSample: 10, coolDownSeconds: 900 };
    world.clearCalls();
  });

  const form = (over: Record<string, string> = {}) => ({
    offline_alert_minutes: '45',
    consecutive_failures: '3',
    failure_ratio: '40',
    window: '10',
    min_sample: '5',
    cool_down_seconds: '600',
    ...over,
  });

  it('when the Phones page is opened, then it shows the default offline delay of 30 minutes and the thresholds for all phones', async () => {
    const browser = await world.signedIn('a');
    const res = await browser.get('/phones');
    expect(res.status).toBe(200);
    expect(res.text).toContain('action="/phones/settings"');
    expect(res.text).toMatch(/name="offline_alert_minutes"[^>]*value="30"/);
    expect(res.text).toContain('data-offline-alert="1800">after 30 minutes offline');
  });

  it('when the settings are saved, then the hub gets them for this account only, and a phone without its own thresholds follows them', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/phones');

    const saved = await browser.post('/phones/settings', form());
    expect(saved.status).toBe(302);
    expect(world.calls.hub.SetFleetSettings).toEqual([
      expect.objectContaining({
        clientId: 'client_a',
        offlineAlertSeconds: 2700,
        simHealth: { consecutiveFailures: 3, failureRatio: 40, window: 10, minSample: 5, coolDownSeconds: 600 },
      }),
    ]);
    const page = await browser.get('/phones?saved=settings');
    expect(page.text).toContain('The settings for all phones are saved');
    expect(page.text).toContain('after 45 minutes offline');

    const phone = await browser.get('/phones/device_a1');
    expect(phone.text).toContain('data-sim-health-source="account"');
    expect(phone.text).toContain('3 failures in a row, or 40 % of the last 10');
    // Owner b's page still shows the defaults.
    const other = await (await world.signedIn('b')).get('/phones');
    expect(other.text).toContain('after 30 minutes offline');
  });

  it('when the offline delay is 0, then the warning is off', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/phones');
    expect((await browser.post('/phones/settings', form({ offline_alert_minutes: '0' }))).status).toBe(302);
    expect((await browser.get('/phones')).text).toContain('data-offline-alert="0">never');
  });

  it('when a value is not a number or out of bounds, then the form says so and keeps what was typed', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/phones');
    const words = await browser.post('/phones/settings', form({ offline_alert_minutes: 'soon' }));
    expect(words.status).toBe(400);
    expect(words.text).toContain('The offline delay is a number of minutes');
    expect(words.text).toMatch(/name="offline_alert_minutes"[^>]*value="soon"/);
    expect(world.calls.hub.SetFleetSettings).toBeUndefined();

    const tooLong = await browser.post('/phones/settings', form({ offline_alert_minutes: '20000' }));
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('Out of bounds: offline delay (at most 7 days)');
  });

  it('when a phone has its own thresholds, then its page says so, and one button makes it follow the account again', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/phones/device_a1');
    const own = await browser.post('/phones/device_a1/sim-health', {
      consecutive_failures: '9',
      failure_ratio: '50',
      window: '20',
      min_sample: '10',
      cool_down_seconds: '900',
    });
    expect(own.status).toBe(302);
    const page = await browser.get('/phones/device_a1');
    expect(page.text).toContain('data-sim-health-source="phone"');
    expect(page.text).toContain('Use the thresholds for all phones instead');

    expect((await browser.post('/phones/device_a1/sim-health', { follow_account: '1' })).status).toBe(302);
    expect(world.calls.hub.SetSimHealth!.at(-1)).toMatchObject({ clientId: 'client_a', deviceId: 'device_a1', followAccount: true });
    expect((await browser.get('/phones/device_a1')).text).toContain('data-sim-health-source="account"');
  });
});
