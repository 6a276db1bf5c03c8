import http from 'node:http';
import { startMailCatcher, type MailCatcher } from '@smsgw/stack';
import { DashboardSession } from './support/dashboard-session';
import { eventually } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem } from './support/system';

/**
 * Issue 38's phone telemetry (protocol 6) with simulated phones: what a phone reports shows on its
 * page in the dashboard and in the hub's metrics; a phone low on battery and unplugged warns its
 * owner once, by e-mail (the stack's mail catcher) and by `device.battery_low` to the endpoint
 * subscribed to it; a pushed setting shows as applied.
 */
describe('phone telemetry and its warnings, end to end', () => {
  let system: TestSystem;
  let mail: MailCatcher;
  let receiver: Receiver;

  beforeAll(async () => {
    mail = await startMailCatcher();
    system = await TestSystem.start({ SMTP_URL: mail.url });
    receiver = await Receiver.start(system.stack.certs);
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
    await mail?.stop();
  });

  function metricsText(url: string): Promise<string> {
    return new Promise((resolve, reject) => {
      http
        .get(url, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
  }

  async function signedIn() {
    const email = `tel${Date.now()}@example.com`;
    const password = 'correct horse battery';
    const client = await system.admin.createUser(email, password, 'Boutique');
    const session = new DashboardSession(system.stack.dashboardUrl, system.stack.certs.caPem);
    expect((await session.signIn(email, password)).status).toBe(302);
    return { client, session, email };
  }

  it('when a phone reports its battery and signal, then its page shows them with the day chart, the metrics count it, and its settings show as applied', async () => {
    const { client, session } = await signedIn();
    const device = await system.createDevice(client.client_id, 'telemetry phone');
    await system.startAgent(client, device, { extraArgs: ['--sims', '2', '--sim-battery', '64'] });

    const page = await eventually(
      async () => {
        const p = await session.get(`/phones/${device.device_id}`);
        return p.text.includes('data-battery="64"') && p.text.includes('data-settings="applied"') ? p : undefined;
      },
      20_000,
      'the phone page with its telemetry and its settings applied',
      500,
    );
    expect(page.text).toContain('64 %, charging');
    expect(page.text).toMatch(/data-sim-signal="2">SIM 2: lte, signal 4\/4/);
    expect(page.text).toContain('data-risks="none"');
    expect(page.text).toContain('<svg');
    expect(page.text).toContain('Battery over the last day: 1 samples');

    const metrics = await eventually(
      async () => {
        const text = await metricsText(system.stack.metricsUrls['device-hub']);
        return /smsgw_hub_phone_battery\{[^}]*band="high"[^}]*\} [1-9]/.test(text) ? text : undefined;
      },
      20_000,
      'the hub metric of phone batteries',
      500,
    );
    expect(metrics).toMatch(/smsgw_hub_phone_sims\{[^}]*network="lte"[^}]*\} [2-9]/);
    // Bounded labels: no device id in any of them.
    expect(metrics).not.toContain(device.device_id);

    // A change of the limits is pushed to the phone, which applies it again.
    const before = page.text.match(/data-settings="applied">[^<]*<time datetime="([^"]+)"/)![1]!;
    expect((await session.post(`/phones/${device.device_id}/limits`, { per_minute: '7' })).status).toBe(302);
    await eventually(
      async () => {
        const p = await session.get(`/phones/${device.device_id}`);
        const at = p.text.match(/data-settings="applied">[^<]*<time datetime="([^"]+)"/)?.[1];
        return at && at > before ? true : undefined;
      },
      20_000,
      'the new limits applied',
      500,
    );
  }, 90_000);

  it('when a phone reports a low battery while unplugged, then its owner gets one e-mail and the subscribed endpoint one device.battery_low, however many samples follow', async () => {
    const client = await system.createClient();
    const hooks = `/${client.client_id}`;
    const other = `/${client.client_id}/not-subscribed`;
    await system.cli('create-webhook', '--client', client.client_id, '--url', receiver.url(hooks), '--events', 'device.battery_low');
    await system.cli('create-webhook', '--client', client.client_id, '--url', receiver.url(other), '--events', 'device.connected');
    const device = await system.createDevice(client.client_id, 'drained phone');
    // 16 % draining 30 points a minute, checked every 200 ms: it crosses 15 % within seconds, then goes on down.
    await system.startAgent(client, device, {
      extraArgs: ['--sim-battery', '16', '--sim-unplugged', '--sim-battery-drain', '30', '--telemetry-sample-ms', '200'],
    });

    const [event] = await receiver.waitFor(hooks, 1, 30_000);
    const body = event!.body as { event: string; event_id: string; data: Record<string, unknown> };
    expect(body).toMatchObject({
      event: 'device.battery_low',
      data: { device_id: device.device_id, client_id: client.client_id, name: 'drained phone', charging: false },
    });
    expect(body.data.battery).toBeLessThanOrEqual(15);
    // The body is quoted-printable: its soft line breaks may fall inside the id.
    const decoded = (raw: string) => raw.replace(/=\r?\n/g, '');
    const warning = await mail.waitFor((m) => decoded(m.raw).includes(body.event_id), 20_000);
    expect(warning.subject).toMatch(/^Phone drained phone: battery \d+ %, not charging$/);

    // More samples come (the battery keeps draining, 10 points a sample at most): still one of each.
    await new Promise((r) => setTimeout(r, 6000));
    expect(receiver.at(hooks)).toHaveLength(1);
    expect(mail.mails.filter((m) => decoded(m.raw).includes(device.device_id))).toHaveLength(1);
    // The endpoint that did not name the kind gets none.
    expect(receiver.at(other).filter((r) => (r.body as { event: string }).event === 'device.battery_low')).toHaveLength(0);
  }, 90_000);
});
