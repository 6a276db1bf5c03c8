import https from 'node:https';
import { randomInt } from 'node:crypto';
import { Prng } from './support/fuzz';
import { TestSystem } from './support/system';
import { startMailCatcher, type MailCatcher } from '@smsgw/stack';

// FUZZ_DASHBOARD_SEED=<n> replays a run; FUZZ_DASHBOARD_COUNT sizes it.
const SEED = process.env.FUZZ_DASHBOARD_SEED ? Number(process.env.FUZZ_DASHBOARD_SEED) : randomInt(0, 2 ** 31);
const COUNT = Number(process.env.FUZZ_DASHBOARD_COUNT ?? 400);
const CONCURRENCY = 4;
const PASSWORD = 'correct horse battery staple';

/**
 * Every form a browser can post (services/dashboard/src/http/routes): its path (`:id` parts are
 * filled with real ids or odd ones) and its fields. Sign-out is posted with a wrong token only
 * (a right one would end the session the run uses).
 */
const FORMS: { path: string; fields: string[]; anonymous?: true; wrongTokenOnly?: true }[] = [
  { path: '/signin', fields: ['email', 'password'], anonymous: true },
  { path: '/signup', fields: ['email', 'password', 'name'], anonymous: true },
  { path: '/forgot-password', fields: ['email'], anonymous: true },
  { path: '/reset-password', fields: ['token', 'new'], anonymous: true },
  { path: '/verify-email', fields: ['token'], anonymous: true },
  { path: '/signout', fields: [], wrongTokenOnly: true },
  { path: '/keys', fields: ['name', 'mode', 'scopes', 'ip_ranges', 'daily_quota', 'password'] },
  { path: '/keys/:key/revoke', fields: ['password'] },
  { path: '/settings/secret', fields: ['password'] },
  { path: '/settings/secret/rotate', fields: ['password'] },
  { path: '/settings/alerts', fields: ['email', 'password'] },
  { path: '/settings/fleet', fields: ['default_ttl', 'failover_delay', 'sim_rule', 'default_sim', 'password'] },
  { path: '/settings/verify-email', fields: [] },
  { path: '/settings/password', fields: ['current', 'new'] },
  { path: '/phones', fields: ['name'] },
  {
    path: '/phones/:device/limits',
    fields: [
      'per_minute',
      'per_hour',
      'per_day',
      'min_interval_ms',
      'max_interval_ms',
      'sending_hours_start',
      'sending_hours_end',
      'time_zone',
    ],
  },
  { path: '/phones/:device/rename', fields: ['name'] },
  { path: '/phones/:device/rotate', fields: ['password'] },
  { path: '/phones/:device/revoke', fields: ['password'] },
  { path: '/phones/:device/remove', fields: ['password'] },
  { path: '/webhooks', fields: ['url', 'events', 'mode'] },
  { path: '/webhooks/:webhook/test', fields: ['event'] },
  { path: '/webhooks/:webhook/enable', fields: ['password'] },
  { path: '/webhooks/:webhook/disable', fields: ['password'] },
  { path: '/webhooks/:webhook/delete', fields: ['password'] },
  { path: '/webhooks/:webhook/replay', fields: ['event_id'] },
  { path: '/campaigns/new', fields: ['name', 'file_name', 'csv'] },
  { path: '/campaigns/new/:upload/preview', fields: ['phone_column', 'text'] },
  { path: '/campaigns/new/:upload/send', fields: ['phone_column', 'text', 'password'] },
  { path: '/campaigns/:campaign/pause', fields: [] },
  { path: '/campaigns/:campaign/resume', fields: [] },
  { path: '/campaigns/:campaign/cancel', fields: [] },
  { path: '/inbox/:number/reply', fields: ['device_id', 'text'] },
  { path: '/opt-outs', fields: ['phone_number'] },
  { path: '/opt-outs/remove', fields: ['phone_number'] },
  { path: '/opt-outs/settings', fields: ['opt_out_keywords', 'start_keywords', 'otp_ignores_opt_out'] },
];

/** Values a person would never type; each is percent-encoded as a browser would, unless the body is broken on purpose. */
const ODD = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud83d\ude00'.repeat(50),
  '\u202e\u0644\u0627',
  'e\u0301\u0301\u0301',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'; DROP TABLE users; --",
  '${jndi:ldap://x}',
  '{{7*7}}',
  '-1',
  '0',
  '1e308',
  '99999999999999999999999',
  'NaN',
  'on',
  'test',
  'live',
  'round_robin',
  'default',
  '25:99',
  'Mars/Olympus',
  'Europe/Paris',
  '+33612345678',
  'owner@example.com',
  'x@'.repeat(200),
  'https://hooks.example.com/sms',
  'http://127.0.0.1:22/',
  'javascript:alert(1)',
  'sms.delivered',
  'phone\n+33612345678\n+33600000001',
  '__proto__',
];

const ODD_IDS = [
  '%00',
  '%ZZ',
  'x'.repeat(3000),
  '..%2F..%2Fetc',
  'device_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
  '1',
  '-1',
  '%F0%9F%98%80',
  '%ED%A0%80',
];

function oddValue(rng: Prng): string {
  switch (rng.int(0, 5)) {
    case 0:
      return 'x'.repeat(rng.int(1000, 70_000));
    case 1:
      return String.fromCharCode(...Array.from({ length: rng.int(1, 50) }, () => rng.int(0, 0xffff)));
    default:
      return rng.pick(ODD);
  }
}

/** The whole stack's start-up, on a busy shared machine: more than the default hook timeout. */
const START_TIMEOUT_MS = 180_000;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A browser without a browser: cookies kept per jar, forms posted as it would (or not). */
class Jar {
  readonly cookies = new Map<string, string>();

  constructor(private readonly system: TestSystem) {}

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  request(method: string, path: string, body?: Buffer, contentType = 'application/x-www-form-urlencoded'): Promise<Answer> {
    const headers: Record<string, string | number> = { cookie: this.header() };
    if (body) {
      headers['content-length'] = body.length;
      if (contentType) headers['content-type'] = contentType;
    }
    return new Promise((resolve, reject) => {
      const req = https.request(
        `${this.system.stack.dashboardUrl}${path}`,
        { method, headers, ca: this.system.stack.certs.caPem, agent: false },
        (res) => {
          for (const c of res.headers['set-cookie'] ?? []) {
            const [pair] = c.split(';');
            const eq = pair!.indexOf('=');
            this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
          }
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
      // The dashboard may answer a form too large (413) and close before it read the whole body.
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
      req.end(body);
    });
  }

  post(path: string, fields: Record<string, string>): Promise<Answer> {
    return this.request('POST', path, Buffer.from(new URLSearchParams(fields).toString()));
  }
}

const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

/** What is wrong with an answer: a 5xx other than 503, or neither a page nor a redirect, or a stack trace shown. */
function problemOf(answer: Answer): string | undefined {
  if (answer.status >= 500 && answer.status !== 503)
    return `answered ${answer.status} (${/<title>([^<]*)/.exec(answer.text)?.[1] ?? answer.text.slice(0, 100)})`;
  if (answer.status >= 300 && answer.status < 400) return answer.headers.location ? undefined : `${answer.status} without Location`;
  if (!/^text\/html/.test(String(answer.headers['content-type']))) {
    return `${answer.status} is not a page (${String(answer.headers['content-type'])}): ${JSON.stringify(answer.text.slice(0, 200))}`;
  }
  if (!/<html/i.test(answer.text)) return `${answer.status} is not a whole page: ${JSON.stringify(answer.text.slice(0, 200))}`;
  if (/\n\s+at .+\(.+:\d+:\d+\)|node_modules\/|\.ts:\d+/.test(answer.text)) return `${answer.status} shows a stack trace`;
  return undefined;
}

describe("hostile input to the dashboard's forms", () => {
  let system: TestSystem;
  let mail: MailCatcher;
  let owner: Jar;
  let csrf: string;
  const ids: Record<string, string[]> = { key: [], device: [], webhook: [], upload: [], campaign: [], number: ['%2B33612345678'] };

  beforeAll(async () => {
    console.log(`dashboard fuzz seed ${SEED} (replay with FUZZ_DASHBOARD_SEED=${SEED}), ${COUNT} requests`);
    mail = await startMailCatcher();
    system = await TestSystem.start({ LOG_LEVEL: 'warn', SMTP_URL: mail.url });
    // The owner signs up as a browser does: the sign-up form's token, then the session's.
    owner = new Jar(system);
    const form = await owner.request('GET', '/signup');
    const email = `owner${Date.now()}@example.com`;
    const signedUp = await owner.post('/signup', { _csrf: csrfIn(form.text)!, email, name: 'Fuzz', password: PASSWORD });
    expect(signedUp.status).toBe(302);
    // The address confirmed with the mailed link: phones and endpoints wait for it.
    const verification = await mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('Confirm'));
    const token = /verify-email\?token=([A-Za-z0-9_-]+)/.exec(verification.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![1]!;
    const confirmPage = await owner.request('GET', `/verify-email?token=${token}`);
    expect((await owner.post('/verify-email', { _csrf: csrfIn(confirmPage.text)!, token })).status).toBe(200);
    const keys = await owner.request('GET', '/keys');
    csrf = csrfIn(keys.text)!;
    expect(csrf).toBeDefined();
    // Real ids for the forms' paths: a key, a phone, a webhook, a campaign upload.
    await owner.post('/keys', { _csrf: csrf, name: 'k', mode: 'live', password: PASSWORD });
    await owner.post('/phones', { _csrf: csrf, name: 'Pixel' });
    await owner.post('/webhooks', { _csrf: csrf, url: 'https://hooks.example.com/sms', events: 'sms.delivered', mode: 'live' });
    const upload = await owner.post('/campaigns/new', { _csrf: csrf, name: 'c', file_name: 'c.csv', csv: 'phone\n+33612345678\n' });
    const uploadId = /\/campaigns\/new\/([^/?"]+)/.exec(String(upload.headers.location))?.[1];
    if (uploadId) ids.upload!.push(uploadId);
    const pages = await Promise.all(['/keys', '/phones', '/webhooks', '/campaigns'].map((p) => owner.request('GET', p)));
    const html = pages.map((p) => p.text).join('\n');
    for (const m of html.matchAll(/\/keys\/([^/"]+)\/revoke/g)) ids.key!.push(m[1]!);
    for (const m of html.matchAll(/data-device="([^"]+)"/g)) ids.device!.push(m[1]!);
    for (const m of html.matchAll(/\/webhooks\/([A-Za-z]+_[0-9A-Za-z]+)/g)) ids.webhook!.push(m[1]!);
    for (const m of html.matchAll(/\/campaigns\/((?!new)[A-Za-z]+_[0-9A-Za-z]+)/g)) ids.campaign!.push(m[1]!);
    console.log(
      `real ids: ${Object.entries(ids)
        .map(([k, v]) => `${k} ${v.length}`)
        .join(', ')}`,
    );
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await system?.stop();
    await mail?.stop();
  });

  it(
    `when ${COUNT} hostile form posts arrive, then each is answered with a page or a redirect, none a 5xx, and the dashboard never restarts`,
    async () => {
      const dashboard = system.stack.services.dashboard;
      const pid = dashboard.pid;
      const rng = new Prng(SEED);
      const failures: string[] = [];
      const counts = new Map<string, number>();
      const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
      const anonymous = new Jar(system);
      const anonymousForm = csrfIn((await anonymous.request('GET', '/signin')).text)!;
      const requests = Array.from({ length: COUNT }, () => {
        const form = rng.pick(FORMS);
        const path = form.path.replace(/:(\w+)/, (_, kind: string) =>
          rng.chance(0.7) && ids[kind]!.length > 0 ? rng.pick(ids[kind]!) : rng.pick(ODD_IDS),
        );
        const labels: string[] = [];
        // The right token (the session's, or the anonymous form cookie's), or a wrong, missing or doubled one.
        const right = form.anonymous ? anonymousForm : csrf;
        const pairs: [string, string][] = [];
        const tokenRoll = rng.next();
        if (form.wrongTokenOnly || tokenRoll < 0.12) {
          labels.push('wrong token');
          const wrong = rng.pick(['', 'x', right.slice(1), right + 'x', 'x'.repeat(5000), '\u0000', right.toUpperCase()]);
          if (rng.chance(0.8)) pairs.push(['_csrf', wrong]);
        } else if (tokenRoll < 0.15) {
          labels.push('two tokens');
          pairs.push(['_csrf', 'x'], ['_csrf', right]);
        } else pairs.push(['_csrf', right]);
        for (const name of form.fields) {
          const roll = rng.next();
          if (roll < 0.15) continue; // missing
          pairs.push([name, oddValue(rng)]);
          if (roll > 0.9) pairs.push([rng.chance(0.5) ? name : `${name}[]`, oddValue(rng)]); // an array
        }
        if (rng.chance(0.05)) pairs.push([rng.pick(['__proto__', 'constructor', '%00', 'x[]']), oddValue(rng)]);
        let body = Buffer.from(new URLSearchParams(pairs).toString());
        let contentType = 'application/x-www-form-urlencoded';
        const bodyRoll = rng.next();
        if (bodyRoll < 0.05) {
          // Broken encoding: raw percent signs, bytes that are not UTF-8.
          body = Buffer.concat([body, Buffer.from('&name=%ZZ%E0%A4%A&x=%C3%28'), Buffer.from([0xff, 0xfe])]);
          labels.push('broken encoding');
        } else if (bodyRoll < 0.1) {
          contentType = rng.pick(['application/json', 'multipart/form-data; boundary=x', 'text/plain', '']);
          if (contentType === 'application/json') body = Buffer.from(JSON.stringify(Object.fromEntries(pairs)));
          labels.push(`content-type ${contentType || 'none'}`);
        } else if (bodyRoll < 0.12) {
          body = Buffer.from(Array.from({ length: rng.int(1, 500) }, () => rng.int(0, 255)));
          labels.push('bytes');
        }
        return { form, path, body, contentType, label: `${path.slice(0, 80)} ${labels.join(', ')}`.trim() };
      });

      let next = 0;
      const started = Date.now();
      async function worker(): Promise<void> {
        while (next < requests.length) {
          const index = next++;
          const req = requests[index]!;
          try {
            const answer = await (req.form.anonymous ? anonymous : owner).request('POST', req.path, req.body, req.contentType);
            count(`${answer.status}`);
            const problem = problemOf(answer);
            if (problem) failures.push(`#${index} POST ${req.label}: ${problem}`);
          } catch (err) {
            failures.push(`#${index} POST ${req.label}: ${(err as Error).message}`);
          }
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `dashboard fuzz seed ${SEED}: ${COUNT} requests in ${seconds} s\n${[...counts]
          .sort()
          .map(([k, v]) => `  ${k}: ${v}`)
          .join('\n')}`,
      );

      failures.sort((a, b) => Number(/answered 5\d\d/.test(b)) - Number(/answered 5\d\d/.test(a)));
      expect({ seed: SEED, failures: failures.slice(0, 15), failed: failures.length }).toEqual({ seed: SEED, failures: [], failed: 0 });
      // The same process, answering; the owner's session still works.
      expect(dashboard.pid).toBe(pid);
      expect(dashboard.running).toBe(true);
      expect((await owner.request('GET', '/healthz')).status).toBe(200);
      expect((await owner.request('GET', '/keys')).status).toBe(200);
      // The input crossed the paths it is meant to (a run of a few hundred may miss one): accepted, refused, the CSRF check, redirects.
      if (COUNT >= 500)
        for (const status of ['200', '302', '400', '403']) expect({ status, seen: counts.has(status) }).toEqual({ status, seen: true });
    },
    Math.max(240_000, COUNT * 200),
  );
});
