import type { AgentProcess } from './support/agent';
import { eventually } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

/**
 * A phone paced at one SMS every 40 s: the OTP queued behind the first SMS
 * waits longer than its 30 s validity.
 */
describe('OTP expiry, end to end', () => {
  let system: TestSystem;
  let client: DemoClient;
  let device: DemoDevice;
  let agent: AgentProcess;

  beforeAll(async () => {
    system = await TestSystem.start({
      DISPATCH_INTERVAL_MIN_MS: '40000',
      DISPATCH_INTERVAL_MAX_MS: '40000',
      OTP_EXPIRY_SWEEP_MS: '1000',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    client = await system.createClient();
    device = await system.createDevice(client.client_id);
    agent = await system.startAgent(client, device);
  });

  afterAll(async () => {
    await system?.stop();
  });

  const sendOtp = (to: string) =>
    system.api('/v1/sms/send-otp', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to, expiry: 30, length: 8, template: 'Code {{code}}' },
    });

  it('when an OTP expires, then verifying it is 410 OTP_EXPIRED, and its SMS not yet on a phone is never sent and ends failed EXPIRED', async () => {
    const first = await sendOtp('+33612340001');
    const sms = await eventually(async () => agent.sent.find((s) => s.message_id === first.body.message_id), 20_000, 'the first OTP SMS');
    const code = /(\d{8})$/.exec(sms.text)![1]!;
    const late = await sendOtp('+33612340002');
    expect(late.status).toBe(200);
    const lateId = String(late.body.message_id);

    const failed = await system.waitForStatus(client, lateId, 'failed', 60_000);
    expect(failed).toMatchObject({ error: { code: 'EXPIRED' }, message: 'Code ********' });
    expect(Date.parse(String(failed.failed_at))).toBe(Date.parse(String(late.body.expires_at)));
    expect(agent.sentCount(lateId)).toBe(0);

    const verify = await system.api('/v1/sms/verify-otp', client, { body: { otp_id: first.body.otp_id, code } });
    expect([verify.status, (verify.body.error as { code: string }).code]).toEqual([410, 'OTP_EXPIRED']);
  }, 120_000);
});
