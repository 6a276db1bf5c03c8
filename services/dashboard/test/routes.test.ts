import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool, keyUsageKey, utcDay, type Pool } from '@smsgw/platform';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '@smsgw/stack';
import { DATABASE_URL, randomHex, type Sandbox } from '@smsgw/testing';
import {
  Browser,
  dashboardSandbox,
  pairWith,
  postForm,
  startDashboard,
  startUpstreams,
  type DashboardUnderTest,
  type Upstreams,
} from './support/harness';

const PASSWORD = 'a long enough password';
const LIVE_STREAMS = 3;
const WRONG_PASSWORD = 'Your password is wrong: nothing was changed.';
const HOSTILE = '<img src=x onerror=alert(1)>';
const ESCAPED = '&lt;img src=x onerror=alert(1)&gt;';

/** The token of a mailed link (`/verify-email` or `/reset-password`), its quoted-printable soft breaks undone. */
function linkToken(mail: CaughtMail, route: string): string {
  const text = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  return new RegExp(`${route}\\?token=([A-Za-z0-9_-]+)`).exec(text)![1]!;
}

/** The ids of the forms posting to `/<kind>/<id>/<action>` on a page. */
const idsIn = (text: string, kind: string, action: string) =>
  [...text.matchAll(new RegExp(`action="/${kind}/([^/"]+)/${action}"`, 'g'))].map((m) => m[1]!);

/**
 * Every route of the dashboard, through real HTTP, with the real account,
 * message, device-hub and webhook services behind it: what a person sees
 * (status, redirect, the page's words), refusals without a session or a
 * CSRF token, and what they typed given back escaped.
 */
describe('the dashboard routes, with the real services behind them', () => {
  const apkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-dashboard-apk-'));
  const apkFile = path.join(apkDir, 'smsgw-agent.apk');
  let sandbox: Sandbox;
  let upstreams: Upstreams;
  let dashboard: DashboardUnderTest;
  let base: string;
  let mail: MailCatcher;
  let accountDb: Pool;

  beforeAll(async () => {
    fs.writeFileSync(apkFile, Buffer.from('PK\u0003\u0004 not really an APK'));
    sandbox = await dashboardSandbox();
    upstreams = await startUpstreams(sandbox);
    mail = await startMailCatcher();
    accountDb = createPool({ url: DATABASE_URL, schema: upstreams.accountSchema, max: 2 });
    dashboard = await startDashboard(
      { ...upstreams.env, AGENT_APK_FILE: apkFile, SMTP_URL: mail.url, DASHBOARD_LIVE_STREAMS_MAX: String(LIVE_STREAMS) },
      sandbox,
    );
    base = dashboard.base;
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
    await mail?.stop();
    await accountDb?.end();
    await upstreams?.stop();
    await sandbox?.cleanUp();
    fs.rmSync(apkDir, { recursive: true, force: true });
  });

  /** The link mailed to `email` at sign-up used, as its owner does: the account is verified. */
  async function confirmAddress(email: string): Promise<void> {
    const sent = await mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('Confirm'));
    const anyone = new Browser(base);
    await anyone.get('/verify-email');
    expect((await anyone.post('/verify-email', { token: linkToken(sent, '/verify-email') })).text).toContain('Your address is confirmed');
  }

  /** A new account, signed in in a browser of its own; its address confirmed unless `verified` is false. */
  async function signedUp(name = 'Boulangerie Martin', { verified = true } = {}): Promise<{ browser: Browser; email: string }> {
    const browser = new Browser(base);
    const email = `owner-${randomHex(4)}@example.com`;
    await browser.get('/signup');
    const res = await browser.post('/signup', { email, name, password: PASSWORD });
    expect([res.status, res.location]).toEqual([302, '/keys?welcome=1']);
    if (verified) await confirmAddress(email);
    return { browser, email };
  }

  describe('without a session', () => {
    it('when the sign-up and sign-in pages are asked for, then they answer 200 with a form and its token cookie', async () => {
      const browser = new Browser(base);
      for (const page of ['/signup', '/signin']) {
        const res = await browser.get(page);
        expect(res.status).toBe(200);
        expect(res.text).toContain(`action="${page}`);
        expect(res.text).toMatch(/name="_csrf" value="[^"]+"/);
      }
    });

    it('when a private page is asked for, then it redirects to sign-in with the page to come back to; its live events and its forms answer 401', async () => {
      const browser = new Browser(base);
      for (const page of [
        '/',
        '/keys',
        '/settings',
        '/phones',
        '/webhooks',
        '/webhooks/whe_1',
        '/messages',
        '/messages/msg_1',
        '/stats',
        '/audit',
      ]) {
        const res = await browser.get(page);
        expect([page, res.status, res.location]).toEqual([page, 302, `/signin?next=${encodeURIComponent(page)}`]);
      }
      expect((await browser.get('/phones/events')).status).toBe(401);
      await browser.get('/signin');
      for (const page of ['/keys', '/phones', '/webhooks', '/signout', '/settings/secret/rotate']) {
        expect([page, (await browser.post(page, { name: 'x' })).status]).toEqual([page, 401]);
      }
    });

    it('when a form comes without the token of its cookie, then it is refused with 403 and nothing is created', async () => {
      const email = `owner-${randomHex(4)}@example.com`;
      const browser = new Browser(base);
      await browser.get('/signup');

      const forged = await browser.post('/signup', { _csrf: 'forged', email, name: 'Acme', password: PASSWORD });
      const noCookie = await postForm(base, '/signup', { _csrf: 'forged', email, name: 'Acme', password: PASSWORD });

      expect(forged.status).toBe(403);
      expect(forged.text).toContain('This form expired or did not come from this site.');
      expect(noCookie.status).toBe(403);
      await browser.get('/signin');
      expect((await browser.post('/signin', { email, password: PASSWORD })).status).toBe(401);
    });

    it('when the phone app is downloaded, then the APK comes with its type, name and digest', async () => {
      const res = await fetch(`${base}/downloads/smsgw-agent.apk`, { headers: { 'x-forwarded-proto': 'https' } });

      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/vnd.android.package-archive');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="smsgw-agent.apk"');
      expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(fs.readFileSync(apkFile));
    });
  });

  describe('sign-up, sign-in and sign-out', () => {
    it('when an account is created, then the browser is signed in and lands on its keys with a welcome', async () => {
      const { browser } = await signedUp();

      const keys = await browser.get('/keys?welcome=1');

      expect(keys.status).toBe(200);
      expect(keys.text).toContain('Your account is ready.');
      expect(browser.session).toBeDefined();
    });

    it('when an e-mail is already taken or a field is wrong, then sign-up answers 400 with the reason and the e-mail typed', async () => {
      const { email } = await signedUp();
      const browser = new Browser(base);
      await browser.get('/signup');

      const taken = await browser.post('/signup', { email, name: 'Other', password: PASSWORD });
      const short = await browser.post('/signup', { email: `x-${email}`, name: 'Other', password: 'short' });

      expect(taken.status).toBeGreaterThanOrEqual(400);
      expect(taken.text).toContain(`value="${email}"`);
      expect(short.status).toBe(400);
      expect(browser.session).toBeUndefined();
    });

    it('when the password is wrong, then sign-in answers 401; when right, then it follows a local next and never another site', async () => {
      const { email } = await signedUp();
      const browser = new Browser(base);
      await browser.get('/signin');

      const wrong = await browser.post('/signin', { email, password: 'not the password' });
      await browser.get('/signin?next=/webhooks');
      const local = await browser.post('/signin?next=/webhooks', { email, password: PASSWORD });
      const other = new Browser(base);
      await other.get('/signin');
      const away = await other.post('/signin?next=//evil.example/x', { email, password: PASSWORD });

      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('Wrong e-mail or password.');
      expect([local.status, local.location]).toEqual([302, '/webhooks']);
      expect([away.status, away.location]).toEqual([302, '/']);
    });

    it('when the owner signs out, then the session ends and the pages ask to sign in again', async () => {
      const { browser } = await signedUp();
      await browser.get('/');

      const out = await browser.post('/signout');

      expect([out.status, out.location]).toEqual([302, '/signin']);
      expect(browser.session).toBeUndefined();
      expect((await browser.get('/')).location).toBe('/signin?next=%2F');
    });
  });

  describe('signed in', () => {
    it('when the overview is asked for, then it shows the figures and the links to keys and phones', async () => {
      const { browser } = await signedUp();

      const res = await browser.get('/');

      expect(res.status).toBe(200);
      expect(res.text).toContain('Phones online');
      expect(res.text).toContain('0 / 0');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    });

    it('when a page does not exist, then it answers 404 in words', async () => {
      const { browser } = await signedUp();

      const res = await browser.get('/nowhere');

      expect(res.status).toBe(404);
      expect(res.text).toContain('This page does not exist, or it is not yours.');
    });

    it('when a key is made, then it needs a name and the password, is shown once with its name escaped, and can be revoked', async () => {
      const { browser } = await signedUp();
      await browser.get('/keys');

      const noName = await browser.post('/keys', { name: '', mode: 'live', password: PASSWORD });
      const wrong = await browser.post('/keys', { name: 'server', mode: 'live', password: 'wrong password!' });
      const made = await browser.post('/keys', { name: HOSTILE, mode: 'test', password: PASSWORD });

      expect(noName.text).toContain('Give the key a name, to recognise it later.');
      expect(wrong.text).toContain(WRONG_PASSWORD);
      expect(made.status).toBe(200);
      expect(made.text).toMatch(/sgw_test_[A-Za-z0-9]{40}/);
      expect(made.text).toContain(ESCAPED);
      expect(made.text).not.toContain(HOSTILE);
      const before = idsIn(made.text, 'keys', 'revoke');
      expect(before).toHaveLength(3);

      const revoked = await browser.post(`/keys/${before[0]}/revoke`);
      expect([revoked.status, revoked.location]).toEqual([302, '/keys']);
      expect(idsIn((await browser.get('/keys')).text, 'keys', 'revoke')).toHaveLength(2);
    });

    it('when a key is made with scopes, ranges and a quota, then the list shows them, its creator and its SMS of the day against the quota; limits refused make nothing', async () => {
      const { browser, email } = await signedUp();
      await browser.get('/keys');

      const made = await browser.post('/keys', {
        name: 'reporting',
        mode: 'test',
        scopes: ['send', 'read'],
        ip_ranges: '10.1.2.3/8, 2001:DB8::/32',
        daily_quota: '100',
        password: PASSWORD,
      });
      const badRange = await browser.post('/keys', { name: 'x', mode: 'test', ip_ranges: 'nope', password: PASSWORD });
      const badQuota = await browser.post('/keys', { name: 'y', mode: 'test', daily_quota: 'lots', password: PASSWORD });

      expect(made.text).toMatch(/sgw_test_[A-Za-z0-9]{40}/);
      const [id] = idsIn(made.text, 'keys', 'revoke');
      const row = (text: string) => text.slice(text.indexOf('<td>reporting</td>'), text.indexOf(`/keys/${id}/revoke`));
      expect(row(made.text)).toContain('send, read');
      expect(row(made.text)).toContain('<code>10.0.0.0/8</code>');
      expect(row(made.text)).toContain('<code>2001:db8::/32</code>');
      expect(row(made.text)).toContain('0 / 100');
      expect(row(made.text)).toContain(email);
      expect(badRange.text).toContain('Plages d&#39;adresses invalides : nope');
      expect(badRange.text).toContain('value="nope"');
      expect(badQuota.text).toContain('The daily quota is a whole number of SMS (empty: no quota).');
      expect(idsIn(badQuota.text, 'keys', 'revoke')).toHaveLength(3);

      // The gateways' count of the day for this key: the page shows it against the quota.
      await dashboard.redis.set(keyUsageKey(id!, utcDay(new Date())), '100');
      const page = await browser.get('/keys');
      expect(row(page.text)).toContain('100 / 100');
      expect(row(page.text)).toContain('quota reached');
      // The keys made at sign-up: every scope, any address, no quota, made by the owner.
      expect(page.text).toContain('every scope');
      expect(page.text).toContain('(no quota)');
    });

    it('when keys are made and revoked, then the audit log shows each with its user and address, newest first, filters it and exports it as CSV', async () => {
      const { browser, email } = await signedUp();
      await browser.get('/keys');
      const made = await browser.post('/keys', { name: 'audited', mode: 'test', scopes: ['read'], password: PASSWORD });
      const [id] = idsIn(made.text, 'keys', 'revoke');
      await browser.post(`/keys/${id}/revoke`);

      const log = await browser.get('/audit');
      const createdOnly = await browser.get('/audit?action=key.created');
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const later = await browser.get(`/audit?from=${tomorrow}`);
      const csv = await browser.get('/audit.csv');

      expect(log.status).toBe(200);
      const rows = log.text.slice(log.text.indexOf('<tbody>'));
      expect(rows.indexOf('key revoked')).toBeLessThan(rows.indexOf('key created'));
      expect(rows).toContain(email);
      expect(rows).toContain(`<code>${id}</code>`);
      expect(rows).toContain('&quot;audited&quot; · test · scopes read');
      expect(rows).toMatch(/<code>[0-9a-f.:]+<\/code>/);
      expect(createdOnly.text.slice(createdOnly.text.indexOf('<tbody>'))).not.toContain('key revoked');
      expect(later.text).toContain('Nothing recorded for these filters.');
      expect(csv.status).toBe(200);
      const lines = csv.text.trimEnd().split('\r\n');
      expect(lines[0]).toBe('at,actor,address,action,target,details');
      expect(lines.slice(1, 3).map((l) => l.split(',').slice(1, 5).join(','))).toEqual([
        expect.stringMatching(new RegExp(`^${email.replace(/[.]/g, '\\.')},[0-9a-f.:]+,key.revoked,${id}$`)),
        expect.stringMatching(new RegExp(`^${email.replace(/[.]/g, '\\.')},[0-9a-f.:]+,key.created,${id}$`)),
      ]);
      // Then the two keys made with the account at sign-up.
      expect(lines.slice(3).map((l) => l.split(',')[3])).toEqual(['key.created', 'key.created']);
    });

    it('when an owner signs in, pairs and removes a phone, makes and changes an endpoint, changes a setting, shows and rotates the secret and makes and revokes a key, then the audit log holds each action with its actor, in order', async () => {
      const { browser, email } = await signedUp();
      const elsewhere = new Browser(base);
      await elsewhere.get('/signin');
      expect((await elsewhere.post('/signin', { email, password: 'not the password' })).status).toBe(401);
      expect((await elsewhere.post('/signin', { email, password: PASSWORD })).status).toBe(302);

      await browser.get('/phones');
      const [deviceId] = idsIn((await browser.post('/phones', { name: 'Audited phone' })).text, 'phones', 'rename');
      await browser.post(`/phones/${deviceId}/remove`);
      await browser.get('/webhooks');
      const created = await browser.post('/webhooks', { url: 'https://127.0.0.1:9/audited', mode: 'live', events: ['sms.sent'] });
      const [endpointId] = idsIn(created.text, 'webhooks', 'test');
      await browser.post(`/webhooks/${endpointId}/disable`);
      await browser.get('/settings');
      await browser.post('/settings/alerts', { email: 'audited-alerts@example.com', password: PASSWORD });
      await browser.post('/settings/secret', { password: PASSWORD });
      await browser.post('/settings/secret/rotate', { password: PASSWORD });
      await browser.get('/keys');
      const [keyId] = idsIn((await browser.post('/keys', { name: 'audited', mode: 'test', password: PASSWORD })).text, 'keys', 'revoke');
      await browser.post(`/keys/${keyId}/revoke`);

      const csv = await browser.get('/audit.csv');
      expect(csv.status).toBe(200);
      // Oldest first; the keys made at sign-up left out.
      const rows = csv.text
        .trimEnd()
        .split('\r\n')
        .slice(1)
        .reverse()
        .map((line) => line.split(','))
        .map(([, actor, address, action, target]) => ({ actor, address, action, target }))
        .filter((r) => !(r.action === 'key.created' && r.target !== keyId));
      expect(rows.map((r) => [r.action, r.actor, r.target])).toEqual([
        ['user.sign_in_failed', email, email],
        ['user.signed_in', email, email],
        ['phone.added', email, deviceId],
        ['phone.removed', email, deviceId],
        ['webhook.created', email, endpointId],
        ['webhook.changed', email, endpointId],
        ['settings.changed', email, expect.stringMatching(/^client_/)],
        ['secret.shown', email, expect.stringMatching(/^client_/)],
        ['secret.rotated', email, expect.stringMatching(/^client_/)],
        ['key.created', email, keyId],
        ['key.revoked', email, keyId],
      ]);
      // Where each came from, as the dashboard saw it.
      for (const r of rows) expect(r.address).toMatch(/^[0-9a-f.:]+$/);
    });

    it('when the settings are used, then the secret needs the password, rotates, the alert address changes and the password changes with the current one only', async () => {
      const { browser, email } = await signedUp();
      const elsewhere = new Browser(base);
      await elsewhere.get('/signin');
      await elsewhere.post('/signin', { email, password: PASSWORD });
      expect((await browser.get('/settings')).status).toBe(200);

      const refused = await browser.post('/settings/secret', { password: 'wrong password!' });
      const secret = await browser.post('/settings/secret', { password: PASSWORD });
      const rotated = await browser.post('/settings/secret/rotate', { password: PASSWORD });
      const alerts = await browser.post('/settings/alerts', { email: 'alerts@example.com', password: PASSWORD });
      const badCurrent = await browser.post('/settings/password', { current: 'not it at all', new: 'another long password' });
      const changed = await browser.post('/settings/password', { current: PASSWORD, new: 'another long password' });

      expect(refused.text).toContain(WRONG_PASSWORD);
      const shown = /whsec_[A-Za-z0-9_-]+/.exec(secret.text)?.[0];
      expect(shown).toBeDefined();
      expect(rotated.text).toContain('The signing secret was rotated.');
      expect(rotated.text).not.toContain(shown);
      expect(alerts.text).toContain('Alert e-mails go to the new address once you confirm it');
      expect(alerts.text).toContain('alerts@example.com');
      expect(badCurrent.text).toContain('The current password is wrong.');
      expect(changed.text).toContain('Password changed. Your other sessions were signed out.');
      expect((await elsewhere.get('/')).status).toBe(302);
      expect((await browser.get('/')).status).toBe(200);
    });

    it('when a phone is added, renamed and removed, then the pages show it with its pairing card, its name escaped, and then no more', async () => {
      const { browser } = await signedUp();
      expect((await browser.get('/phones')).status).toBe(200);

      const noName = await browser.post('/phones', { name: '' });
      const added = await browser.post('/phones', { name: HOSTILE });
      const [deviceId] = idsIn(added.text, 'phones', 'rename');
      const emptyRename = await browser.post(`/phones/${deviceId}/rename`, { name: '' });
      const renamed = await browser.post(`/phones/${deviceId}/rename`, { name: 'Kitchen phone' });
      const listed = await browser.get('/phones');
      const removed = await browser.post(`/phones/${deviceId}/remove`);

      expect(noName.text).toContain('Give the phone a name.');
      expect(added.text).toContain('Pairing QR code');
      expect(added.text).toContain(ESCAPED);
      expect(added.text).not.toContain(HOSTILE);
      expect(emptyRename.status).toBe(400);
      expect(emptyRename.text).toContain('A phone needs a name.');
      expect([renamed.status, renamed.location]).toEqual([302, '/phones']);
      expect(listed.text).toContain('Kitchen phone');
      expect([removed.status, removed.location]).toEqual([302, '/phones']);
      expect(idsIn((await browser.get('/phones')).text, 'phones', 'rename')).toEqual([]);
    });

    it("when a phone's credentials are revoked, then the form needs its token, the page says so and its pairing code no longer pairs; another account's phone is 404 and keeps its own", async () => {
      const { browser } = await signedUp();
      await browser.get('/phones');
      const keptCard = await browser.post('/phones', { name: 'Kept phone' });
      const [keptId] = idsIn(keptCard.text, 'phones', 'revoke');
      const revokedCard = await browser.post('/phones', { name: 'Lost phone' });
      const revokedId = idsIn(revokedCard.text, 'phones', 'revoke').find((id) => id !== keptId)!;
      const pairingUrl = (text: string) => /data-qr-payload="([^"]+)"/.exec(text)![1]!;
      const { browser: intruder } = await signedUp();
      await intruder.get('/phones');

      const notTheirs = await intruder.post(`/phones/${keptId}/revoke`);
      const forged = await browser.post(`/phones/${keptId}/revoke`, { _csrf: 'forged' });
      const revoked = await browser.post(`/phones/${revokedId}/revoke`);

      expect(notTheirs.status).toBe(404);
      expect(notTheirs.text).toContain('This page does not exist, or it is not yours.');
      expect(forged.status).toBe(403);
      expect(revoked.status).toBe(200);
      expect(revoked.text).toContain(
        'The phone is disconnected and its password, pairing code and tokens no longer work. Give it a new pairing to use it again.',
      );
      // The hub revoked the owner's phone it was asked for, and nothing else.
      expect((await pairWith(pairingUrl(revokedCard.text), upstreams.agentCaPem)).status).toBe(401);
      const kept = await pairWith(pairingUrl(keptCard.text), upstreams.agentCaPem);
      expect([kept.status, kept.body.device_id]).toEqual([200, keptId]);
    });

    it('when the live phone states are opened, then they come as server-sent events, first the state of each phone now', async () => {
      const { browser } = await signedUp();
      await browser.get('/phones');
      const [deviceId] = idsIn((await browser.post('/phones', { name: 'Live phone' })).text, 'phones', 'rename');

      const res = await browser.get('/phones/events');

      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.text).toContain('retry: 2000');
      // A phone that came online or went between the page's reading and the stream is shown as it is.
      expect(res.text).toContain(`event: device\ndata: ${JSON.stringify({ device_id: deviceId, status: 'offline', at: '' })}\n\n`);
    });

    it('when a webhook endpoint is made, tested, disabled, enabled, replayed and deleted, then each step answers as a person expects', async () => {
      const { browser } = await signedUp();
      expect((await browser.get('/webhooks')).status).toBe(200);

      const noEvents = await browser.post('/webhooks', { url: 'https://127.0.0.1:9/hook', mode: 'live' });
      const plain = await browser.post('/webhooks', { url: 'http://127.0.0.1:9/hook', mode: 'live', events: ['sms.sent'] });
      const created = await browser.post('/webhooks', {
        url: 'https://127.0.0.1:9/hook',
        mode: 'live',
        events: ['sms.sent', 'sms.failed'],
      });
      const [endpointId] = idsIn(created.text, 'webhooks', 'test');
      const tested = await browser.post(`/webhooks/${endpointId}/test`, { event: 'sms.sent' });
      const eventId = new URL(tested.location, base).searchParams.get('sent')!;
      const log = await browser.get(tested.location);
      const disabled = await browser.post(`/webhooks/${endpointId}/disable`);
      const whileDisabled = await browser.get('/webhooks');
      const enabled = await browser.post(`/webhooks/${endpointId}/enable`);
      await browser.get(`/webhooks/${endpointId}`);
      const replayed = await browser.post(`/webhooks/${endpointId}/replay`, { event_id: eventId });
      const deleted = await browser.post(`/webhooks/${endpointId}/delete`);

      expect(noEvents.text).toContain('Choose at least one kind of event.');
      expect(plain.text).toContain('the URL must be HTTPS');
      expect(created.text).toMatch(/whsec_[A-Za-z0-9_-]+/);
      expect([tested.status, tested.location]).toEqual([302, `/webhooks/${endpointId}?sent=${eventId}`]);
      expect(eventId).toMatch(/^evt_/);
      expect(log.status).toBe(200);
      expect(log.text).toContain(eventId);
      expect([disabled.status, disabled.location]).toEqual([302, '/webhooks']);
      expect(idsIn(whileDisabled.text, 'webhooks', 'enable')).toEqual([endpointId]);
      expect([enabled.status, enabled.location]).toEqual([302, '/webhooks']);
      expect([replayed.status, replayed.location]).toEqual([302, `/webhooks/${endpointId}?replayed=${eventId}`]);
      expect([deleted.status, deleted.location]).toEqual([302, '/webhooks']);
      expect(idsIn((await browser.get('/webhooks')).text, 'webhooks', 'test')).toEqual([]);
    });

    it('when an endpoint is made to send in batches, then the list shows it, and it switches to one event a POST and back; another account cannot switch it', async () => {
      const { browser } = await signedUp();
      await browser.get('/webhooks');

      const created = await browser.post('/webhooks', { url: 'https://127.0.0.1:9/hook', mode: 'live', events: ['sms.sent'], batch: 'on' });
      const [endpointId] = idsIn(created.text, 'webhooks', 'single');
      const toSingle = await browser.post(`/webhooks/${endpointId}/single`);
      const whileSingle = await browser.get('/webhooks');
      const toBatch = await browser.post(`/webhooks/${endpointId}/batch`);
      const { browser: intruder } = await signedUp();
      await intruder.get('/webhooks');
      const intruded = await intruder.post(`/webhooks/${endpointId}/single`);
      const unbatched = await browser.post('/webhooks', { url: 'https://127.0.0.1:9/other', mode: 'live', events: ['sms.sent'] });

      expect(endpointId).toMatch(/^whe_/);
      expect(created.text).toContain(`<td data-form="batch">batches of up to 100</td>`);
      expect([toSingle.status, toSingle.location]).toEqual([302, '/webhooks']);
      expect(idsIn(whileSingle.text, 'webhooks', 'batch')).toEqual([endpointId]);
      expect(whileSingle.text).toContain(`<td data-form="single">one event a POST</td>`);
      expect([toBatch.status, toBatch.location]).toEqual([302, '/webhooks']);
      expect(intruded.status).toBe(404);
      expect(idsIn(unbatched.text, 'webhooks', 'single')).toEqual([endpointId]);
      expect(idsIn(unbatched.text, 'webhooks', 'batch')).toHaveLength(1);
      expect((await browser.get(`/webhooks/${endpointId}`)).text).toContain('in batches');
    });

    it("when another account's endpoint or message is asked for, then it is 404 as if it did not exist", async () => {
      const owner = await signedUp();
      await owner.browser.get('/webhooks');
      const created = await owner.browser.post('/webhooks', { url: 'https://127.0.0.1:9/hook', mode: 'live', events: ['sms.sent'] });
      const [endpointId] = idsIn(created.text, 'webhooks', 'test');
      const { browser: intruder } = await signedUp();

      const log = await intruder.get(`/webhooks/${endpointId}`);
      await intruder.get('/webhooks');
      await intruder.post(`/webhooks/${endpointId}/delete`);

      expect(log.status).toBe(404);
      expect(idsIn((await owner.browser.get('/webhooks')).text, 'webhooks', 'test')).toEqual([endpointId]);
      expect((await intruder.get('/messages/msg_01M88GGK8NSDNS61Q3Z14M1RPE')).status).toBe(404);
    });

    it('when the messages, a filtered page and the statistics are asked for, then they answer 200, and what was typed is given back escaped', async () => {
      const { browser } = await signedUp();

      const list = await browser.get('/messages');
      const filtered = await browser.get(`/messages?search=${encodeURIComponent(HOSTILE)}&mode=test&page=2`);
      const stats = await browser.get('/stats?days=7');
      const oddDays = await browser.get('/stats?days=abc');

      expect(list.status).toBe(200);
      expect(filtered.status).toBe(200);
      expect(filtered.text).toContain(ESCAPED);
      expect(filtered.text).not.toContain(HOSTILE);
      expect(stats.status).toBe(200);
      expect(oddDays.status).toBe(200);
    });
  });

  describe('the limits and proofs of issue 36', () => {
    it('when the signing secret is rotated without the password or with a wrong one, then it is refused with the reason and the secret stays', async () => {
      const { browser } = await signedUp();
      await browser.get('/settings');
      const before = /whsec_[A-Za-z0-9_-]+/.exec((await browser.post('/settings/secret', { password: PASSWORD })).text)![0];

      const without = await browser.post('/settings/secret/rotate');
      const wrong = await browser.post('/settings/secret/rotate', { password: 'wrong password!' });

      for (const refused of [without, wrong]) {
        expect(refused.text).toContain(WRONG_PASSWORD);
        expect(refused.text).not.toContain('The signing secret was rotated.');
      }
      expect((await browser.post('/settings/secret', { password: PASSWORD })).text).toContain(before);
    });

    it('when the owner has not confirmed the address yet, then every page says so, and adding a phone, a new pairing or an endpoint is refused with the reason until the mailed link is used', async () => {
      const { browser, email } = await signedUp('Not yet', { verified: false });

      for (const page of ['/', '/keys', '/phones', '/webhooks', '/settings']) {
        const res = await browser.get(page);
        expect([page, res.text.includes('data-account-unverified'), res.text.includes(email)]).toEqual([page, true, true]);
      }
      const phonesPage = await browser.get('/phones');
      expect(phonesPage.text).not.toContain('action="/phones" ');
      expect((await browser.get('/webhooks')).text).not.toContain('Add the endpoint');

      const phone = await browser.post('/phones', { name: 'Too early' });
      const endpoint = await browser.post('/webhooks', { url: 'https://127.0.0.1:9/hook', mode: 'live', events: ['sms.sent'] });
      const rotation = await browser.post('/phones/device_123/rotate');

      for (const refused of [phone, endpoint, rotation]) {
        expect(refused.status).toBe(403);
        expect(refused.text).toContain('Confirm your address first: open the link we e-mailed you at sign-up');
      }
      expect(idsIn((await browser.get('/phones')).text, 'phones', 'rename')).toEqual([]);
      expect(idsIn((await browser.get('/webhooks')).text, 'webhooks', 'test')).toEqual([]);

      await confirmAddress(email);

      const added = await browser.post('/phones', { name: 'Now' });
      expect(added.text).toContain('Pairing QR code');
      expect((await browser.get('/')).text).not.toContain('data-account-unverified');
    });

    it('when a reset is the first proof of an account of before, then its keys, phones and endpoints made before are revoked, the page says how many, and the phone pairs no more', async () => {
      const { browser, email } = await signedUp('Squatted');
      await browser.get('/phones');
      const card = await browser.post('/phones', { name: 'Squatter phone' });
      const pairingUrl = /data-qr-payload="([^"]+)"/.exec(card.text)![1]!;
      await browser.get('/webhooks');
      await browser.post('/webhooks', { url: 'https://127.0.0.1:9/squatter', mode: 'live', events: ['sms.sent'] });
      // An account of before the proof existed: verified by nothing (migration 006 leaves such accounts so).
      await accountDb.query('UPDATE clients SET account_verified_at = NULL WHERE lower(email) = lower($1)', [email]);

      const owner = new Browser(base);
      await owner.get('/forgot-password');
      await owner.post('/forgot-password', { email });
      const sent = await mail.waitFor((m) => m.to.includes(email) && m.subject === 'Reset your SMS Gateway password');
      await owner.get('/reset-password');
      const done = await owner.post('/reset-password', { token: linkToken(sent, '/reset-password'), new: 'the rightful password' });

      expect(done.status).toBe(200);
      expect(done.text).toContain('This reset is the first proof that the address is yours');
      expect(done.text).toContain('2 API keys revoked');
      expect(done.text).toContain('1 phone unpaired');
      expect(done.text).toContain('1 webhook endpoint deleted');
      expect((await browser.get('/')).status).toBe(302);
      expect((await pairWith(pairingUrl, upstreams.agentCaPem)).status).toBe(401);
      const signedIn = new Browser(base);
      await signedIn.get('/signin');
      await signedIn.post('/signin', { email, password: 'the rightful password' });
      expect(idsIn((await signedIn.get('/webhooks')).text, 'webhooks', 'test')).toEqual([]);
      expect((await signedIn.get('/keys')).text).not.toContain('class="danger">Revoke');
    });

    it(`when an account opens more than ${LIVE_STREAMS} live views of its phones, then the next is refused 429 with the reason, and a closed one makes room`, async () => {
      const { browser } = await signedUp();
      await browser.get('/phones');
      const open = [];
      for (let i = 0; i < LIVE_STREAMS; i++) open.push(await browser.hold('/phones/events'));
      expect(open.map((o) => o.status)).toEqual(Array(LIVE_STREAMS).fill(200));

      const refused = await browser.hold('/phones/events');
      expect(refused.status).toBe(429);
      expect(refused.text).toBe(
        `Too many live views of your phones are open (${LIVE_STREAMS} at most): close a tab or a window of this page.`,
      );
      // Another account is not held back by this one.
      const { browser: other } = await signedUp();
      const theirs = await other.hold('/phones/events');
      expect(theirs.status).toBe(200);

      await open[0]!.close();
      let again = await browser.hold('/phones/events');
      for (let i = 0; again.status !== 200 && i < 20; i++) {
        await new Promise((r) => setTimeout(r, 100));
        again = await browser.hold('/phones/events');
      }
      expect(again.status).toBe(200);
      for (const o of [...open.slice(1), theirs, again]) await o.close();
    });
  });
});
