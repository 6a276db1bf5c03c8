import { eventually } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

describe('nothing accepted is lost when a service restarts', () => {
  let system: TestSystem;
  let client: DemoClient;

  beforeAll(async () => {
    system = await TestSystem.start();
    client = await system.createClient();
  });

  afterAll(async () => {
    await system?.stop();
  });

  async function send(device: DemoDevice, message: string): Promise<string> {
    const res = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33612345678', message },
    });
    expect(res.status).toBe(200);
    return String(res.body.message_id);
  }

  it('when the device-hub restarts, then the phone reconnects by itself and SMS flow again', async () => {
    const device = await system.createDevice(client.client_id, 'restart');
    const agent = await system.startAgent(client, device);
    await system.waitForStatus(client, await send(device, 'before the restart'), 'delivered');

    await system.stack.restart('device-hub');
    // The hub asks its phones to come back after up to 11 s, then each backs off with jitter.
    await system.waitOnline(client, device, true, 45_000);
    const after = await send(device, 'after the restart');
    await system.waitForStatus(client, after, 'delivered');
    expect(agent.sentCount(after)).toBe(1);
  });

  it('when the message service is down while the phone reports, then the reports wait in JetStream and are applied once it is back', async () => {
    const device = await system.createDevice(client.client_id, 'reports');
    const agent = await system.startAgent(client, device, { extraArgs: ['--sim-send-delay-ms', '3000'] });
    const messageId = await send(device, 'reported while the message service is down');
    await eventually(async () => (agent.logs().includes(messageId) ? true : undefined), 15_000, 'the agent to accept the SMS');

    await system.stack.services.message.stop();
    await eventually(async () => (agent.sentCount(messageId) === 1 ? true : undefined), 15_000, 'the agent to send the SMS');
    const meanwhile = await system.api(`/v1/sms/status/${messageId}`, client);
    expect(meanwhile.status).toBe(503);
    expect(meanwhile.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(meanwhile.headers['retry-after']).toBeTruthy();
    // Give the phone time to report sent and delivered to the hub.
    await new Promise((r) => setTimeout(r, 1000));

    await system.stack.services.message.start();
    const status = await system.waitForStatus(client, messageId, 'delivered');
    expect(status.sent_at).toBeTruthy();
    expect(agent.sentCount(messageId)).toBe(1);
  });
});
