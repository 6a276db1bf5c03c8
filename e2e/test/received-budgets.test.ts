import fs from 'node:fs/promises';
import path from 'node:path';
import { eventually } from './support/http';
import { TestSystem } from './support/system';

// Issue 36: what one phone sends cannot fill what every tenant shares. A phone that receives 300
// SMS at once gets its budget stored; the rest stay on the phone, which sends them again when the
// hub says (protocol 5, received_retry), and each ends up stored once.

const WINDOW_MS = 10_000;
const PER_DEVICE = 100;

describe('received SMS past the budget of a phone', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({
      HUB_BUDGET_WINDOW_MS: String(WINDOW_MS),
      HUB_RECEIVED_BUDGET_PER_DEVICE: String(PER_DEVICE),
      HUB_RECEIVED_BUDGET_PER_CLIENT: '1000',
    });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when a phone receives 300 SMS in a burst, then at most its budget is stored at first, the rest wait on the phone, and all 300 are stored once, later', async () => {
    const client = await system.createClient();
    const device = await system.createDevice(client.client_id, 'busy phone');
    const dataDir = path.join(system.stack.logDir, `received-budgets-${Date.now()}`);
    await system.startAgent(client, device, { dataDir });
    const inboxDir = path.join(dataDir, 'devices', device.device_id, 'inbox');
    const onThePhone = async () => (await fs.readdir(inboxDir)).filter((f) => f.endsWith('.json')).length;
    const stored = async () => {
      const res = await system.api('/v1/sms/stats', client);
      expect(res.status).toBe(200);
      return (res.body.stats as { received: number }).received;
    };

    const texts = Array.from({ length: 300 }, (_, n) => `rafale ${n}`);
    const started = Date.now();
    for (let at = 0; at < texts.length; at += 50) {
      await Promise.all(
        texts.slice(at, at + 50).map((text) => system.admin.receiveSms(client.client_id, device.device_id, { from: '+33655555555', text })),
      );
    }

    // Within the first window: the budget is stored, the rest is still on the phone.
    await eventually(
      async () => ((await onThePhone()) + (await stored()) >= 300 ? true : undefined),
      WINDOW_MS - 2000,
      'every SMS on the phone or stored',
      500,
    );
    expect(Date.now() - started).toBeLessThan(WINDOW_MS);
    expect(await stored()).toBeLessThanOrEqual(PER_DEVICE);
    expect(await onThePhone()).toBeGreaterThanOrEqual(300 - PER_DEVICE);

    // Later windows take the rest, sent again by the phone when the hub said.
    await eventually(async () => ((await onThePhone()) === 0 ? true : undefined), 60_000, 'every SMS acknowledged', 1000);
    await eventually(async () => ((await stored()) === 300 ? true : undefined), 15_000, 'all 300 stored', 1000);
    expect(Date.now() - started).toBeGreaterThan(2 * WINDOW_MS);

    // Each one once: the inbox, read page by page, holds every text exactly once.
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await system.api(`/v1/sms/inbox?limit=100&page=${page}`, client);
      expect(res.status).toBe(200);
      seen.push(...(res.body.data as { message: string }[]).map((m) => m.message));
    }
    expect(seen.sort()).toEqual([...texts].sort());
  }, 120_000);
});
