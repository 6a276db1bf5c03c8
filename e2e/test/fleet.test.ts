import path from 'node:path';
import type { AgentProcess } from './support/agent';
import { eventually, request } from './support/http';
import { Receiver, type ReceivedWebhook } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// The fleet delivers, not the phone (issue 23): expiry, failover to another phone, a retry after
// a phone-side failure, removed phones, per-phone limits and sending hours, each with real phones
// (the agent's simulator driver) on the real hub, and a hub killed in the middle of a failover.

const FAILOVER_DELAY_S = 10;

describe('a fleet of phones that never strands a message', () => {
  let system: TestSystem;
  let receiver: Receiver;

  beforeAll(async () => {
    system = await TestSystem.start({ HUB_FAILOVER_SWEEP_MS: '500' });
    receiver = await Receiver.start(system.stack.certs);
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
  });

  /** A client of its own (its own rate limit and phones), with a short failover delay and every sms.* webhook. */
  async function fleetClient(): Promise<{ client: DemoClient; hooks: string }> {
    const client = await system.createClient();
    await system.cli('set-fleet', '--client', client.client_id, '--failover-delay', String(FAILOVER_DELAY_S));
    const hooks = `/${client.client_id}`;
    await system.cli(
      'create-webhook',
      '--client',
      client.client_id,
      '--url',
      receiver.url(hooks),
      '--events',
      'sms.sent,sms.delivered,sms.failed',
    );
    return { client, hooks };
  }

  async function phone(client: DemoClient, name: string, limits: string[] = [], extraArgs: string[] = []) {
    const device = await system.createDevice(client.client_id, name);
    if (limits.length > 0) await system.cli('set-device-limits', '--client', client.client_id, '--device', device.device_id, ...limits);
    const agent = await system.startAgent(client, device, { extraArgs });
    return { device, agent };
  }

  async function send(client: DemoClient, body: Record<string, unknown>, device?: DemoDevice): Promise<Record<string, unknown>> {
    const res = await system.api('/v1/sms/send', client, { headers: device ? { 'X-Device-ID': device.device_id } : {}, body });
    expect(res).toMatchObject({ status: 200 });
    return res.body;
  }

  /** The status response once `accept` says so, asked once a second (the client's 100 requests a minute). */
  function statusWhen(client: DemoClient, id: string, accept: (s: Record<string, unknown>) => boolean, timeoutMs: number) {
    return eventually(
      async () => {
        const res = await system.api(`/v1/sms/status/${id}`, client);
        return res.status === 200 && accept(res.body) ? res.body : undefined;
      },
      timeoutMs,
      `${id} as expected`,
      1000,
    );
  }

  const hooksOf = (path: string, id: string, event?: string): ReceivedWebhook[] =>
    receiver.received.filter((h) => h.path === path && h.body.data.message_id === id && (!event || h.body.event === event));

  const sentBy = (agents: AgentProcess[], id: string) => agents.reduce((n, a) => n + a.sentCount(id), 0);

  it('when a message with a ttl waits on an offline phone, or in the outbox of a phone that went silent, then it ends failed EXPIRED on time with its webhook, and no phone sends it when it returns', async () => {
    const { client, hooks } = await fleetClient();
    const { device, agent } = await phone(client, 'away');
    await agent.kill();
    await system.waitOnline(client, device, false);
    // A phone that acknowledges the SMS (it is in its outbox), then goes silent before sending it.
    const silentDir = path.join(system.stack.logDir, 'silent-phone');
    const silentDevice = await system.createDevice(client.client_id, 'silent');
    const silent = await system.startAgent(client, silentDevice, { dataDir: silentDir, extraArgs: ['--sim-send-delay-ms', '600000'] });

    // A scheduled send may name an offline phone; its ttl runs from its scheduled time.
    const scheduledAt = new Date(Date.now() + 2000).toISOString();
    const sent = await send(client, { to: '+33612345678', message: 'too late', scheduled_at: scheduledAt, ttl: 60 }, device);
    const id = String(sent.message_id);
    expect(Date.parse(String(sent.expires_at))).toBe(Date.parse(scheduledAt) + 60_000);
    const inOutbox = await send(client, { to: '+33612345678', message: 'acknowledged, then silence', ttl: 60 }, silentDevice);
    const outboxId = String(inOutbox.message_id);
    await eventually(async () => (silent.logs().includes(outboxId) ? true : undefined), 15_000, 'the phone to acknowledge the SMS');
    await silent.kill('SIGKILL');

    const failed = await statusWhen(client, id, (s) => s.status === 'failed', 90_000);
    expect(failed).toMatchObject({ device_id: device.device_id, error: { code: 'EXPIRED' } });
    // On time: the expiry sweep runs every few seconds.
    expect(Date.parse(String(failed.failed_at)) - Date.parse(scheduledAt)).toBeLessThan(60_000 + 15_000);
    await eventually(async () => (hooksOf(hooks, id, 'sms.failed').length === 1 ? true : undefined), 15_000, 'sms.failed');
    expect(hooksOf(hooks, id, 'sms.failed')[0]!.body.data).toMatchObject({ error: { code: 'EXPIRED' } });

    // Both phones come back after the expiry: the first has nothing to send, the second drops its entry and reports it.
    const back = await system.startAgent(client, device);
    const silentBack = await system.startAgent(client, silentDevice, { dataDir: silentDir });
    const dropped = await statusWhen(client, outboxId, (s) => s.status === 'failed', 20_000);
    expect(dropped).toMatchObject({ device_id: silentDevice.device_id, error: { code: 'EXPIRED' } });
    await eventually(async () => (hooksOf(hooks, outboxId, 'sms.failed').length === 1 ? true : undefined), 15_000, 'sms.failed');
    await new Promise((r) => setTimeout(r, 2000));
    expect(sentBy([agent, back, silent, silentBack], id)).toBe(0);
    expect(sentBy([agent, back, silent, silentBack], outboxId)).toBe(0);
  }, 150_000);

  it('when the phone of an automatic choice goes offline, then its queued message goes out once on another phone, a pinned one waits, and one with failover true moves', async () => {
    const { client, hooks } = await fleetClient();
    // One SMS a minute: the first goes out, the others wait on the phone.
    const a = await phone(client, 'a', ['--per-minute', '1']);
    const first = await send(client, { to: '+33612345678', message: 'takes the room' });
    expect(first.device_id).toBe(a.device.device_id);
    await statusWhen(client, String(first.message_id), (s) => s.status === 'delivered', 20_000);

    const auto = String((await send(client, { to: '+33612345678', message: 'moves' })).message_id);
    const pinned = String((await send(client, { to: '+33612345678', message: 'stays' }, a.device)).message_id);
    const willing = String((await send(client, { to: '+33612345678', message: 'may move', failover: true }, a.device)).message_id);
    await a.agent.kill('SIGKILL');
    const wentOffline = Date.now();
    const b = await phone(client, 'b');

    for (const id of [auto, willing]) {
      const done = await statusWhen(client, id, (s) => s.status === 'delivered', 60_000);
      expect(done.device_id).toBe(b.device.device_id);
      expect(done.attempts).toMatchObject([
        { device_id: a.device.device_id, status: 'moved', error: { code: 'DEVICE_OFFLINE' } },
        { device_id: b.device.device_id, status: 'delivered', error: null },
      ]);
      expect(sentBy([a.agent, b.agent], id)).toBe(1);
      // The webhook follows the status: the event goes through the webhook service after the report is stored.
      await eventually(async () => (hooksOf(hooks, id, 'sms.delivered').length >= 1 ? true : undefined), 15_000, 'sms.delivered');
    }
    // Not before the client's failover delay.
    const moved = await system.api(`/v1/sms/status/${auto}`, client);
    expect(Date.parse(String(moved.body.sent_at)) - wentOffline).toBeGreaterThanOrEqual(FAILOVER_DELAY_S * 1000 - 1000);

    const waiting = await statusWhen(client, pinned, (s) => s.status === 'queued', 5000);
    expect(waiting).toMatchObject({ device_id: a.device.device_id, attempts: [{ device_id: a.device.device_id, status: 'queued' }] });
    expect(sentBy([a.agent, b.agent], pinned)).toBe(0);
    for (const id of [auto, willing]) expect(hooksOf(hooks, id, 'sms.delivered')).toHaveLength(1);
  }, 120_000);

  it('when a phone fails an SMS with its radio off, then another phone sends it and the attempts list shows both; sms.failed only when the last attempt fails', async () => {
    const { client, hooks } = await fleetClient();
    const radioOff = await phone(client, 'radio off', [], ['--radio-off']);
    const good = await phone(client, 'good');

    const id = String((await send(client, { to: '+33612345678', message: 'retried', failover: true }, radioOff.device)).message_id);
    const done = await statusWhen(client, id, (s) => s.status === 'delivered', 30_000);
    expect(done.device_id).toBe(good.device.device_id);
    expect(done.attempts).toMatchObject([
      { device_id: radioOff.device.device_id, status: 'failed', error: { code: 'OUT_OF_NETWORK' } },
      { device_id: good.device.device_id, status: 'delivered', error: null },
    ]);
    expect(good.agent.sentCount(id)).toBe(1);
    await eventually(async () => (hooksOf(hooks, id, 'sms.delivered').length === 1 ? true : undefined), 15_000, 'sms.delivered');
    expect(hooksOf(hooks, id, 'sms.failed')).toHaveLength(0);

    // With no other phone online, the failure is the last attempt.
    await good.agent.kill();
    await system.waitOnline(client, good.device, false);
    const alone = String((await send(client, { to: '+33612345678', message: 'fails', failover: true }, radioOff.device)).message_id);
    const failed = await statusWhen(client, alone, (s) => s.status === 'failed', 30_000);
    expect(failed.attempts).toMatchObject([{ device_id: radioOff.device.device_id, status: 'failed', error: { code: 'OUT_OF_NETWORK' } }]);
    await eventually(async () => (hooksOf(hooks, alone, 'sms.failed').length === 1 ? true : undefined), 15_000, 'sms.failed');
  }, 120_000);

  it('when a phone is removed, then its unpinned messages move, its pinned ones fail DEVICE_REMOVED with their webhooks, and no gateway replica accepts a send for it', async () => {
    const { client, hooks } = await fleetClient();
    const a = await phone(client, 'removed', ['--per-minute', '1']);
    const b = await phone(client, 'kept');
    const secondGateway = await system.stack.addGateway();
    const viaSecond = (body: Record<string, unknown>) =>
      request(`${secondGateway}/v1/sms/send`, system.stack.certs.caPem, {
        headers: { 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id, 'X-Device-ID': a.device.device_id },
        body,
      });
    // The phone to remove uses its minute's room, so what follows waits on it.
    const warmA = String((await send(client, { to: '+33612345678', message: 'room a' }, a.device)).message_id);
    await statusWhen(client, warmA, (s) => s.status === 'delivered', 20_000);
    // The second replica knows the phone (its ownership cache holds it) before the removal.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const cached = await viaSecond({ to: '+33612345678', message: 'scheduled on a', scheduled_at: later });
    expect(cached.status).toBe(200);
    const unpinned = String((await send(client, { to: '+33612345678', message: 'moves', failover: true }, a.device)).message_id);
    const pinned = String((await send(client, { to: '+33612345678', message: 'fails' }, a.device)).message_id);

    expect(await system.cli('remove-device', '--client', client.client_id, '--device', a.device.device_id)).toMatchObject({
      removed: true,
    });

    for (const res of [
      await viaSecond({ to: '+33612345678', message: 'after' }),
      await viaSecond({ to: '+33612345678', message: 'later', scheduled_at: later }),
    ]) {
      expect(res).toMatchObject({ status: 404, body: { success: false, error: { code: 'INVALID_DEVICE_ID' } } });
    }
    const failed = await statusWhen(client, pinned, (s) => s.status === 'failed', 10_000);
    expect(failed).toMatchObject({ error: { code: 'DEVICE_REMOVED' } });
    for (const id of [pinned, String(cached.body.message_id)]) {
      await eventually(async () => (hooksOf(hooks, id, 'sms.failed').length === 1 ? true : undefined), 15_000, `sms.failed of ${id}`);
    }
    const moved = await statusWhen(client, unpinned, (s) => s.status === 'delivered', 20_000);
    expect(moved).toMatchObject({
      device_id: b.device.device_id,
      attempts: [{ device_id: a.device.device_id, status: 'moved', error: { code: 'DEVICE_REMOVED' } }, { status: 'delivered' }],
    });
    expect(sentBy([a.agent, b.agent], unpinned)).toBe(1);
  }, 150_000);

  it('when a phone may send 3 messages a minute, then it sends 3 and the others wait', async () => {
    const { client } = await fleetClient();
    const { device, agent } = await phone(client, 'three a minute', ['--per-minute', '3']);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(String((await send(client, { to: '+33612345678', message: `n${i}` }, device)).message_id));
    await eventually(async () => (ids.filter((id) => agent.sentCount(id) === 1).length === 3 ? true : undefined), 20_000, '3 sent');
    await new Promise((r) => setTimeout(r, 5000));
    expect(ids.map((id) => agent.sentCount(id))).toEqual([1, 1, 1, 0, 0]);
    const list = await system.api(`/v1/sms/status/${ids[4]}`, client);
    expect(list.body.status).toBe('queued');
  }, 60_000);

  it('when a phone is outside its sending hours, then it sends nothing until they open', async () => {
    const { client } = await fleetClient();
    // Hours that open at the next minute of the phone's clock (UTC here), for two hours.
    const opens = new Date(Math.ceil((Date.now() + 1000) / 60_000) * 60_000);
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    const closes = new Date(opens.getTime() + 2 * 3_600_000);
    const { device, agent } = await phone(client, 'office hours', ['--hours', `${hhmm(opens)}-${hhmm(closes)}`, '--time-zone', 'UTC']);
    const id = String((await send(client, { to: '+33612345678', message: 'when open' }, device)).message_id);
    await new Promise((r) => setTimeout(r, Math.min(3000, opens.getTime() - Date.now() - 500)));
    expect(agent.sentCount(id)).toBe(0);
    const done = await statusWhen(client, id, (s) => s.status === 'delivered', 90_000);
    expect(Date.parse(String(done.sent_at))).toBeGreaterThanOrEqual(opens.getTime() - 1000);
    expect(agent.sentCount(id)).toBe(1);
  }, 120_000);

  it('when the hub is killed during a failover, then every message still goes out exactly once', async () => {
    const { client } = await fleetClient();
    const a = await phone(client, 'leaving', ['--per-minute', '1']);
    const warm = String((await send(client, { to: '+33612345678', message: 'room' })).message_id);
    await statusWhen(client, warm, (s) => s.status === 'delivered', 20_000);
    const recipients = Array.from({ length: 60 }, (_, i) => `+336${String(10_000_000 + i)}`);
    const bulk = await system.api('/v1/sms/send-bulk', client, { body: { recipients, message: 'failover' } });
    expect(bulk.status).toBe(200);
    const ids = (bulk.body.messages as { message_id: string }[]).map((m) => m.message_id);
    await a.agent.kill('SIGKILL');
    // About 4 SMS a second: the failover takes some 15 s, and the hub dies in the middle of it.
    const b = await phone(client, 'staying', ['--min-interval-ms', '200', '--max-interval-ms', '300']);
    // Kill the hub once the first moved message went out on the other phone.
    await eventually(async () => (ids.some((id) => b.agent.sentCount(id) > 0) ? true : undefined), 60_000, 'the failover to begin');
    await system.stack.services['device-hub'].stop('SIGKILL');
    await system.stack.services['device-hub'].start();
    await system.waitOnline(client, b.device, true, 45_000);
    await eventually(
      async () => (ids.every((id) => b.agent.sentCount(id) >= 1) ? true : undefined),
      90_000,
      'every message sent by the remaining phone',
      1000,
    );
    expect(ids.map((id) => sentBy([a.agent, b.agent], id))).toEqual(ids.map(() => 1));
  }, 200_000);
});
