import { Redis } from 'ioredis';
import { DashboardSession } from './support/dashboard-session';
import { eventually } from './support/http';
import { TestSystem } from './support/system';

// Issue 36: campaign files cannot fill what every tenant shares. They are kept by the message
// service (Postgres) within each account's caps, never in Redis; a wide file is refused at once,
// and the dashboard answers other pages meanwhile.

const PASSWORD = 'correct horse battery';

/** A CSV file of about `megabytes` MB: `phone;note` rows of distinct numbers. */
function csvOf(megabytes: number, first = 0): string {
  const note = 'x'.repeat(180);
  const rows = Math.min(10_000, Math.floor((megabytes * 1024 * 1024) / 200));
  const lines = ['phone;note'];
  for (let n = 0; n < rows; n++) lines.push(`+3361${String(first + n).padStart(7, '0')};${note}`);
  return `${lines.join('\n')}\n`;
}

describe('campaign files within each account’s caps, on the whole system', () => {
  let system: TestSystem;
  let redis: Redis;

  beforeAll(async () => {
    system = await TestSystem.start();
    redis = new Redis(system.stack.redisUrl);
  });

  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  async function owner(n: number): Promise<{ session: DashboardSession; clientId: string; email: string }> {
    const email = `owner${n}-${Date.now()}@example.com`;
    const user = await system.admin.createUser(email, PASSWORD, `Owner ${n}`);
    const session = new DashboardSession(system.stack.dashboardUrl, system.stack.certs.caPem);
    expect((await session.signIn(email, PASSWORD)).status).toBe(302);
    return { session, clientId: user.client_id, email };
  }

  const upload = async (session: DashboardSession, name: string, csv: string) => {
    await session.get('/campaigns/new');
    return session.post('/campaigns/new', { name, file_name: `${name}.csv`, csv });
  };

  /** What the stack's keys take in Redis now (bytes). */
  async function redisBytes(): Promise<number> {
    let total = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${system.stack.redisPrefix}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) total += Number((await redis.call('MEMORY', 'USAGE', key)) ?? 0);
    } while (cursor !== '0');
    return total;
  }

  it('when many accounts fill their caps of campaign files, then each next upload is refused with why, Redis holds none of them, and sends, presence and sign-in go on', async () => {
    const before = await redisBytes();
    const owners = await Promise.all(Array.from({ length: 6 }, (_, n) => owner(n)));
    const file = csvOf(1.9);
    // 6 MB an account: three files of 1.9 MB pass, the fourth is refused.
    for (const { session } of owners) {
      for (let n = 0; n < 3; n++) {
        const kept = await upload(session, `Soldes ${n}`, file);
        expect(kept.status).toBe(302);
        expect(kept.location).toMatch(/^\/campaigns\/new\/upl_[0-9A-Z]{26}$/);
      }
      const refused = await upload(session, 'Encore', file);
      expect(refused.status).toBe(429);
      const kept = ((3 * Buffer.byteLength(file)) / (1024 * 1024)).toFixed(1);
      expect(refused.text).toContain(`Your account already has 3 files waiting (${kept} MB), and keeps at most 5 files and 6.0 MB`);
      expect(refused.text).toContain('send or discard one of them on the Campaigns page');
    }
    // About 34 MB of files kept, none of it in Redis.
    expect((await redisBytes()) - before).toBeLessThan(1024 * 1024);
    const list = await owners[0]!.session.get('/campaigns');
    expect(list.text).toContain('Files waiting to be sent: 3 of 5');

    // Another tenant's sends, presence and sign-in.
    const client = await system.createClient();
    const device = await system.createDevice(client.client_id, 'still works');
    await system.startAgent(client, device);
    const auth = await system.api('/v1/auth/test', client, { headers: { 'X-Device-ID': device.device_id } });
    expect(auth.body).toMatchObject({ success: true, device_status: 'online' });
    const sent = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33612345678', message: 'Toujours là' },
    });
    expect(sent.status).toBe(200);
    await system.waitForStatus(client, String(sent.body.message_id), 'delivered');
    const late = await owner(99);
    expect((await late.session.get('/')).status).toBe(200);

    // A file discarded makes room for the next.
    const { session } = owners[0]!;
    const uploadId = /href="\/campaigns\/new\/(upl_[0-9A-Z]{26})"/.exec(list.text)![1]!;
    expect((await session.post(`/campaigns/new/${uploadId}/discard`, {})).location).toBe('/campaigns');
    expect((await upload(session, 'Encore', file)).status).toBe(302);
  }, 180_000);

  it('when a file with an 80,000-column header is uploaded, then it is refused at once with why, and another page answers in under a second meanwhile', async () => {
    const { session } = await owner(1000);
    const other = await owner(1001);
    const header = Array.from({ length: 80_000 }, (_, n) => `column${n}`).join(';');
    const wide = `${header}\n${Array.from({ length: 80_000 }, () => '1').join(';')}\n`;
    await session.get('/campaigns/new');

    const uploads = Array.from({ length: 4 }, () => session.post('/campaigns/new', { name: 'Large', csv: wide }));
    const pages: number[] = [];
    const reading = (async () => {
      for (let n = 0; n < 5; n++) pages.push((await other.session.get('/campaigns')).ms);
    })();
    const answers = await Promise.all(uploads);
    await reading;

    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('The header row has more than 100 columns: keep the columns the messages need.');
      expect(answer.ms).toBeLessThan(3000);
    }
    expect(Math.max(...pages)).toBeLessThan(1000);
    const waiting = await eventually(async () => (await session.get('/campaigns')).text, 5000, 'the campaigns page');
    expect(waiting).not.toContain('Files waiting to be sent');
  }, 60_000);
});
