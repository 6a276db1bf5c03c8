import path from 'node:path';
import { eventually } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

describe('an agent that crashes mid-way', () => {
  let system: TestSystem;
  let client: DemoClient;
  let device: DemoDevice;

  beforeAll(async () => {
    system = await TestSystem.shared();
    client = await system.createClient();
    device = await system.createDevice(client.client_id);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when the agent is killed after receiving an SMS but before reporting it, then after a restart the SMS is sent once and ends delivered', async () => {
    const dataDir = path.join(system.stack.logDir, 'crashing-agent');
    // The first agent waits 10 s between accepting an SMS and sending it: time to kill it in between.
    const first = await system.startAgent(client, device, { dataDir, extraArgs: ['--sim-send-delay-ms', '10000'] });
    const sent = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33612345678', message: 'Exactly once, please' },
    });
    expect(sent.status).toBe(200);
    const messageId = String(sent.body.message_id);

    // The agent has written the SMS to its outbox and acknowledged it.
    await eventually(async () => (first.logs().includes(messageId) ? true : undefined), 15_000, 'the agent to accept the SMS');
    await first.kill('SIGKILL');
    expect(first.sentCount(messageId)).toBe(0);
    const whileDown = await system.api(`/v1/sms/status/${messageId}`, client);
    expect(whileDown.body.status).toBe('queued');

    const second = await system.startAgent(client, device, { dataDir });
    const status = await system.waitForStatus(client, messageId, 'delivered');
    expect(status.sent_at).toBeTruthy();
    expect(first.sentCount(messageId) + second.sentCount(messageId)).toBe(1);

    // Even after the lease of the first claim has long expired, nothing is sent again.
    await new Promise((r) => setTimeout(r, 6000));
    expect(first.sentCount(messageId) + second.sentCount(messageId)).toBe(1);
  });
});
