import fs from 'node:fs';
import path from 'node:path';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

describe('two phone agents started from the same data directory', () => {
  let system: TestSystem;
  let client: DemoClient;
  let phoneA: DemoDevice;
  let phoneB: DemoDevice;

  beforeAll(async () => {
    system = await TestSystem.shared();
    client = await system.createClient();
    phoneA = await system.createDevice(client.client_id, 'A');
    phoneB = await system.createDevice(client.client_id, 'B');
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when a second device pairs from a data directory that already holds one, then both are online at once and each SMS leaves from its own phone, with no takeover', async () => {
    const dataDir = path.join(system.stack.logDir, 'shared-agent-data');
    // The first device pairs and runs; the second starts later from the same directory, as a user
    // adding a phone would.
    const agentA = await system.startAgent(client, phoneA, { dataDir });
    const agentB = await system.startAgent(client, phoneB, { dataDir });

    expect(await system.deviceStatus(client, phoneA)).toBe('online');
    expect(await system.deviceStatus(client, phoneB)).toBe('online');
    expect(agentB.logs()).not.toContain('using stored credentials');

    const sendFrom = async (device: DemoDevice, text: string) => {
      const res = await system.api('/v1/sms/send', client, {
        headers: { 'X-Device-ID': device.device_id },
        body: { to: '+33612345678', message: text },
      });
      expect(res.status).toBe(200);
      return String(res.body.message_id);
    };
    const [fromA, fromB] = [await sendFrom(phoneA, 'sent by phone A'), await sendFrom(phoneB, 'sent by phone B')];
    await Promise.all([system.waitForStatus(client, fromA, 'delivered'), system.waitForStatus(client, fromB, 'delivered')]);

    expect(agentA.sent.map((s) => s.message_id)).toEqual([fromA]);
    expect(agentB.sent.map((s) => s.message_id)).toEqual([fromB]);
    // Neither agent was knocked off by the other (close code 4002 stops an agent). The code alone, not
    // the digits inside a log line's millisecond timestamp.
    expect([agentA.running, agentB.running]).toEqual([true, true]);
    for (const agent of [agentA, agentB]) expect(agent.logs()).not.toMatch(/\b4002\b|took over/);
    expect(await system.deviceStatus(client, phoneA)).toBe('online');
    expect(await system.deviceStatus(client, phoneB)).toBe('online');
    expect(fs.readdirSync(path.join(dataDir, 'devices')).sort()).toEqual([phoneA.device_id, phoneB.device_id].sort());

    // Restarted with the same pairing inputs, an agent goes back to its own stored credentials.
    await agentA.kill();
    const againA = await system.startAgent(client, phoneA, { dataDir });
    expect(againA.logs()).toContain('using stored credentials');
    expect(againA.logs()).toContain(phoneA.device_id);
    const later = await sendFrom(phoneA, 'phone A again');
    await system.waitForStatus(client, later, 'delivered');
    expect(againA.sent.map((s) => s.message_id)).toEqual([later]);
    expect(agentB.running).toBe(true);
  });
});
