import type { Redis } from '@smsgw/platform';
import { anonymousForm, postForm, startDashboard, type DashboardUnderTest } from './support/harness';

/** The dashboard as the Helm chart runs it by default: plain HTTP behind an Ingress that terminates TLS. */
describe('the dashboard behind a TLS-terminating proxy (TLS_MODE=proxy)', () => {
  let dashboard: DashboardUnderTest;
  let redis: Redis;
  let base: string;

  beforeAll(async () => {
    // No upstream answers: these tests stop before any page needs one.
    dashboard = await startDashboard({ DASHBOARD_SIGNIN_MAX_FAILURES: '3' });
    ({ base, redis } = dashboard);
  });

  afterAll(async () => {
    await dashboard?.stop();
  });

  it('when the kubelet probes it, then /healthz and /readyz answer 200 over plain HTTP', async () => {
    const live = await fetch(`${base}/healthz`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ success: true });
  });

  it('when the proxy received a page request over plain HTTP, then it is refused with 403 and no cookie; over HTTPS the page and its Secure cookie are served', async () => {
    const plain = await fetch(`${base}/signin`);
    expect(plain.status).toBe(403);
    expect(await plain.text()).toMatch(/HTTPS only/);
    expect(plain.headers.get('set-cookie')).toBeNull();

    const forwarded = await fetch(`${base}/signin`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(forwarded.status).toBe(200);
    expect(await forwarded.text()).toMatch(/Sign in/);
    expect(forwarded.headers.get('set-cookie')).toMatch(/; secure/i);
    expect(forwarded.headers.get('strict-transport-security')).toMatch(/max-age/);
  });

  it('when an address is past its failed sign-ins, then it is throttled by the address the proxy appended, whatever the client wrote before it', async () => {
    await redis.set('dashboard:signin:ip:203.0.113.7', '3', 'EX', 60);
    const { cookie, csrf } = await anonymousForm(base, '/signin');
    const signIn = (xff: string) =>
      postForm(base, '/signin', { _csrf: csrf, email: 'owner@example.com', password: 'wrong' }, { 'x-forwarded-for': xff, cookie });

    expect((await signIn('203.0.113.7')).status).toBe(429);
    expect((await signIn('192.0.2.1, 203.0.113.7')).status).toBe(429);
    // Another address gets past the throttle (and on to the account service, absent here).
    expect((await signIn('203.0.113.7, 203.0.113.8')).status).not.toBe(429);
  });

  it('when a load balancer hides client addresses (no X-Forwarded-For), then the address count does not apply, so one caller cannot lock everyone out', async () => {
    // The proxy's own address has failed too often: without X-Forwarded-For that address is everyone's.
    await redis.set('dashboard:signin:ip:127.0.0.1', '3', 'EX', 60);
    const form = await fetch(`${base}/signin`, { headers: { 'x-forwarded-proto': 'https' } });
    const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const res = await fetch(`${base}/signin`, {
      method: 'POST',
      headers: { 'x-forwarded-proto': 'https', cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email: 'someone@example.com', password: 'wrong' }).toString(),
    });
    expect(res.status).not.toBe(429);
  });
});
