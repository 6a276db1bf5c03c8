import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { promisify } from 'node:util';
import { openEnvelope } from '@smsgw/client';
import { REPO_ROOT } from '@smsgw/stack';
import { eventually } from './support/http';
import { JavaAgent } from './support/java-agent';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

/**
 * The native Android app's core (android-agent/android, plain Java) against the real device-hub:
 * pairing by the dashboard's QR URL and by password, then SMS received, acknowledged, handed to a
 * stand-in SmsManager and reported from Android's sent and delivery reports as the phone would,
 * through a dropped connection, a hub restart and a crash of the app, without an SMS sent twice
 * or a report lost. What only a real phone shows is listed in android-agent/android/README.md.
 */
describe('the Android app against the device-hub', () => {
  let system: TestSystem;
  let client: DemoClient;
  const agents: JavaAgent[] = [];

  beforeAll(async () => {
    system = await TestSystem.start();
    client = await system.createClient();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.kill()));
    await system?.stop();
  });

  async function startAgent(name: string, bootId = 'boot-1'): Promise<JavaAgent> {
    const agent = new JavaAgent(
      path.join(system.stack.logDir, `android-${name}`),
      system.stack.certs.caCertFile,
      path.join(system.stack.logDir, `android-${name}.log`),
      bootId,
    );
    agents.push(agent);
    return agent.start();
  }

  async function pairedAgent(name: string): Promise<{ agent: JavaAgent; device: DemoDevice }> {
    const device = await system.createDevice(client.client_id, name);
    const agent = await startAgent(name);
    agent.command({ cmd: 'pair_url', url: device.pairing_url });
    await agent.waitFor((e) => e.event === 'paired');
    agent.command({ cmd: 'start' });
    await system.waitOnline(client, device);
    return { agent, device };
  }

  async function send(device: DemoDevice, message: string, to = '+33612345678'): Promise<string> {
    const res = await system.api('/v1/sms/send', client, { headers: { 'X-Device-ID': device.device_id }, body: { to, message } });
    expect(res.status).toBe(200);
    return String(res.body.message_id);
  }

  const handedOver = (agent: JavaAgent, messageId: string) =>
    agent.waitFor((e) => e.event === 'send' && e.message_id === messageId, 20_000, 0, `${messageId} handed to SmsManager`);

  it("when a phone's browser opens the dashboard's download link, then it gets the APK built from this repository, without signing in", async () => {
    const { stdout } = await promisify(execFile)(path.join(REPO_ROOT, 'android-agent/android/build.sh'), [], { maxBuffer: 16 << 20 });
    const apk = stdout.trim().split('\n').pop()!;
    const res = await new Promise<{ status: number; type: string; body: Buffer }>((resolve, reject) => {
      https
        .get(`${system.stack.dashboardUrl}/downloads/smsgw-agent.apk`, { ca: system.stack.certs.caPem }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, type: String(r.headers['content-type']), body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/vnd.android.package-archive');
    const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(digest(res.body)).toBe(digest(fs.readFileSync(apk)));
  }, 240_000);

  it('when the QR code is scanned, then the app pairs, and an SMS is acknowledged, reported sent and delivered with their times', async () => {
    const device = await system.createDevice(client.client_id, 'qr');
    const agent = await startAgent('qr');
    agent.command({ cmd: 'pair_url', url: device.pairing_url });
    const paired = await agent.waitFor((e) => e.event === 'paired' || e.event === 'pair_failed');
    expect(paired).toMatchObject({ event: 'paired', device_id: device.device_id });
    expect(String(paired.ws_url)).toMatch(/^wss:\/\//);
    agent.command({ cmd: 'start' });
    await agent.waitFor((e) => e.event === 'state' && e.state === 'CONNECTED');
    await system.waitOnline(client, device);

    const messageId = await send(device, 'Bonjour depuis le téléphone');
    const handed = await handedOver(agent, messageId);
    expect(handed).toMatchObject({ to: '+33612345678', parts: 1 });
    // Acknowledged (in the outbox), not yet sent: the API still says queued.
    expect((await system.api(`/v1/sms/status/${messageId}`, client)).body.status).toBe('queued');

    agent.command({ cmd: 'sent', message_id: messageId, part: 0, result: -1 });
    const sent = await system.waitForStatus(client, messageId, 'sent');
    expect(sent.sent_at).toBeTruthy();
    agent.command({ cmd: 'delivered', message_id: messageId, part: 0, tp_status: 0 });
    const delivered = await system.waitForStatus(client, messageId, 'delivered');
    expect(delivered.delivered_at).toBeTruthy();
    expect(Date.parse(String(delivered.delivered_at))).toBeGreaterThanOrEqual(Date.parse(String(delivered.sent_at)));
    // The hub acknowledged both reports: the outbox has nothing left to send.
    await eventually(async () => ((await agent.pending()).length === 0 ? true : undefined), 15_000, 'the reports to be acknowledged');
    expect(agent.sendCount(messageId)).toBe(1);

    // A used pairing URL is refused: the app keeps its credentials and never pairs twice.
    const again = await startAgent('qr-again');
    again.command({ cmd: 'pair_url', url: device.pairing_url });
    expect(await again.waitFor((e) => e.event === 'paired' || e.event === 'pair_failed')).toMatchObject({
      event: 'pair_failed',
      kind: 'REFUSED',
    });
  });

  it('when the password is typed, then the app pairs, and a two-part SMS whose second part fails ends failed with the cause', async () => {
    const device = await system.createDevice(client.client_id, 'password');
    const agent = await startAgent('password');
    const hub = new URL(system.stack.hubUrl).host;
    agent.command({ cmd: 'pair_password', hub, client_id: client.client_id, password: device.device_password.toLowerCase() });
    expect(await agent.waitFor((e) => e.event === 'paired' || e.event === 'pair_failed')).toMatchObject({
      event: 'paired',
      device_id: device.device_id,
    });
    agent.command({ cmd: 'start' });
    await system.waitOnline(client, device);

    const messageId = await send(device, 'Deux parties. '.repeat(15));
    expect(await handedOver(agent, messageId)).toMatchObject({ parts: 2 });
    agent.command({ cmd: 'sent', message_id: messageId, part: 0, result: -1 });
    // RESULT_ERROR_NO_SERVICE for the second part.
    agent.command({ cmd: 'sent', message_id: messageId, part: 1, result: 4 });
    const failed = await system.waitForStatus(client, messageId, 'failed');
    expect(failed.error).toMatchObject({ code: 'OUT_OF_NETWORK' });

    // A delivery report that says the SMS centre gave up fails a sent SMS.
    const refused = await send(device, 'Numéro inconnu');
    await handedOver(agent, refused);
    agent.command({ cmd: 'sent', message_id: refused, part: 0, result: -1 });
    await system.waitForStatus(client, refused, 'sent');
    agent.command({ cmd: 'delivered', message_id: refused, part: 0, tp_status: 0x20 });
    agent.command({ cmd: 'delivered', message_id: refused, part: 0, tp_status: 0x41 });
    expect((await system.waitForStatus(client, refused, 'failed')).error).toMatchObject({ code: 'INVALID_NUMBER' });
  });

  it('when the connection drops without a close, then the app reconnects and sends the report it made meanwhile, once', async () => {
    const { agent, device } = await pairedAgent('drop');
    const messageId = await send(device, 'Avant la coupure');
    await handedOver(agent, messageId);
    const from = agent.events.length;
    agent.command({ cmd: 'drop' });
    agent.command({ cmd: 'sent', message_id: messageId, part: 0, result: -1 });
    await agent.waitFor((e) => e.event === 'state' && e.state === 'CONNECTED', 20_000, from, 'the app to reconnect');
    await system.waitForStatus(client, messageId, 'sent');
    agent.command({ cmd: 'delivered', message_id: messageId, part: 0, tp_status: 0 });
    await system.waitForStatus(client, messageId, 'delivered');

    const after = await send(device, 'Après la coupure');
    await handedOver(agent, after);
    expect(agent.sendCount(messageId)).toBe(1);
    expect(agent.sendCount(after)).toBe(1);
  });

  it('when the phone receives a two-part SMS, once connected and once while its connection is down, then each is in the inbox once, put together', async () => {
    const { agent, device } = await pairedAgent('receive');
    const inbox = async () => {
      const res = await system.api(`/v1/sms/inbox?device_id=${device.device_id}`, client);
      return res.body.data as { id: string; from: string; message: string; sim: number | null }[];
    };
    agent.command({ cmd: 'receive', from: '+33677777777', parts: ['Bonjour, ', 'suite du message'], sim: 1 });
    await eventually(async () => ((await inbox()).length === 1 ? true : undefined), 15_000, 'the SMS in the inbox', 500);
    expect(await inbox()).toEqual([expect.objectContaining({ from: '+33677777777', message: 'Bonjour, suite du message', sim: 1 })]);

    const from = agent.events.length;
    agent.command({ cmd: 'drop' });
    agent.command({ cmd: 'receive', from: '+33688888888', parts: ['Pendant ', 'la coupure'] });
    await agent.waitFor((e) => e.event === 'state' && e.state === 'CONNECTED', 20_000, from, 'the app to reconnect');
    await eventually(async () => ((await inbox()).length === 2 ? true : undefined), 15_000, 'the second SMS in the inbox', 500);
    // The hub answers received_ack up to 1 s after it stored the SMS (PROTOCOL.md §3).
    await eventually(async () => ((await agent.inbox()).length === 0 ? true : undefined), 15_000, 'the inbox acknowledged', 250);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await inbox()).map((m) => m.message)).toEqual(['Pendant la coupure', 'Bonjour, suite du message']);
  });

  it('when the app holds a passphrase and receives an SMS and a STOP, then the inbox holds their envelopes, flagged encrypted, and the STOP opts its sender out', async () => {
    const passphrase = 'la phrase saisie sur le téléphone';
    const { agent, device } = await pairedAgent('sealing');
    agent.command({ cmd: 'receive', from: '+33655555555', parts: ['Le code ', 'du portail est 4417'], passphrase });
    agent.command({ cmd: 'receive', from: '+33666666666', parts: ['Stop.'], passphrase });
    const received = await eventually(
      async () => {
        const res = await system.api(`/v1/sms/inbox?device_id=${device.device_id}`, client);
        const data = res.body.data as { from: string; message: string; encrypted?: boolean }[];
        return data.length === 2 ? data : undefined;
      },
      15_000,
      'both SMS in the inbox',
      500,
    );
    expect(received.map((m) => [m.from, m.encrypted, m.message.startsWith('$smsgw-e2e$v1$')])).toEqual([
      ['+33666666666', true, true],
      ['+33655555555', true, true],
    ]);
    expect(received.map((m) => openEnvelope(m.message, passphrase))).toEqual(['Stop.', 'Le code du portail est 4417']);
    const optedOut = await eventually(
      async () => {
        const res = await system.api('/v1/opt-outs', client);
        return (res.body.data as { phone_number: string }[]).find((o) => o.phone_number === '+33666666666');
      },
      15_000,
      'the STOP sender on the suppression list',
      500,
    );
    expect(optedOut).toMatchObject({ source: 'keyword', keyword: 'STOP' });
  });

  it('when the device-hub restarts while a report waits, then the report reaches it afterwards and nothing is sent twice', async () => {
    const { agent, device } = await pairedAgent('hub-restart');
    const messageId = await send(device, 'Pendant le redémarrage');
    await handedOver(agent, messageId);

    await system.stack.services['device-hub'].stop();
    agent.command({ cmd: 'sent', message_id: messageId, part: 0, result: -1 });
    agent.command({ cmd: 'delivered', message_id: messageId, part: 0, tp_status: 0 });
    await eventually(async () => ((await agent.pending()).length === 2 ? true : undefined), 10_000, 'both reports to wait in the outbox');
    await system.stack.services['device-hub'].start();

    // The hub asked its phones to come back after up to 11 s, then the app backs off with jitter.
    const delivered = await system.waitForStatus(client, messageId, 'delivered', 60_000);
    expect(delivered.sent_at).toBeTruthy();
    await system.waitOnline(client, device, true, 45_000);
    const after = await send(device, 'Après le redémarrage');
    await handedOver(agent, after);
    expect(agent.sendCount(messageId)).toBe(1);
  }, 150_000);

  it('when the app is killed after Android took the SMS, then after a restart its reports still arrive, and after a reboot of the phone an SMS without its sent report fails', async () => {
    const { agent, device } = await pairedAgent('crash');
    const messageId = await send(device, 'Avant le crash');
    await handedOver(agent, messageId);
    await eventually(async () => ((await agent.entry(messageId)).handed_over ? true : undefined), 10_000, 'the hand-over on disk');
    await agent.kill('SIGKILL');

    // The same boot of the phone: Android's sent and delivery reports reach the restarted app.
    const restarted = new JavaAgent(
      path.join(system.stack.logDir, 'android-crash'),
      system.stack.certs.caCertFile,
      path.join(system.stack.logDir, 'android-crash-2.log'),
    );
    agents.push(restarted);
    await restarted.start();
    restarted.command({ cmd: 'start' });
    await system.waitOnline(client, device);
    restarted.command({ cmd: 'sent', message_id: messageId, part: 0, result: -1 });
    restarted.command({ cmd: 'delivered', message_id: messageId, part: 0, tp_status: 0 });
    await system.waitForStatus(client, messageId, 'delivered');
    // Even after the hub's lease ran out, the SMS is never handed over again.
    await new Promise((r) => setTimeout(r, 6000));
    expect(agent.sendCount(messageId) + restarted.sendCount(messageId)).toBe(1);

    // After a reboot of the phone, an SMS whose sent report never came is failed, not sent again.
    const lost = await send(device, 'Avant le redémarrage du téléphone');
    await handedOver(restarted, lost);
    await eventually(async () => ((await restarted.entry(lost)).handed_over ? true : undefined), 10_000, 'the hand-over on disk');
    await restarted.kill('SIGKILL');
    const rebooted = new JavaAgent(
      path.join(system.stack.logDir, 'android-crash'),
      system.stack.certs.caCertFile,
      path.join(system.stack.logDir, 'android-crash-3.log'),
      'boot-2',
    );
    agents.push(rebooted);
    await rebooted.start();
    rebooted.command({ cmd: 'start' });
    await rebooted.waitFor((e) => e.event === 'failed_at_open' && e.message_id === lost);
    expect((await system.waitForStatus(client, lost, 'failed')).error).toMatchObject({ code: 'DEVICE_ERROR' });
    expect(rebooted.sendCount(lost)).toBe(0);
  }, 120_000);
});
