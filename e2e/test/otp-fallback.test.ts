import type { AgentProcess, SentSms } from './support/agent';
import { eventually } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

/**
 * The OTP delivery fallback (issue 39) with two real phones (the agent's simulator driver) on the
 * real hub: an OTP whose SMS fails on its first phone, or is not delivered in time, goes once
 * through the client's other phone, with the same otp_id, message_id and code.
 */
describe('an OTP whose first phone fails arrives through the second', () => {
  let system: TestSystem;
  let receiver: Receiver;

  beforeAll(async () => {
    system = await TestSystem.shared();
    receiver = await Receiver.start(system.stack.certs);
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
  });

  /** A client with its sms.* webhook, a phone whose SIM fails every SMS after sending it (`bad`) and a good one. */
  async function twoPhones(badArgs: string[]): Promise<{ client: DemoClient; bad: Phone; good: Phone; hooks: string }> {
    const client = await system.createClient();
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
    const phone = async (name: string, extraArgs: string[] = []): Promise<Phone> => {
      const device = await system.createDevice(client.client_id, name);
      return { device, agent: await system.startAgent(client, device, { extraArgs }) };
    };
    return { client, bad: await phone('bad', badArgs), good: await phone('good'), hooks };
  }

  interface Phone {
    device: DemoDevice;
    agent: AgentProcess;
  }

  const sentBy = (phone: Phone, messageId: string) =>
    eventually(
      async () => phone.agent.sent.find((s) => s.message_id === messageId),
      30_000,
      `${phone.device.device_id} to send ${messageId}`,
    );
  const codeOf = (sms: SentSms) => /(\d{6})\D*$/.exec(sms.text)![1]!;

  it('when the first phone reports a network failure after sending, then the same message goes through the second phone with the same code, which verifies; no sms.failed is posted', async () => {
    const { client, bad, good, hooks } = await twoPhones(['--sim-network-failure', 'INSUFFICIENT_CREDIT']);
    // Named phone, failover allowed: it starts on the failing phone and may move.
    const res = await system.api('/v1/sms/send-otp', client, {
      headers: { 'X-Device-ID': bad.device.device_id },
      body: { to: '+33612345001', failover: true },
    });
    expect(res.status).toBe(200);
    const messageId = String(res.body.message_id);

    const first = await sentBy(bad, messageId);
    const second = await sentBy(good, messageId);
    expect(codeOf(second)).toBe(codeOf(first));
    const delivered = await system.waitForStatus(client, messageId, 'delivered', 30_000);
    expect(delivered).toMatchObject({ device_id: good.device.device_id, message: 'Votre code de vérification est : ******' });
    expect(
      (delivered.attempts as { device_id: string; status: string; error: { code: string } | null }[]).map((a) => [
        a.device_id,
        a.status,
        a.error?.code ?? null,
      ]),
    ).toEqual([
      [bad.device.device_id, 'failed', 'INSUFFICIENT_CREDIT'],
      [good.device.device_id, 'delivered', null],
    ]);
    const verified = await system.api('/v1/sms/verify-otp', client, { body: { otp_id: res.body.otp_id, code: codeOf(second) } });
    expect(verified.body).toMatchObject({ success: true, valid: true });

    await receiver.waitFor(hooks, 1, 20_000, (h) => h.body.event === 'sms.delivered');
    expect(receiver.at(hooks).filter((h) => h.body.data.message_id === messageId && h.body.event === 'sms.failed')).toEqual([]);
  }, 90_000);

  it('when the first phone sends but nothing is delivered within fallback_after, then the code goes through the second phone too', async () => {
    // A phone whose network never confirms delivery (within the test).
    const { client, bad, good } = await twoPhones(['--sim-delivery-delay-ms', '600000']);
    const asked = Date.now();
    const res = await system.api('/v1/sms/send-otp', client, {
      headers: { 'X-Device-ID': bad.device.device_id },
      body: { to: '+33612345002', failover: true, fallback_after: 12 },
    });
    expect(res.status).toBe(200);
    const messageId = String(res.body.message_id);
    const first = await sentBy(bad, messageId);
    const second = await sentBy(good, messageId);
    expect(codeOf(second)).toBe(codeOf(first));
    // Not before its fallback_after.
    expect(Date.now() - asked).toBeGreaterThanOrEqual(11_000);
    const delivered = await system.waitForStatus(client, messageId, 'delivered', 30_000);
    expect((delivered.attempts as { status: string; error: { code: string } | null }[])[0]).toMatchObject({
      status: 'moved',
      error: { code: 'NOT_DELIVERED' },
    });
    const verified = await system.api('/v1/sms/verify-otp', client, { body: { otp_id: res.body.otp_id, code: codeOf(second) } });
    expect(verified.body).toMatchObject({ valid: true });
  }, 90_000);

  it('when the OTP is pinned to its phone, then a failure there is final: sms.failed, and the other phone sends nothing', async () => {
    const { client, bad, good, hooks } = await twoPhones(['--sim-network-failure', 'OUT_OF_NETWORK']);
    const res = await system.api('/v1/sms/send-otp', client, {
      headers: { 'X-Device-ID': bad.device.device_id },
      body: { to: '+33612345003' },
    });
    const messageId = String(res.body.message_id);
    await sentBy(bad, messageId);
    const failed = await system.waitForStatus(client, messageId, 'failed', 20_000);
    expect(failed).toMatchObject({ device_id: bad.device.device_id, error: { code: 'OUT_OF_NETWORK' } });
    await receiver.waitFor(hooks, 1, 20_000, (h) => h.body.event === 'sms.failed' && h.body.data.message_id === messageId);
    expect(good.agent.sentCount(messageId)).toBe(0);
  }, 60_000);
});
