import { createHash, X509Certificate } from 'node:crypto';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from '@smsgw/stack';
import { AgentProcess } from './support/agent';
import { eventually } from './support/http';
import { TestSystem } from './support/system';

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

describe('a CSV campaign in a real browser', () => {
  let system: TestSystem;
  let browser: Browser;
  let agent: AgentProcess | undefined;

  beforeAll(async () => {
    system = await TestSystem.start();
    const spki = new X509Certificate(system.stack.certs.certPem).publicKey.export({ type: 'spki', format: 'der' });
    const pin = createHash('sha256').update(spki).digest('base64');
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${pin}`],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await agent?.kill();
    await system?.stop();
  });

  const count = async (page: Page, state: string) => Number(await page.locator(`[data-count="${state}"]`).textContent());

  it('when 1,000 rows with bad ones are uploaded, mapped, previewed, sent, paused and resumed, then every good row is delivered once and nothing is sent while paused', async () => {
    const context = await browser.newContext({ baseURL: system.stack.dashboardUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);

    await page.goto('/signup');
    await page.getByLabel('E-mail').fill(`campaigns${Date.now()}@example.com`);
    await page.getByLabel('Company or project name').fill('Acme');
    await page.getByLabel(/^Password/).fill('correct horse battery');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.waitForURL('**/keys?welcome=1');

    // A phone, paired from its page, fast and without limits.
    await page.getByRole('link', { name: 'Phones' }).click();
    await page.getByLabel('Name').fill('Pixel 8');
    await page.getByRole('button', { name: 'Add a phone' }).click();
    const pairingUrl = (await page.locator('figure.qr').getAttribute('data-qr-payload'))!;
    agent = new AgentProcess(
      [
        path.join(REPO_ROOT, 'android-agent/dist/cli.js'),
        ...['--driver', 'simulator', '--hub', system.stack.hubUrl, '--ca', system.stack.certs.caCertFile, '--pairing-url', pairingUrl],
        ...['--data-dir', path.join(system.stack.logDir, 'campaign-agent'), '--log-json'],
        ...['--sim-send-delay-ms', '10', '--sim-delivery-delay-ms', '50'],
      ],
      path.join(system.stack.logDir, 'campaign-agent.log'),
    ).start();
    await page.goto('/phones');
    await page.locator('tr[data-device] [data-state]').filter({ hasText: 'online' }).waitFor({ timeout: 20_000 });
    // The hub's default pause between two SMS is 2 to 3 s: a short one, so that 980 SMS go out in seconds.
    await page.locator('a[data-limits]').first().click();
    await page.getByLabel('At least').fill('5');
    await page.getByLabel('At most').fill('10');
    await page.getByRole('button', { name: 'Save the limits' }).click();
    await page.getByText('The limits are saved').waitFor();

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

    await eventually(async () => (agent!.sent.length >= 980 ? true : undefined), 10_000);
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
});
