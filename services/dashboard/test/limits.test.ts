import { randomBytes } from 'node:crypto';
import { createLogger, createRedis, type Redis } from '@smsgw/platform';
import { grpcTlsEnv } from '@smsgw/testing';
import { loadDashboardConfig } from '../src/config';
import { SessionStore } from '../src/http/session';
import { start } from '../src/main';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * Sign-up's bounds and throttle, and the test events' limit, with no upstream
 * answering: each refusal must come before the dashboard calls one.
 */
describe('the dashboard limits sign-ups and test events', () => {
  const prefix = `smsgw:t${randomBytes(5).toString('hex')}:`;
  let app: Awaited<ReturnType<typeof start>>;
  let redis: Redis;
  let base: string;

  beforeAll(async () => {
    app = await start(
      loadDashboardConfig({
        ...grpcTlsEnv('dashboard'),
        TLS_MODE: 'proxy',
        HTTP_HOST: '127.0.0.1',
        HTTP_PORT: '0',
        REDIS_URL,
        REDIS_PREFIX: prefix,
        NATS_URL,
        NATS_PREFIX: `t${randomBytes(5).toString('hex')}`,
        ACCOUNT_GRPC_ADDR: '127.0.0.1:9',
        DEVICE_HUB_GRPC_ADDR: '127.0.0.1:9',
        MESSAGE_GRPC_ADDR: '127.0.0.1:9',
        WEBHOOK_GRPC_ADDR: '127.0.0.1:9',
        GRPC_DEADLINE_MS: '300',
      }),
      createLogger('dashboard-test', 'silent'),
    );
    base = `http://127.0.0.1:${app.port}`;
    redis = createRedis({ url: REDIS_URL, keyPrefix: prefix, name: 'dashboard-test' });
    await redis.connect();
  });

  afterAll(async () => {
    await app?.stop();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys.map((k) => k.slice(prefix.length)));
    redis.disconnect();
  });

  const https = { 'x-forwarded-proto': 'https' };

  async function anonymousForm(): Promise<{ cookie: string; csrf: string }> {
    const form = await fetch(`${base}/signup`, { headers: https });
    return { cookie: form.headers.get('set-cookie')!.split(';')[0]!, csrf: /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]! };
  }

  async function signUp(from: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
    const { cookie, csrf } = await anonymousForm();
    const res = await fetch(`${base}/signup`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...https, 'x-forwarded-for': from, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
    return { status: res.status, text: await res.text() };
  }

  it('when a sign-up has a field too long, then it is refused with 400 and a message for each such field', async () => {
    const res = await signUp('198.51.100.1', { email: `${'a'.repeat(250)}@example.com`, name: 'n'.repeat(101), password: 'p'.repeat(201) });
    expect(res.status).toBe(400);
    expect(res.text).toContain('The e-mail address must be at most 254 characters.');
    expect(res.text).toContain('The name must be at most 100 characters.');
    expect(res.text).toContain('The password must be at most 200 characters.');
  });

  it('when one address has signed up 5 times in the hour, then its next sign-up is refused with 429 and a message; another address still may', async () => {
    const form = { email: 'owner@example.com', name: 'Acme', password: 'a long enough password' };
    for (let i = 0; i < 5; i++) expect((await signUp('198.51.100.2', form)).status).not.toBe(429);
    const refused = await signUp('198.51.100.2', form);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many accounts were created from your address. Try again in an hour.');
    expect((await signUp('198.51.100.3', form)).status).not.toBe(429);
  });

  it('when an account has sent 10 test events in the minute, then the next is refused with 429 and a message', async () => {
    const { token, session } = await new SessionStore(redis, { idleMs: 60_000, lifetimeMs: 60_000 }).create({
      userId: 'usr_t',
      clientId: 'client_limits',
      email: 'owner@example.com',
    });
    const sendTest = () =>
      fetch(`${base}/webhooks/wh_1/test`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...https, cookie: `__Host-smsgw_session=${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: session.csrf, event: 'sms.sent' }).toString(),
      });
    for (let i = 0; i < 10; i++) expect((await sendTest()).status).not.toBe(429);
    const refused = await sendTest();
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('Too many test events: an account may send 10 every 60 seconds.');
  });
});
