import { createHash, X509Certificate } from 'node:crypto';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT, startMailCatcher, type MailCatcher } from '@smsgw/stack';
import { AgentProcess } from './support/agent';
import { eventually } from './support/http';
import { TestSystem, type DemoClient } from './support/system';

/** 1,000 rows: every 100th a bad number, every 100th + 50 an empty `name` (a placeholder of the text); 980 good ones. */
function campaignFile(): { csv: string; good: Map<string, string>; badLines: number[] } {
  const lines = ['phone;name;code'];
  const good = new Map<string, string>();
  const badLines: number[] = [];
  for (let n = 0; n < 1000; n++) {
    const phone = `+3361${String(2_000_000 + n).padStart(7, '0')}`;
    const line = n + 2;
    if (n % 100 === 0) {
      lines.push(`bad-${n};Person ${n};C${n}`);
      badLines.push(line);
    } else if (n % 100 === 50) {
      lines.push(`${phone};;C${n}`);
      badLines.push(line);
    } else {
      lines.push(`${phone};"Person ${n}";C${n}`);
      good.set(phone, `Bonjour Person ${n}, votre code C${n}`);
    }
  }
  return { csv: `\uFEFF${lines.join('\r\n')}\r\n`, good, badLines };
}

/**
 * `rows` rows of `phone;name;note`, numbers from +3361<first>; `special` gives row n (from 0) its
 * own name and note. With it, by number, the text that `Bonjour {{name}}, {{note}}` makes.
 */
function smallCampaignFile(first: number, rows: number, special: Record<number, { name: string; note: string }> = {}) {
  const lines = ['phone;name;note'];
  const texts = new Map<string, string>();
  for (let n = 0; n < rows; n++) {
    const phone = `+3361${String(first + n).padStart(7, '0')}`;
    const { name, note } = special[n] ?? { name: `Client ${n}`, note: `rendez-vous ${n}` };
    lines.push(`${phone};"${name}";"${note}"`);
    texts.set(phone, `Bonjour ${name}, ${note}`);
  }
  return { csv: `${lines.join('\n')}\n`, texts };
}

describe('a CSV campaign in a real browser', () => {
  let system: TestSystem;
  let browser: Browser;
  let mail: MailCatcher;
  const agents: AgentProcess[] = [];

  beforeAll(async () => {
    // The link mailed at sign-up confirms the address: live keys and phones wait for it.
    mail = await startMailCatcher();
    system = await TestSystem.start({ SMTP_URL: mail.url });
    const spki = new X509Certificate(system.stack.certs.certPem).publicKey.export({ type: 'spki', format: 'der' });
    const pin = createHash('sha256').update(spki).digest('base64');
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${pin}`],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(agents.map((a) => a.kill()));
    await system?.stop();
    await mail?.stop();
  });

  const count = async (page: Page, state: string) => Number(await page.locator(`[data-count="${state}"]`).textContent());

  /** A new account, from the sign-up page, and a live API key made on its keys page. */
  async function signUp(page: Page, email: string): Promise<DemoClient> {
    await page.goto('/signup');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Company or project name').fill('Acme');
    await page.getByLabel(/^Password/).fill('correct horse battery');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.waitForURL('**/keys?welcome=1');
    const clientId = (await page.locator('header .who code').textContent())!.trim();
    const verification = await mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('Confirm'));
    const link = /https:\/\/\S+\/verify-email\?token=[A-Za-z0-9_-]+/.exec(verification.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![0];
    await page.goto(link);
    await page.getByRole('button', { name: 'Confirm the address' }).click();
    await page.locator('.notice.ok').waitFor();
    await page.goto('/keys');
    await page.getByLabel('Name').fill('Server');
    await page.getByLabel('Your password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const apiKey = await page.getByLabel('API key').inputValue();
    return { client_id: clientId, live_api_key: apiKey, test_api_key: '', signing_secret: '' };
  }

  /** A phone added on the Phones page, its simulated agent paired with the QR code's URL, online; its id. */
  async function addPhone(page: Page, name: string): Promise<{ deviceId: string; phone: AgentProcess }> {
    await page.goto('/phones');
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Add a phone' }).click();
    const pairingUrl = (await page.locator('figure.qr').getAttribute('data-qr-payload'))!;
    const dir = `campaign-agent-${agents.length + 1}`;
    const phone = new AgentProcess(
      [
        path.join(REPO_ROOT, 'android-agent/dist/cli.js'),
        ...['--driver', 'simulator', '--hub', system.stack.hubUrl, '--ca', system.stack.certs.caCertFile, '--pairing-url', pairingUrl],
        ...['--data-dir', path.join(system.stack.logDir, dir), '--log-json'],
        ...['--sim-send-delay-ms', '10', '--sim-delivery-delay-ms', '50'],
      ],
      path.join(system.stack.logDir, `${dir}.log`),
    ).start();
    agents.push(phone);
    await page.goto('/phones');
    const row = page.locator('tr[data-device]').filter({ has: page.locator(`input[value="${name}"]`) });
    await row.locator('[data-state]').filter({ hasText: 'online' }).waitFor({ timeout: 20_000 });
    return { deviceId: (await row.getAttribute('data-device'))!, phone };
  }

  /** The phone's pause between two SMS, in milliseconds, set on its limits page. */
  async function setPause(page: Page, deviceId: string, atLeast: number, atMost: number): Promise<void> {
    await page.goto(`/phones/${deviceId}`);
    await page.getByLabel('At least').fill(String(atLeast));
    await page.getByLabel('At most').fill(String(atMost));
    await page.getByRole('button', { name: 'Save the limits' }).click();
    await page.getByText('The limits are saved').waitFor();
  }

  /** Uploads the file, maps `phone` and the template, and opens the preview. */
  async function uploadAndPreview(page: Page, name: string, csv: string, template: string): Promise<void> {
    await page.goto('/campaigns');
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Campaign name').fill(name);
    await page.getByLabel('CSV file').setInputFiles({ name: 'clients.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByLabel('Column of the phone numbers').selectOption('phone');
    await page.getByLabel('Text of the messages').fill(template);
    await page.getByRole('button', { name: 'Preview' }).click();
  }

  /** The client's messages as the public API's history lists them (one page of 100). */
  async function history(client: DemoClient): Promise<Record<string, unknown>[]> {
    const res = await system.api('/v1/sms/history?limit=100', client);
    expect(res.status).toBe(200);
    return res.body.data as Record<string, unknown>[];
  }

  it('when 1,000 rows with bad ones are uploaded, mapped, previewed, sent, paused and resumed, then every good row is delivered once and nothing is sent while paused', async () => {
    const context = await browser.newContext({ baseURL: system.stack.dashboardUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);

    await signUp(page, `campaigns${Date.now()}@example.com`);

    // A phone, paired from its page, fast and without limits.
    const { deviceId, phone: agent } = await addPhone(page, 'Pixel 8');
    // The hub's default pause between two SMS is 2 to 3 s: a short one, so that 980 SMS go out in seconds.
    await setPause(page, deviceId, 5, 10);

    // 1. The file.
    const { csv, good, badLines } = campaignFile();
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Campaign name').fill('Rentrée');
    await page.getByLabel('CSV file').setInputFiles({ name: 'clients.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload' }).click();

    // 2. The mapping, with a template.
    await page.getByText('1000 rows').waitFor();
    await page.getByLabel('Column of the phone numbers').selectOption('phone');
    await page.getByLabel('Text of the messages').fill('Bonjour {{name}}, votre code {{code}}');
    await page.getByRole('button', { name: 'Preview' }).click();

    // 3. The preview: the first messages, and every bad row with its line.
    expect(await page.locator('[data-good]').getAttribute('data-good')).toBe('980');
    expect(await page.locator('#preview tbody tr').count()).toBe(10);
    expect(await page.locator('#preview tbody tr').first().textContent()).toContain('Bonjour Person 1, votre code C1');
    const lines = (await page.locator('#bad-rows tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-line')))).map(
      Number,
    );
    expect(lines).toEqual(badLines);
    expect(await page.locator('#bad-rows tr[data-line="52"]').textContent()).toContain('“name” is empty');
    expect(await page.locator('#bad-rows tr[data-line="2"]').textContent()).toContain('“bad-0” is not a valid');

    // 4. Sent, then paused at once: the held messages stay off the phone.
    await page.getByRole('button', { name: 'Send 980 messages' }).click();
    await page.waitForURL(/\/campaigns\/cmp_/);
    const campaignUrl = page.url();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    // What a phone had taken before the pause goes on: let it finish, then nothing more.
    await new Promise((r) => setTimeout(r, 2000));
    await page.goto(campaignUrl);
    const held = await count(page, 'held');
    expect(held).toBeGreaterThan(0);
    const sentWhilePaused = agent.sent.length;
    await new Promise((r) => setTimeout(r, 3000));
    expect(agent.sent.length).toBe(sentWhilePaused);
    await page.goto(campaignUrl);
    expect(await count(page, 'held')).toBe(held);

    // 5. Resumed: the page's counts follow on their own until every good row is delivered.
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    // One phone takes each SMS in turn (claim, ack, report): about 10 a second here, slower on a loaded machine.
    await page.locator('[data-count="delivered"]').filter({ hasText: /^980$/ }).waitFor({ timeout: 300_000 });
    expect(await count(page, 'held')).toBe(0);
    expect(await count(page, 'failed')).toBe(0);

    await eventually(async () => (agent.sent.length >= 980 ? true : undefined), 10_000);
    expect(agent.sent.length).toBe(980);
    for (const s of agent.sent) {
      expect(good.get(s.to)).toBe(s.text);
      expect(agent.sentCount(s.message_id)).toBe(1);
    }
    expect(new Set(agent.sent.map((s) => s.to)).size).toBe(980);

    await page.getByRole('link', { name: 'Campaigns' }).click();
    expect(await page.locator('#campaigns tbody tr').first().textContent()).toContain('Rentrée');
    await context.close();
  }, 480_000);
  it("when a campaign of 30 is previewed and cancelled while a slow phone sends it, then the preview shows each text's parts and encoding, and the messages not yet taken end cancelled and never reach the phone", async () => {
    const context = await browser.newContext({ baseURL: system.stack.dashboardUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const client = await signUp(page, `cancel${Date.now()}@example.com`);
    const { deviceId, phone } = await addPhone(page, 'Lent');
    // One SMS every 1.5 to 2 s: most of the campaign is still queued when it is cancelled.
    await setPause(page, deviceId, 1500, 2000);

    // (a) Line 2 needs UCS-2 (Ł) in two parts of 67, line 3 stays GSM-7 (é is in its alphabet) in two parts of 153.
    const { csv, texts } = smallCampaignFile(3_000_000, 30, {
      0: { name: 'Łukasz', note: 'votre commande est prête, le livreur passe demain matin entre 8 h et 10 h' },
      2: { name: 'Chloé', note: 'votre rendez-vous est confirmé. '.repeat(5).trim() },
    });
    await uploadAndPreview(page, 'Annulée', csv, 'Bonjour {{name}}, {{note}}');
    expect(await page.locator('[data-good]').getAttribute('data-good')).toBe('30');
    expect(await page.locator('[data-good]').textContent()).toContain('(32 SMS parts)');
    const cells = (n: number) => page.locator('#preview tbody tr').nth(n).locator('td').allTextContents();
    expect(await cells(0)).toEqual(['2', '+33613000000', texts.get('+33613000000'), '2', 'UCS-2']);
    expect(await cells(1)).toEqual(['3', '+33613000001', 'Bonjour Client 1, rendez-vous 1', '1', 'GSM-7']);
    expect(await cells(2)).toEqual(['4', '+33613000002', texts.get('+33613000002'), '2', 'GSM-7']);

    // (b) Sent, then cancelled at once (the page asks first).
    await page.getByRole('button', { name: 'Send 30 messages' }).click();
    await page.waitForURL(/\/campaigns\/cmp_/);
    const campaignUrl = page.url();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page
      .locator('[data-campaign-status]')
      .filter({ hasText: /^cancelled$/ })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(0);

    // What the phone took before the cancel is delivered; the rest stays off the phone.
    const messages = await eventually(
      async () => {
        const all = await history(client);
        return all.length === 30 && all.every((m) => m.status === 'cancelled' || m.status === 'delivered') ? all : undefined;
      },
      20_000,
      'every message cancelled or delivered',
      // Each probe is an API call, counted by the client's 100 a minute.
      500,
    );
    const cancelled = messages.filter((m) => m.status === 'cancelled').map((m) => String(m.message_id));
    const delivered = messages.filter((m) => m.status === 'delivered').map((m) => String(m.message_id));
    expect(cancelled.length).toBeGreaterThanOrEqual(20);
    // Three pauses more: a cancelled message would have reached the phone by now.
    await new Promise((r) => setTimeout(r, 6000));
    expect(phone.sent.map((s) => s.message_id).sort()).toEqual([...delivered].sort());
    for (const id of cancelled) expect(phone.sentCount(id)).toBe(0);
    const one = await system.api(`/v1/sms/status/${cancelled.at(-1)}`, client);
    expect(one.body).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(String) });
    // The stored message has the parts and encoding the preview showed.
    const first = messages.find((m) => m.to === '+33613000000')!;
    expect((await system.api(`/v1/sms/status/${String(first.message_id)}`, client)).body).toMatchObject({ parts: 2, encoding: 'UCS-2' });

    await page.goto(campaignUrl);
    expect(await page.locator('[data-campaign-status]').textContent()).toBe('cancelled');
    expect(await count(page, 'cancelled')).toBe(cancelled.length);
    expect(await count(page, 'delivered')).toBe(delivered.length);
    expect(await count(page, 'queued')).toBe(0);
    await page.goto('/campaigns');
    expect(await page.locator('#campaigns tbody tr').first().locator('.status').textContent()).toBe('cancelled');
    await context.close();
  }, 120_000);

  it('when a campaign of 40 is sent with two phones online, then both phones send some of it and no message is sent twice', async () => {
    const context = await browser.newContext({ baseURL: system.stack.dashboardUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const client = await signUp(page, `spread${Date.now()}@example.com`);
    const a = await addPhone(page, 'Phone A');
    const b = await addPhone(page, 'Phone B');

    const { csv, texts } = smallCampaignFile(4_000_000, 40);
    await uploadAndPreview(page, 'Deux phones', csv, 'Bonjour {{name}}, {{note}}');
    await page.getByRole('button', { name: 'Send 40 messages' }).click();
    await page.waitForURL(/\/campaigns\/cmp_/);
    await page.locator('[data-count="delivered"]').filter({ hasText: /^40$/ }).waitFor({ timeout: 60_000 });
    expect(await count(page, 'failed')).toBe(0);

    const sent = [...a.phone.sent, ...b.phone.sent];
    expect(a.phone.sent.length).toBeGreaterThan(0);
    expect(b.phone.sent.length).toBeGreaterThan(0);
    expect(sent).toHaveLength(40);
    expect(new Set(sent.map((s) => s.message_id)).size).toBe(40);
    for (const s of sent) expect(texts.get(s.to)).toBe(s.text);
    // The API says which phone sent each: the one that did.
    const byDevice = new Map((await history(client)).map((m) => [String(m.message_id), String(m.device_id)]));
    for (const s of a.phone.sent) expect(byDevice.get(s.message_id)).toBe(a.deviceId);
    for (const s of b.phone.sent) expect(byDevice.get(s.message_id)).toBe(b.deviceId);
    await context.close();
  }, 120_000);
});
