import { connectNats, createLogger, type Nats } from '@smsgw/platform';
import { eventTap } from './support/event-tap';
import { eventually } from './support/http';
import { pair, rawPhone } from './support/raw-phone';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

describe("a phone reports only on its own messages: another tenant's forged reports", () => {
  let system: TestSystem;
  let nats: Nats;
  let victim: DemoClient;
  let victimPhone: DemoDevice;
  let attacker: DemoClient;
  let attackerPhone: DemoDevice;
  let tap: Awaited<ReturnType<typeof eventTap>>;

  beforeAll(async () => {
    system = await TestSystem.shared();
    nats = await connectNats({
      url: system.stack.natsUrl,
      ...system.stack.natsAdmin,
      prefix: system.stack.natsPrefix,
      name: 'e2e',
      log: createLogger('e2e', 'silent'),
    });
    victim = await system.createClient();
    victimPhone = await system.createDevice(victim.client_id);
    attacker = await system.createClient();
    attackerPhone = await system.createDevice(attacker.client_id);
    tap = await eventTap(nats);
  });

  afterAll(async () => {
    tap?.stop();
    await nats?.nc.drain();
    await system?.stop();
  });

  /** The subjects of the public events (`events.sms.*`) about one message, in the order they were published. */
  async function eventsAbout(messageId: string): Promise<string[]> {
    await nats.nc.flush();
    return tap.events.filter((e) => e.event.data.message_id === messageId).map((e) => e.subject);
  }

  it("when tenant B's phone reports sent, delivered and failed for tenant A's message before A's phone does, then B is answered report_ack, A's message does not move, and A's own reports still make it delivered with no sms.failed", async () => {
    // B's phone, spoken by hand, is connected first; A's simulated phone holds each SMS 8 s before sending it.
    const token = await pair(system.stack.hubUrl, system.stack.certs.caPem, attacker.client_id, attackerPhone.device_password);
    const forger = await rawPhone(system.stack.hubUrl, system.stack.certs.caPem, token);
    await forger.next('hello');
    const phone = await system.startAgent(victim, victimPhone, { extraArgs: ['--sim-send-delay-ms', '8000'] });
    const sent = await system.api('/v1/sms/send', victim, {
      headers: { 'X-Device-ID': victimPhone.device_id },
      body: { to: '+33612345678', message: 'Votre colis arrive' },
    });
    expect(sent.status).toBe(200);
    const messageId = String(sent.body.message_id);

    const at = new Date().toISOString();
    for (const status of ['sent', 'delivered', 'failed']) {
      forger.ws.send(
        JSON.stringify({
          type: 'report',
          message_id: messageId,
          status,
          at,
          ...(status === 'failed' ? { error: { code: 'NO_SERVICE', message: 'no' } } : {}),
        }),
      );
      // The hub answers as to any report (an honest phone with a stale one stops sending it), but stores nothing.
      expect(await forger.next('report_ack')).toMatchObject({ message_id: messageId, status });
    }
    forger.ws.close();

    // Nothing of B's reached the message service: A's message waits, unchanged, with no event.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(phone.sentCount(messageId)).toBe(0);
    expect((await system.api(`/v1/sms/status/${messageId}`, victim)).body.status).toBe('queued');
    expect(await eventsAbout(messageId)).toEqual([]);

    // A's phone sends the SMS and reports it: its reports are not taken for duplicates.
    const status = await system.waitForStatus(victim, messageId, 'delivered');
    expect(status.error_code ?? null).toBeNull();
    expect(phone.sentCount(messageId)).toBe(1);
    const events = await eventually(
      async () => {
        const found = await eventsAbout(messageId);
        return found.some((s) => s.endsWith('sms.delivered')) ? found : undefined;
      },
      10_000,
      'sms.delivered',
    );
    expect(events.filter((s) => s.endsWith('sms.failed'))).toEqual([]);
    expect(events.filter((s) => s.endsWith('sms.delivered'))).toHaveLength(1);
  });
});
