import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEnvelope, seal } from '@smsgw/client';
import { DashboardSession } from './support/dashboard-session';
import { TestSystem, type DemoClient } from './support/system';

// A CSV campaign of encrypted texts (docs/api/encryption.md) on the whole system: the file's
// column of envelopes is sent untouched, stored flagged encrypted, and the phone holding the
// passphrase opens each one and sends it.

const PASSWORD = 'correct horse battery';
const PASSPHRASE = 'la phrase des campagnes chiffrées';
const TEXTS = ['Votre rendez-vous confidentiel : jeudi 10h', 'Votre rendez-vous confidentiel : vendredi 16h'];

describe('an encrypted CSV campaign on the whole system', () => {
  let system: TestSystem;
  let dir: string;

  beforeAll(async () => {
    system = await TestSystem.shared();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-e2e-campaign-'));
    fs.writeFileSync(path.join(dir, 'passphrase'), `${PASSPHRASE}\n`);
  });

  afterAll(async () => {
    await system?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('when a file of envelopes is sent as encrypted texts, then each message is stored as its envelope, flagged encrypted, and the phone with the passphrase delivers it', async () => {
    const email = `sealed-campaign-${Date.now()}@example.com`;
    const user = await system.admin.createUser(email, PASSWORD, 'Owner');
    const client: DemoClient = user;
    const device = await system.createDevice(client.client_id, 'sealing');
    await system.startAgent(client, device, { extraArgs: ['--passphrase-file', path.join(dir, 'passphrase')] });
    const envelopes = TEXTS.map((text) => seal(text, PASSPHRASE));
    const csv = ['phone;sealed', `+33612340001;${envelopes[0]}`, `+33612340002;${envelopes[1]}`].join('\n');

    const session = new DashboardSession(system.stack.dashboardUrl, system.stack.certs.caPem);
    expect((await session.signIn(email, PASSWORD)).status).toBe(302);
    await session.get('/campaigns/new');
    const upload = await session.post('/campaigns/new', { name: 'Rendez-vous', file_name: 'sealed.csv', csv });
    expect(upload.status).toBe(302);
    const form = { phone_column: 'phone', text: '{{sealed}}', encrypted: 'yes' };
    await session.get(upload.location);
    const preview = await session.post(`${upload.location}/preview`, form);
    expect(preview.text).toContain('data-good="2"');
    const sent = await session.post(`${upload.location}/send`, form);
    expect(sent.status).toBe(302);

    const history = await system.api('/v1/sms/history?limit=10', client);
    const messages = (history.body.data as Record<string, unknown>[]).sort((a, b) => String(a.to).localeCompare(String(b.to)));
    expect(messages.map((m) => [m.to, m.message, m.encrypted])).toEqual([
      ['+33612340001', envelopes[0], true],
      ['+33612340002', envelopes[1], true],
    ]);
    for (const m of messages) {
      const delivered = await system.waitForStatus(client, String(m.message_id), 'delivered');
      expect(delivered).toMatchObject({ message: m.message, encrypted: true });
    }
    expect(messages.map((m) => openEnvelope(String(m.message), PASSPHRASE))).toEqual(TEXTS);
  }, 90_000);
});
