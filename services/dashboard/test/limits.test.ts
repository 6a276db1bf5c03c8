import type { GrpcService, Redis } from '@smsgw/platform';
import { SessionStore } from '../src/http/session';
import { anonymousForm, postForm, startDashboard, stubAccountService, type DashboardUnderTest } from './support/harness';

/**
 * Sign-up's bounds and throttle, and the test events' limit, with no upstream
 * answering but the account service's member check (a signed-in page reads the
 * member's role first): each refusal must come before the dashboard calls one.
 */
describe('the dashboard limits sign-ups and test events', () => {
  let dashboard: DashboardUnderTest;
  let accounts: GrpcService;
  let redis: Redis;
  let base: string;

  beforeAll(async () => {
    accounts = await stubAccountService({
      GetUser: async (req: { userId: string }) => ({
        userId: req.userId,
        clientId: req.userId === 'usr_t' ? 'client_limits' : 'client_replays',
        email: 'owner@example.com',
        role: 'owner',
      }),
    });
    dashboard = await startDashboard({ GRPC_DEADLINE_MS: '300', ACCOUNT_GRPC_ADDR: `127.0.0.1:${accounts.port}` });
    ({ base, redis } = dashboard);
  });

  afterAll(async () => {
    await dashboard?.stop();
    await accounts?.stop(100);
  });

  async function signUp(from: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
    const { cookie, csrf } = await anonymousForm(base);
    const res = await postForm(base, '/signup', { _csrf: csrf, ...fields }, { 'x-forwarded-for': from, cookie });
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
      postForm(base, '/webhooks/wh_1/test', { _csrf: session.csrf, event: 'sms.sent' }, { cookie: `__Host-smsgw_session=${token}` });
    for (let i = 0; i < 10; i++) expect((await sendTest()).status).not.toBe(429);
    const refused = await sendTest();
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('Too many test events: an account may send 10 every 60 seconds.');
  });

  it('when an account has sent test events and replays, 10 in the minute, then the next replay is refused with 429 and a message: replays are no way around the limit', async () => {
    const { token, session } = await new SessionStore(redis, { idleMs: 60_000, lifetimeMs: 60_000 }).create({
      userId: 'usr_r',
      clientId: 'client_replays',
      email: 'owner@example.com',
    });
    const post = (action: string, fields: Record<string, string>) =>
      postForm(base, `/webhooks/wh_1/${action}`, { _csrf: session.csrf, ...fields }, { cookie: `__Host-smsgw_session=${token}` });
    for (let i = 0; i < 5; i++) expect((await post('test', { event: 'sms.sent' })).status).not.toBe(429);
    for (let i = 0; i < 5; i++) expect((await post('replay', { event_id: 'evt_1' })).status).not.toBe(429);
    const refused = await post('replay', { event_id: 'evt_1' });
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('Too many test events: an account may send 10 every 60 seconds. Replays count with them.');
  });
});
