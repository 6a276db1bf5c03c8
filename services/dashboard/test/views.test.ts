import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRedis, type Redis } from '@smsgw/platform';
import { escapeHtml, html, trusted } from '../src/views/html';
import { apkInfo } from '../src/use-cases/phones.use-case';
import { APK_PATH, installSection } from '../src/views/phones.view';
import { SessionStore } from '../src/http/session';
import { dayChart } from '../src/views/chart';
import { ALL_DESTINATIONS, AUDIT_ACTIONS } from '@smsgw/platform';
import { destinationsSection } from '../src/views/destinations.view';
import { copyable, layout } from '../src/views/layout';
import { otpView } from '../src/views/otp.view';
import { auditView } from '../src/views/audit.view';

describe('pages', () => {
  it('when text from a user or a service is put in a page, then it is escaped, and only markup the server made is not', () => {
    const hostile = `<script>alert("x")</script>' onload='`;
    expect(html`<p title="${hostile}">${hostile}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;</p>',
    );
    expect(html`<div>${trusted('<svg></svg>')}${[html`<b>${'<i>'}</b>`, 'a&b']}</div>`.value).toBe(
      '<div><svg></svg><b>&lt;i&gt;</b>a&amp;b</div>',
    );
    expect(copyable('Key', '"><img src=x>', 'k').value).toContain('value="&quot;&gt;&lt;img src=x&gt;"');
  });

  it('when text is escaped, then the five characters that open markup or close an attribute become entities, and nothing else changes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp; é ☀️</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp; é ☀️&lt;/a&gt;',
    );
    expect(escapeHtml('plain text, 2026-11-22')).toBe('plain text, 2026-11-22');
    expect(escapeHtml('')).toBe('');
  });

  it('when a page is laid out, then it has a language, a viewport, its two scripts and one stylesheet of this origin, and no inline script', () => {
    const page = layout('Phones', { user: { email: 'a@example.com', clientId: 'client_1' }, csrf: 't', section: 'phones' }, html`<p>x</p>`);
    expect(page).toMatch(/<html lang="en">/);
    expect(page).toContain('name="viewport"');
    expect(page.match(/<script/g)).toHaveLength(2);
    expect(page).toContain('<script src="/static/envelope.js" defer></script>');
    expect(page).toContain('<script src="/static/app.js" defer></script>');
    expect(page).toContain('href="/phones" aria-current="page"');
    expect(page).toContain('name="_csrf" value="t"');
  });

  it('when days are charted, then each day has a titled bar per series scaled to the largest value', () => {
    const svg = dayChart([
      { date: '2026-11-22', sent: 4, delivered: 3, failed: 1 },
      { date: '2026-11-23', sent: 2, delivered: 2, failed: 0 },
    ]);
    expect(svg.match(/<rect /g)).toHaveLength(6);
    expect(svg).toContain('<title>2026-11-22: 3 delivered</title>');
    expect(svg).toContain('6 sent over 2 days');
  });

  it('when the OTP page is drawn, then its figures, a sent and a verified bar per day, its countries and a release form per live hold are there, escaped', () => {
    const page = otpView({
      csrf: 't',
      mode: 'live',
      days: 30,
      stats: {
        from: '2026-11-01T00:00:00.000Z',
        to: '2026-11-30T23:59:59.999Z',
        sent: 5,
        verified: 2,
        expired: 3,
        failedAttempts: 1,
        conversionRate: 40,
        byDay: [{ date: '2026-11-29', sent: 5, verified: 2 }],
        byCountry: [{ country: 'FR', sent: 5, verified: 2 }],
      },
      holds: [
        {
          holdId: 'hold_1',
          clientId: 'client_1',
          mode: 'MODE_LIVE',
          scope: 'prefix',
          prefix: '+3361234<b>',
          country: 'FR',
          requests: 20,
          verified: 0,
          windowSeconds: 3600,
          heldAt: '2026-11-29T10:00:00.000Z',
          heldUntil: '2026-11-29T11:00:00.000Z',
          releasedAt: '',
          active: true,
        },
      ],
      guard: {
        clientId: 'client_1',
        enabled: true,
        windowSeconds: 3600,
        prefixMinRequests: 20,
        prefixMinConversion: 20,
        countryMinRequests: 200,
        countryMinConversion: 10,
        endUserLimit: 5,
        endUserWindowSeconds: 3600,
        defaults: true,
      },
    }).value;
    expect(page).toContain('data-stat="conversion">40.00 %');
    expect(page.match(/class="bar (sent|verified)"/g)).toHaveLength(2);
    expect(page).toContain('<title>2026-11-29: 2 verified</title>');
    expect(page).toContain('data-country="FR"');
    expect(page).toContain('action="/otp/holds/hold_1/release"');
    expect(page).toContain('+3361234&lt;b&gt;');
    expect(page).not.toContain('+3361234<b>');
  });

  it('when the destinations card is drawn, then empty lists read every country and allowed types are ticked', () => {
    const card = destinationsSection(html``, { ...ALL_DESTINATIONS, otpCountries: ['FR'], otpNumberTypes: ['TOLL_FREE'] }).value;
    expect(card).toContain('messages to <strong data-now="sms_countries">every country</strong>');
    expect(card).toContain('<strong data-now="otp_countries">FR</strong>');
    expect(card).toMatch(/value="TOLL_FREE" checked/);
    expect(card).not.toMatch(/value="PREMIUM_RATE" checked/);
  });

  it('when the audit log is drawn, then every action has its words in the filter, and an SMPP credential made is one of them', () => {
    const page = auditView(
      [
        {
          eventId: '7',
          at: '2026-11-29T07:00:00Z',
          actor: 'owner@example.com',
          address: '127.0.0.1',
          action: 'smpp.created',
          target: 'smpp_1',
          detailsJson: '{}',
        },
      ],
      {},
    ).value;
    const options = [...page.matchAll(/<option value="([^"]+)" >([^<]*)<\/option>/g)];
    expect(options.map(([, action]) => action)).toEqual([...AUDIT_ACTIONS]);
    for (const [, action, words] of options) expect([action, words]).toEqual([action, expect.stringMatching(/^[A-Za-z]/)]);
    expect(page).toContain('<option value="smpp.revoked" >SMPP credential revoked</option>');
    expect(page).toContain('<td>SMPP credential created</td>');
  });
});

describe("the Phones page's app download", () => {
  it('when the APK is built, then the page links it with its size and digest, a QR code of its address, and the install steps', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apk-'));
    try {
      const file = path.join(dir, 'smsgw-agent.apk');
      const bytes = randomBytes(150 * 1024);
      fs.writeFileSync(file, bytes);
      const info = apkInfo(file)!;
      expect(info).toEqual({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
      const section = (await installSection(info, `https://dash.example.com${APK_PATH}`)).value;
      expect(section).toContain(`<a href="${APK_PATH}" download>`);
      expect(section).toContain('150 KB');
      expect(section).toContain(info.sha256);
      expect(section).toContain('data-qr-payload="https://dash.example.com/downloads/smsgw-agent.apk"');
      expect(section).toMatch(/<svg[^>]*>/);
      expect(section).toContain('Install anyway');
      expect(section).toContain('Scan the QR code');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when no APK is built, then the page says how to get one and links nothing', async () => {
    expect(apkInfo(undefined)).toBeUndefined();
    expect(apkInfo('/nonexistent/smsgw-agent.apk')).toBeUndefined();
    const section = (await installSection(undefined, 'https://x')).value;
    expect(section).toContain('make apk');
    expect(section).not.toContain(APK_PATH);
  });
});

describe('sessions in Redis', () => {
  let redis: Redis;
  const prefix = `smsgw:t${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    redis = createRedis({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', keyPrefix: prefix, name: 'dashboard-test' });
    await redis.connect();
  });
  afterAll(async () => {
    const keys = await redis.keys('*');
    if (keys.length) await redis.del(...keys.map((k) => k.slice(prefix.length)));
    redis.disconnect();
  });

  it('when a session is made, found, and the user changes the password elsewhere, then only the current session survives; a signed-out one is gone', async () => {
    const store = new SessionStore(redis, { idleMs: 60_000, lifetimeMs: 60_000 });
    const user = { userId: 'usr_1', clientId: 'client_1', email: 'a@example.com' };
    const a = await store.create(user);
    const b = await store.create(user);
    expect(await store.get(a.token)).toMatchObject({ ...user, csrf: a.session.csrf });
    expect(a.session.csrf).not.toBe(b.session.csrf);
    await store.endOthers(user.userId, b.token);
    expect(await store.get(a.token)).toBeUndefined();
    expect(await store.get(b.token)).toBeDefined();
    await store.end(b.token);
    expect(await store.get(b.token)).toBeUndefined();
    expect(await store.get('x'.repeat(200))).toBeUndefined();
  });

  it('when a session is idle longer than its limit, then it is gone', async () => {
    const store = new SessionStore(redis, { idleMs: 200, lifetimeMs: 60_000 });
    const { token } = await store.create({ userId: 'usr_2', clientId: 'client_2', email: 'b@example.com' });
    await new Promise((r) => setTimeout(r, 300));
    expect(await store.get(token)).toBeUndefined();
  });
});
