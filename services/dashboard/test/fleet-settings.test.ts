import { PASSWORD, REFUSED_DELAY, startFleetWorld, type FleetWorld } from './support/fleet-world';

const WRONG_PASSWORD = 'Your password is wrong: nothing was changed.';

/**
 * The settings page's Fleet form, through real HTTP, with a stand-in account service: what it
 * shows, what it sends to UpdateClient, and what it refuses without sending anything.
 */
describe("the settings page's fleet form", () => {
  let world: FleetWorld;

  beforeAll(async () => {
    world = await startFleetWorld();
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
  });

  beforeEach(() => {
    world.clients.get('client_a')!.defaultTtlSeconds = 7200;
    world.clients.get('client_a')!.failoverDelaySeconds = 60;
    world.clearCalls();
  });

  const fleetUpdates = () => (world.calls.account.UpdateClient ?? []) as Record<string, unknown>[];

  it('when the settings are opened, then the fleet form shows the default ttl and the failover delay, in seconds and in words', async () => {
    const browser = await world.signedIn('a');

    const res = await browser.get('/settings');

    expect(res.status).toBe(200);
    expect(res.text).toContain('action="/settings/fleet"');
    expect(res.text).toMatch(/name="default_ttl"[^>]*value="7200"/);
    expect(res.text).toMatch(/name="failover_delay"[^>]*value="60"/);
    expect(res.text).toContain('Now: 2 hours.');
    expect(res.text).toContain('Now: 1 minute.');
  });

  it('when the form is saved with the password, then UpdateClient gets set_fleet and both values, and the page shows them', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/settings');

    const res = await browser.post('/settings/fleet', { default_ttl: '5400', failover_delay: '120', password: PASSWORD });

    expect(res.status).toBe(200);
    expect(res.text).toContain('The fleet settings are saved.');
    expect(fleetUpdates()).toEqual([
      expect.objectContaining({
        clientId: 'client_a',
        setFleet: true,
        defaultTtlSeconds: 5400,
        failoverDelaySeconds: 120,
        email: '',
        name: '',
      }),
    ]);
    expect(res.text).toContain('Now: 1 hour 30 minutes.');
    expect(res.text).toContain('Now: 2 minutes.');
  });

  it('when the SIM rule is set to a default SIM, then UpdateClient gets set_sim_rule with the slot and the page shows it; an unknown rule or slot 9 is refused at its field without a call', async () => {
    const browser = await world.signedIn('a');
    const before = await browser.get('/settings');
    expect(before.text).toMatch(/name="sim_rule" value="round_robin" checked/);
    expect(before.text).toContain('Now: round robin.');

    const saved = await browser.post('/settings/fleet', {
      default_ttl: '7200',
      failover_delay: '60',
      sim_rule: 'default',
      default_sim: '2',
      password: PASSWORD,
    });
    const refused = [
      await browser.post('/settings/fleet', {
        default_ttl: '',
        failover_delay: '',
        sim_rule: 'random',
        default_sim: '1',
        password: PASSWORD,
      }),
      await browser.post('/settings/fleet', {
        default_ttl: '',
        failover_delay: '',
        sim_rule: 'default',
        default_sim: '9',
        password: PASSWORD,
      }),
    ];

    expect(fleetUpdates()).toEqual([
      expect.objectContaining({ clientId: 'client_a', setSimRule: true, simRule: 'default', defaultSim: 2 }),
    ]);
    expect(saved.text).toContain('Now: the default SIM, slot 2.');
    expect(saved.text).toMatch(/name="sim_rule" value="default" checked/);
    expect(refused.map((r) => r.status)).toEqual([400, 400]);
    expect(refused[0]!.text).toContain('The SIM rule is either round robin or a default SIM.');
    expect(refused[1]!.text).toContain('The default SIM is a slot from 1 to 8.');
    expect(refused[1]!.text).toMatch(/name="default_sim"[^>]*value="9"[^>]*aria-invalid="true"/);
    Object.assign(world.clients.get('client_a')!, { simRule: 'round_robin', defaultSim: 1 });
  });

  it('when the ttl is left empty or 0, then the client has no default ttl; an empty delay is the default 60 s', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/settings');

    await browser.post('/settings/fleet', { default_ttl: '', failover_delay: '', password: PASSWORD });
    const zero = await browser.post('/settings/fleet', { default_ttl: '0', failover_delay: '90', password: PASSWORD });

    expect(fleetUpdates().map((r) => [r.defaultTtlSeconds, r.failoverDelaySeconds])).toEqual([
      [0, 60],
      [0, 90],
    ]);
    expect(zero.text).toContain('Now: none');
    expect(zero.text).toMatch(/name="default_ttl"[^>]*value=""/);
  });

  it('when a value is out of its bounds or not a number, then the page says why, gives back what was typed, and nothing is sent nor the password checked', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/settings');
    const signInsBefore = (world.calls.account.SignIn ?? []).length;

    const low = await browser.post('/settings/fleet', { default_ttl: '30', failover_delay: '5', password: PASSWORD });
    const high = await browser.post('/settings/fleet', { default_ttl: '604801', failover_delay: '86401', password: PASSWORD });
    const words = await browser.post('/settings/fleet', { default_ttl: '1h', failover_delay: '-10', password: PASSWORD });

    for (const res of [low, high, words]) {
      expect(res.status).toBe(400);
      expect(res.text).toContain('The default time to live is a whole number of seconds from 60 (1 minute) to 604800 (7 days)');
      expect(res.text).toContain('The failover delay is a whole number of seconds from 10 to 86400 (1 day).');
    }
    expect(low.text).toMatch(/name="default_ttl"[^>]*value="30"[^>]*aria-invalid="true"/);
    expect(words.text).toMatch(/name="default_ttl"[^>]*value="1h"/);
    expect(fleetUpdates()).toEqual([]);
    expect((world.calls.account.SignIn ?? []).length).toBe(signInsBefore);
    expect(world.clients.get('client_a')!.defaultTtlSeconds).toBe(7200);
  });

  it('when the password is wrong or missing, then nothing is changed, as for the other settings forms', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/settings');

    const wrong = await browser.post('/settings/fleet', { default_ttl: '3600', failover_delay: '60', password: 'not the password' });
    const missing = await browser.post('/settings/fleet', { default_ttl: '3600', failover_delay: '60' });

    expect(wrong.text).toContain(WRONG_PASSWORD);
    expect(missing.text).toContain(WRONG_PASSWORD);
    expect(wrong.text).toMatch(/name="default_ttl"[^>]*value="3600"/);
    expect(fleetUpdates()).toEqual([]);
  });

  it('when the form comes without its CSRF token, then it is refused with 403 and nothing is sent', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/settings');

    const forged = await browser.post('/settings/fleet', {
      _csrf: 'forged',
      default_ttl: '3600',
      failover_delay: '60',
      password: PASSWORD,
    });

    expect(forged.status).toBe(403);
    expect(fleetUpdates()).toEqual([]);
  });

  it('when the account service refuses the values, then its reason is shown in the page and the form keeps what was typed', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/settings');

    const res = await browser.post('/settings/fleet', { default_ttl: '3600', failover_delay: String(REFUSED_DELAY), password: PASSWORD });

    expect(res.status).toBe(400);
    expect(res.text).toContain('Délai refusé par le service.');
    expect(res.text).toMatch(new RegExp(`name="failover_delay"[^>]*value="${REFUSED_DELAY}"`));
    expect(world.clients.get('client_a')!.failoverDelaySeconds).toBe(60);
  });
});
