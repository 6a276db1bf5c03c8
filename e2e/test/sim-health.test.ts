import fs from 'node:fs';
import path from 'node:path';
import { startMailCatcher, type MailCatcher } from '@smsgw/stack';
import { DashboardSession } from './support/dashboard-session';
import { Receiver, type ReceivedWebhook } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// SIM health and quarantine (issue 38), with simulated phones on the real stack: a SIM that starts
// failing every send is quarantined after the owner's threshold, its messages go out on the
// phone's healthy SIM or on another phone, the owner gets an e-mail and the subscribed endpoint
// `device.degraded`; after the cool-down one probe message goes to the SIM, and once the SIM
// recovers, the probe releases it (`device.recovered`).

const COOL_DOWN_S = 20;

describe('SIM health: quarantine, routing around it, probe and release', () => {
  let system: TestSystem;
  let receiver: Receiver;
  let mail: MailCatcher;

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

  async function send(client: DemoClient, body: Record<string, unknown>, device: DemoDevice): Promise<string> {
    const res = await system.api('/v1/sms/send', client, { headers: { 'X-Device-ID': device.device_id }, body });
    expect(res).toMatchObject({ status: 200 });
    return String(res.body.message_id);
  }

  const status = async (client: DemoClient, id: string) => (await system.api(`/v1/sms/status/${id}`, client)).body;

  /** Waits for the sms.delivered webhook of each message (not the API: the client's 100 requests a minute). */
  const deliveredHooks = (hooks: string, ids: string[], timeoutMs = 60_000) =>
    receiver.waitFor(hooks, ids.length, timeoutMs, (h) => h.body.event === 'sms.delivered' && ids.includes(String(h.body.data.message_id)));

  it('when a SIM fails every send, then it is quarantined after the threshold, its messages go out elsewhere, the owner is told, and a probe releases it once it recovers', async () => {
    const client = await system.createClient();
    const hooks = `/sms-${client.client_id}`;
    const health = `/health-${client.client_id}`;
    const plain = `/plain-${client.client_id}`;
    await system.cli('create-webhook', '--client', client.client_id, '--url', receiver.url(hooks), '--events', 'sms.delivered');
    await system.cli(
      'create-webhook',
      '--client',
      client.client_id,
      '--url',
      receiver.url(health),
      '--events',
      'device.degraded,device.recovered',
    );
    // An endpoint of the specification's kinds sees nothing new.
    await system.cli(
      'create-webhook',
      '--client',
      client.client_id,
      '--url',
      receiver.url(plain),
      '--events',
      'sms.sent,sms.delivered,sms.failed,sms.received,device.connected,device.disconnected',
    );

    // Phone A has two SIMs; SIM 2 fails every send ("generic failure", nothing sent) while the file exists.
    const failing = path.join(system.stack.logDir, `sim-2-fails-${client.client_id}`);
    fs.writeFileSync(failing, '');
    const a = await system.createDevice(client.client_id, 'dual SIM');
    const shown = await system.cli(
      'set-sim-health',
      '--client',
      client.client_id,
      '--device',
      a.device_id,
      '--consecutive-failures',
      '3',
      '--cool-down',
      String(COOL_DOWN_S),
    );
    expect(shown).toMatchObject({ sim_health_settings: { consecutive_failures: 3, failure_ratio: 50, cool_down_seconds: COOL_DOWN_S } });
    const agentA = await system.startAgent(client, a, { extraArgs: ['--sims', '2', '--sim-fail-slot', '2', '--sim-fail-file', failing] });
    const b = await system.createDevice(client.client_id, 'single SIM');
    const agentB = await system.startAgent(client, b);

    // Six messages for A that may move: round robin gives three to SIM 2, which fails them unsent;
    // each goes once to phone B instead. The third failure in a row quarantines SIM 2.
    const first: string[] = [];
    for (let i = 0; i < 6; i++) first.push(await send(client, { to: `+3361100000${i}`, message: `avant ${i}`, failover: true }, a));
    await deliveredHooks(hooks, first);

    const [degraded] = await receiver.waitFor(health, 1, 20_000, (h) => h.body.event === 'device.degraded');
    expect(degraded!.body.data).toMatchObject({
      device_id: a.device_id,
      client_id: client.client_id,
      name: 'dual SIM',
      sim: 2,
      state: 'quarantined',
      reason: 'consecutive_failures',
      recent_results: { generic_failure: 3 },
    });
    const probeAfter = Date.parse(String(degraded!.body.data.probe_after));
    expect(probeAfter).toBeGreaterThan(Date.now() + (COOL_DOWN_S - 15) * 1000);

    const states = await Promise.all(first.map((id) => status(client, id)));
    const byB = states.filter((s) => s.device_id === b.device_id);
    expect(byB).toHaveLength(3);
    for (const s of byB) {
      expect(s.attempts).toMatchObject([
        { device_id: a.device_id, status: 'failed', error: { code: 'DEVICE_ERROR' } },
        { device_id: b.device_id, status: 'delivered' },
      ]);
    }
    expect(states.filter((s) => s.device_id === a.device_id).map((s) => s.sim)).toEqual([1, 1, 1]);
    for (const id of first) expect(agentA.sentCount(id) + agentB.sentCount(id)).toBe(1);

    // The owner's e-mail names the phone and the SIM.
    const alert = await mail.waitFor((m) => m.raw.includes(String(degraded!.body.event_id)), 20_000);
    expect(alert.subject).toContain('dual SIM');
    expect(alert.subject).toContain('SIM 2');

    // While quarantined, every message of A goes out through its SIM 1, none is tried on SIM 2.
    const during: string[] = [];
    for (let i = 0; i < 4; i++) during.push(await send(client, { to: `+3361200000${i}`, message: `pendant ${i}`, failover: true }, a));
    await deliveredHooks(hooks, during);
    for (const id of during)
      expect(await status(client, id)).toMatchObject({ device_id: a.device_id, sim: 1, attempts: [{ status: 'delivered' }] });

    // The phone as the dashboard shows it (the operator tool prints the same): SIM 2 quarantined, why, its results by cause.
    const view = await system.cli('set-sim-health', '--client', client.client_id, '--device', a.device_id);
    expect(view.sim_health).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          slot: 2,
          state: 'quarantined',
          reason: 'consecutive_failures',
          recent: expect.objectContaining({ generic_failure: 3 }),
        }),
      ]),
    );

    // The SIM recovers; after the cool-down the next message goes to it as the probe, and its success releases it.
    fs.rmSync(failing);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, probeAfter - Date.now()) + 500));
    const probe = await send(client, { to: '+33613000000', message: 'sonde', failover: true }, a);
    await deliveredHooks(hooks, [probe]);
    expect(await status(client, probe)).toMatchObject({ device_id: a.device_id, sim: 2 });
    const [recovered] = await receiver.waitFor(health, 1, 20_000, (h) => h.body.event === 'device.recovered');
    expect(recovered!.body.data).toMatchObject({ device_id: a.device_id, sim: 2, state: 'healthy', reason: 'probe' });

    // Released: SIM 2 takes its turn again.
    const after: string[] = [];
    for (let i = 0; i < 2; i++) after.push(await send(client, { to: `+3361400000${i}`, message: `après ${i}`, failover: true }, a));
    await deliveredHooks(hooks, after);
    const sims = await Promise.all(after.map(async (id) => (await status(client, id)).sim));
    expect(sims.sort()).toEqual([1, 2]);

    const kinds = (list: ReceivedWebhook[]) => list.map((h) => String(h.body.event));
    expect(kinds(receiver.at(health))).toEqual(['device.degraded', 'device.recovered']);
    expect(kinds(receiver.at(plain)).filter((k) => !k.startsWith('sms.') && k !== 'device.connected')).toEqual([]);
  }, 240_000);

  it('when the only SIM of a phone is quarantined, then the phone claims nothing, its queue goes to another phone, and the owner sees it and releases it by hand in the dashboard', async () => {
    const email = `sims-${Date.now()}@example.com`;
    const client = await system.admin.createUser(email, 'correct horse battery', 'Owner');
    const session = new DashboardSession(system.stack.dashboardUrl, system.stack.certs.caPem);
    expect((await session.signIn(email, 'correct horse battery')).status).toBe(302);
    const hooks = `/sms-${client.client_id}`;
    const health = `/health-${client.client_id}`;
    await system.cli('create-webhook', '--client', client.client_id, '--url', receiver.url(hooks), '--events', 'sms.delivered');
    await system.cli(
      'create-webhook',
      '--client',
      client.client_id,
      '--url',
      receiver.url(health),
      '--events',
      'device.degraded,device.recovered',
    );

    const s = await system.createDevice(client.client_id, 'blocked SIM');
    // The owner's thresholds from the phone's page: two failures in a row, a long cool-down.
    await session.get(`/phones/${s.device_id}`);
    const refused = await session.post(`/phones/${s.device_id}/sim-health`, {
      consecutive_failures: '2',
      failure_ratio: '50',
      window: '5',
      min_sample: '10',
      cool_down_seconds: '3600',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Out of bounds: min_sample');
    const saved = await session.post(`/phones/${s.device_id}/sim-health`, {
      consecutive_failures: '2',
      failure_ratio: '50',
      window: '20',
      min_sample: '10',
      cool_down_seconds: '3600',
    });
    expect(saved).toMatchObject({ status: 302, location: `/phones/${s.device_id}?saved=health` });
    const agentS = await system.startAgent(client, s, { extraArgs: ['--sim-fail-slot', '1', '--sim-fail-cause', 'limit'] });
    const t = await system.createDevice(client.client_id, 'healthy');
    const agentT = await system.startAgent(client, t);

    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await send(client, { to: `+3362100000${i}`, message: `seule SIM ${i}`, failover: true }, s));
    await deliveredHooks(hooks, ids);
    for (const id of ids) {
      expect(await status(client, id)).toMatchObject({ device_id: t.device_id, status: 'delivered' });
      expect(agentS.sentCount(id) + agentT.sentCount(id)).toBe(1);
    }
    const [degraded] = await receiver.waitFor(health, 1, 20_000, (h) => h.body.event === 'device.degraded');
    expect(degraded!.body.data).toMatchObject({ device_id: s.device_id, sim: 1, reason: 'consecutive_failures' });
    expect(Number((degraded!.body.data.recent_results as Record<string, number>).limit_exceeded)).toBeGreaterThanOrEqual(2);

    // Quarantined, the phone takes nothing: a message queued on it now goes to the other phone.
    const later = await send(client, { to: '+33621000009', message: 'plus tard', failover: true }, s);
    await deliveredHooks(hooks, [later], 40_000);
    expect(await status(client, later)).toMatchObject({
      device_id: t.device_id,
      attempts: [{ device_id: s.device_id, status: 'moved', error: { code: 'SIM_QUARANTINED' } }, { status: 'delivered' }],
    });

    // The phone's page says so: the SIM, why, its results by cause, and the release.
    const quarantined = await session.get(`/phones/${s.device_id}`);
    expect(quarantined.text).toMatch(/data-health-slot="1" data-state="quarantined"/);
    expect(quarantined.text).toContain('too many failures in a row');
    expect(quarantined.text).toMatch(/limit exceeded: \d/);
    expect(quarantined.text).toContain('Release SIM 1');
    expect((await session.get('/phones')).text).toContain('SIM 1 quarantined');
    const released = await session.post(`/phones/${s.device_id}/sims/1/release`, {});
    expect(released).toMatchObject({ status: 302, location: `/phones/${s.device_id}?saved=released` });
    const [recovered] = await receiver.waitFor(health, 1, 20_000, (h) => h.body.event === 'device.recovered');
    expect(recovered!.body.data).toMatchObject({ device_id: s.device_id, sim: 1, state: 'healthy', reason: 'manual' });
    expect((await session.get(`/phones/${s.device_id}`)).text).toMatch(/data-health-slot="1" data-state="healthy"/);
  }, 240_000);
});
