import { TestSystem, type DemoClient, type DemoDevice } from './support/system';
import type { AgentProcess } from './support/agent';

describe('the send path, end to end', () => {
  let system: TestSystem;
  let client: DemoClient;
  let device: DemoDevice;
  let agent: AgentProcess;

  beforeAll(async () => {
    system = await TestSystem.shared();
    client = await system.createClient();
    device = await system.createDevice(client.client_id);
    agent = await system.startAgent(client, device);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when a developer sends an SMS over HTTPS, then the phone sends it and the status shows it delivered', async () => {
    const sent = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33 6 12 34 56 78', message: 'Bonjour, votre colis arrive demain.', metadata: { order: 'A-42' } },
    });

    expect(sent.status).toBe(200);
    expect(sent.headers['x-request-id']).toMatch(/^req_/);
    expect(sent.body).toMatchObject({ success: true, status: 'queued', to: '+33612345678', parts: 1, encoding: 'GSM-7' });
    const messageId = String(sent.body.message_id);
    expect(messageId).toMatch(/^msg_[0-9A-Z]{26}$/);
    expect(Date.parse(String(sent.body.queued_at))).not.toBeNaN();
    expect(Date.parse(String(sent.body.estimated_delivery))).toBeGreaterThanOrEqual(Date.parse(String(sent.body.queued_at)));

    const status = await system.waitForStatus(client, messageId, 'delivered');
    expect(status).toMatchObject({
      success: true,
      message_id: messageId,
      status: 'delivered',
      to: '+33612345678',
      message: 'Bonjour, votre colis arrive demain.',
      priority: 'normal',
      metadata: { order: 'A-42' },
    });
    const [created, sentAt, deliveredAt] = [status.created_at, status.sent_at, status.delivered_at].map((t) => Date.parse(String(t)));
    expect(sentAt).toBeGreaterThanOrEqual(created!);
    expect(deliveredAt).toBeGreaterThanOrEqual(sentAt!);
    expect(agent.sent.filter((s) => s.message_id === messageId)).toEqual([
      { message_id: messageId, to: '+33612345678', text: 'Bonjour, votre colis arrive demain.' },
    ]);
  });

  it('when no X-Device-ID is given, then the online device sends it', async () => {
    const test = await system.api('/v1/auth/test', client);
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ success: true, client_id: client.client_id, device_id: device.device_id, device_status: 'online' });

    const sent = await system.api('/v1/sms/send', client, { body: { to: '+447911123456', message: 'Hello from the gateway' } });
    expect(sent.status).toBe(200);
    expect(sent.body.device_id).toBe(device.device_id);
    await system.waitForStatus(client, String(sent.body.message_id), 'delivered');
  });

  it('when the recipient is out of network, then the message ends failed with that cause', async () => {
    const sent = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33600000002', message: 'Ce message ne passera pas' },
    });
    expect(sent.status).toBe(200);
    const status = await system.waitForStatus(client, String(sent.body.message_id), 'failed');
    expect(status.error).toEqual({ code: 'OUT_OF_NETWORK', message: 'Destinataire hors réseau.' });
    expect(status.delivered_at).toBeUndefined();
  });

  it("when another client asks for the message's status, then it is not found", async () => {
    const sent = await system.api('/v1/sms/send', client, { body: { to: '+33612345679', message: 'private' } });
    const other = await system.createClient();
    const res = await system.api(`/v1/sms/status/${String(sent.body.message_id)}`, other);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'MESSAGE_NOT_FOUND', message: 'Message introuvable.' } });
  });
});
