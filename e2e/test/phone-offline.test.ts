import { startMailCatcher, type MailCatcher } from '@smsgw/stack';
import { DashboardSession } from './support/dashboard-session';
import { eventually } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem, type DemoClient } from './support/system';

/**
 * Issue 38's offline warning with simulated phones, for an account made as an owner makes one:
 * signed up in the dashboard, its address confirmed with the mailed link. The owner sets the delay
 * for all phones in the dashboard (a fraction of a minute here); a phone whose agent stops warns
 * once, by e-mail and by `device.offline` to the endpoint subscribed to it, however long it stays
 * away; back online and gone again, it warns again. An account with the warning off gets nothing.
 */
describe('the offline warning, end to end', () => {
  let system: TestSystem;
  let mail: MailCatcher;
  let receiver: Receiver;

  beforeAll(async () => {
    mail = await startMailCatcher();
    // The hubs look for phones offline every half second (every minute by default).
    system = await TestSystem.start({ SMTP_URL: mail.url, HUB_OFFLINE_ALERT_SWEEP_MS: '500', DASHBOARD_SIGNUP_MAX_PER_ADDRESS: '20' });
    receiver = await Receiver.start(system.stack.certs);
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
    await mail?.stop();
  });

  // The body is quoted-printable: its soft line breaks may fall inside an id or a link.
  const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

  /** An owner who signed up in the dashboard and confirmed the address with the mailed link. */
  async function signedUpOwner(tag: string): Promise<{ session: DashboardSession; client: DemoClient; email: string }> {
    const email = `${tag}${Date.now()}@example.com`;
    const session = new DashboardSession(system.stack.dashboardUrl, system.stack.certs.caPem);
    await session.get('/signup');
    expect((await session.post('/signup', { email, name: 'Corner shop', password: 'correct horse battery' })).location).toBe(
      '/keys?welcome=1',
    );
    const clientId = /<code[^>]*>(client_\d+)<\/code>/.exec((await session.get('/keys')).text)![1]!;
    const link = await mail.waitFor((m) => m.to.includes(email) && decoded(m.raw).includes('/verify-email?token='), 20_000);
    const token = /\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(decoded(link.raw))![1]!;
    await session.get(`/verify-email?token=${token}`);
    expect((await session.post('/verify-email', { token })).text).toContain('Your address is confirmed');
    return { session, client: { client_id: clientId, live_api_key: '', test_api_key: '', signing_secret: '' }, email };
  }

  const phoneState = async (session: DashboardSession, deviceId: string) => {
    const page = await session.get('/phones');
    return new RegExp(`data-device="${deviceId}"[\\s\\S]*?data-state>(\\w+)<`).exec(page.text)?.[1];
  };

  it("when a phone stays offline past the owner's delay, then the owner gets one e-mail and the subscribed endpoint one device.offline per offline spell", async () => {
    const { session, client, email } = await signedUpOwner('offline');
    const hooks = `/offline-${client.client_id}`;
    const plain = `/plain-${client.client_id}`;
    await system.cli('create-webhook', '--client', client.client_id, '--url', receiver.url(hooks), '--events', 'device.offline');
    await system.cli('create-webhook', '--client', client.client_id, '--url', receiver.url(plain), '--events', 'device.disconnected');

    // 0.05 minutes: 3 seconds.
    await session.get('/phones');
    expect(
      (
        await session.post('/phones/settings', {
          offline_alert_minutes: '0.05',
          consecutive_failures: '5',
          failure_ratio: '50',
          window: '20',
          min_sample: '10',
          cool_down_seconds: '900',
        })
      ).location,
    ).toBe('/phones?saved=settings');
    expect((await session.get('/phones')).text).toContain('data-offline-alert="3"');

    const device = await system.createDevice(client.client_id, 'shop phone');
    const agent = await system.startAgent(client, device, { waitOnline: false });
    await eventually(
      async () => ((await phoneState(session, device.device_id)) === 'online' ? true : undefined),
      20_000,
      'the phone online',
      500,
    );
    // Online for longer than the delay: no warning.
    await new Promise((r) => setTimeout(r, 4000));
    expect(receiver.at(hooks)).toHaveLength(0);

    await agent.kill();
    const [event] = await receiver.waitFor(hooks, 1, 30_000);
    const body = event!.body as { event: string; event_id: string; data: Record<string, unknown> };
    expect(body).toMatchObject({
      event: 'device.offline',
      data: { device_id: device.device_id, client_id: client.client_id, name: 'shop phone', threshold_seconds: 3 },
    });
    const warning = await mail.waitFor((m) => decoded(m.raw).includes(body.event_id), 20_000);
    expect(warning.to).toContain(email);
    expect(warning.subject).toBe('Phone shop phone: offline for more than 3 s');

    // Still offline several passes later: still one of each.
    await new Promise((r) => setTimeout(r, 4000));
    expect(receiver.at(hooks)).toHaveLength(1);
    expect(mail.mails.filter((m) => decoded(m.raw).includes(`Phone: ${device.device_id}`))).toHaveLength(1);
    // The endpoint that did not name the kind gets none.
    expect(receiver.at(plain).filter((r) => (r.body as { event: string }).event === 'device.offline')).toHaveLength(0);

    // Back, then gone again: a new spell, a new warning.
    const again = await system.startAgent(client, device, { waitOnline: false });
    await eventually(
      async () => ((await phoneState(session, device.device_id)) === 'online' ? true : undefined),
      20_000,
      'the phone back',
      500,
    );
    await again.kill();
    await receiver.waitFor(hooks, 2, 30_000);
    await mail.waitFor((m) => decoded(m.raw).includes(`Phone: ${device.device_id}`) && !decoded(m.raw).includes(body.event_id), 20_000);
  }, 150_000);

  it('when the owner turned the warning off, then a phone offline past any delay warns nobody', async () => {
    const { session, client } = await signedUpOwner('nowarning');
    const hooks = `/off-${client.client_id}`;
    await system.cli(
      'create-webhook',
      '--client',
      client.client_id,
      '--url',
      receiver.url(hooks),
      '--events',
      'device.offline,device.disconnected',
    );
    await session.get('/phones');
    expect(
      (
        await session.post('/phones/settings', {
          offline_alert_minutes: '0',
          consecutive_failures: '5',
          failure_ratio: '50',
          window: '20',
          min_sample: '10',
          cool_down_seconds: '900',
        })
      ).status,
    ).toBe(302);
    const device = await system.createDevice(client.client_id, 'quiet phone');
    const agent = await system.startAgent(client, device, { waitOnline: false });
    await eventually(
      async () => ((await phoneState(session, device.device_id)) === 'online' ? true : undefined),
      20_000,
      'the phone online',
      500,
    );
    await agent.kill();
    // device.disconnected arrives; device.offline never does.
    await receiver.waitFor(hooks, 1, 20_000);
    await new Promise((r) => setTimeout(r, 5000));
    expect(receiver.at(hooks).map((r) => (r.body as { event: string }).event)).toEqual(['device.disconnected']);
  }, 90_000);
});
