import { Receiver } from './support/receiver';
import { eventually } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';
import type { AgentProcess } from './support/agent';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Messages of the test: the last few to a number the simulator fails (OUT_OF_NETWORK, no `sent`).
 * Fewer than SIM health's 5 faults in a row, which would quarantine the phone's SIM and hold the
 * last one on the server for its cool-down (sim-health.test.ts tests that).
 */
const DELIVERED = 24;
const FAILED = 4;

describe('reconciliation with the phone’s digest (protocol 7), the whole system', () => {
  let system: TestSystem;
  let receiver: Receiver;
  let client: DemoClient;
  let device: DemoDevice;
  let agent: AgentProcess;

  beforeAll(async () => {
    system = await TestSystem.start({
      // A digest every 3 s (below): the service waits 3 s after an SMS's last step before it repairs it.
      RECONCILE_GRACE_MS: '3000',
      RECONCILE_CLOCK_MARGIN_MS: '1000',
    });
    receiver = await Receiver.start(system.stack.certs);
    client = await system.createClient();
    device = await system.createDevice(client.client_id, 'lossy');
    agent = await system.startAgent(client, device, { extraArgs: ['--sim-drop-reports', '0.3', '--digest-interval-ms', '3000'] });
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
  });

  it('when 30% of the phone’s reports are lost in transit, then every message reaches its true final state through its digest, each webhook arrives once, and nothing is sent twice', async () => {
    await system.cli(
      'create-webhook',
      '--client',
      client.client_id,
      '--url',
      receiver.url('/events'),
      '--events',
      'sms.sent,sms.delivered,sms.failed',
    );
    const good = await system.api('/v1/sms/send-bulk', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { recipients: Array.from({ length: DELIVERED }, (_, i) => `+336123456${String(i).padStart(2, '0')}`), message: 'Bonjour' },
    });
    expect(good.status).toBe(200);
    const bad = await system.api('/v1/sms/send-bulk', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { recipients: Array.from({ length: FAILED }, () => '+33600000002'), message: 'Bonjour' },
    });
    expect(bad.status).toBe(200);
    const goodIds = (good.body.messages as { message_id: string }[]).map((m) => m.message_id);
    const badIds = (bad.body.messages as { message_id: string }[]).map((m) => m.message_id);

    // Every message reaches what the phone really did, within a few minutes.
    const final = await eventually(
      async () => {
        const res = await system.api('/v1/sms/history?limit=100', client);
        const rows = (res.body.data as { message_id: string; status: string }[] | undefined) ?? [];
        const status = new Map(rows.map((r) => [r.message_id, r.status]));
        const done = goodIds.every((id) => status.get(id) === 'delivered') && badIds.every((id) => status.get(id) === 'failed');
        return done ? status : undefined;
      },
      180_000,
      'every message in its final state',
      3000,
    );
    expect(final.size).toBe(DELIVERED + FAILED);

    // Reports were lost, and the digests repaired them.
    const lost = agent
      .logs()
      .split('\n')
      .filter((line) => line.includes('report lost in transit')).length;
    expect(lost).toBeGreaterThan(0);

    // Each webhook once: sent and delivered for each delivered message, failed for each failed one.
    await eventually(
      async () => (receiver.at('/events').length >= 2 * DELIVERED + FAILED ? true : undefined),
      60_000,
      'every webhook',
      500,
    );
    await sleep(8000); // two more digests: nothing more may arrive
    const hooks = receiver.at('/events');
    const count = (id: string, event: string) => hooks.filter((h) => h.body.data.message_id === id && h.body.event === event).length;
    for (const id of goodIds) {
      expect([id, count(id, 'sms.sent'), count(id, 'sms.delivered'), count(id, 'sms.failed')]).toEqual([id, 1, 1, 0]);
    }
    for (const id of badIds) {
      expect([id, count(id, 'sms.sent'), count(id, 'sms.delivered'), count(id, 'sms.failed')]).toEqual([id, 0, 0, 1]);
    }
    expect(hooks).toHaveLength(2 * DELIVERED + FAILED);

    // Nothing sent twice: the simulator printed each SMS it handed to its pretend network once.
    for (const id of [...goodIds, ...badIds]) expect([id, agent.sentCount(id)]).toEqual([id, 1]);

    // The repairs show on the messages' attempts.
    const repairedSomewhere = await Promise.all(
      [...goodIds, ...badIds].slice(0, 30).map(async (id) => {
        const res = await system.api(`/v1/sms/status/${id}`, client);
        return (res.body.attempts as { reconciled?: string }[]).some((a) => a.reconciled !== undefined);
      }),
    );
    expect(repairedSomewhere.some(Boolean)).toBe(true);
  }, 300_000); // the waits above: 180 s for the final states, 60 s for the webhooks, 8 s of quiet
});
