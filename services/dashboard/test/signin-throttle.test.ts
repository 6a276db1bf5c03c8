import type { GrpcService } from '@smsgw/platform';
import { anonymousForm, postForm, startDashboard, stubAccountService, type DashboardUnderTest } from './support/harness';

const MAX_FAILURES = 3;

describe('the dashboard sign-in throttle, against real Redis and a real account gRPC server', () => {
  const calls = { signIn: 0 };
  let accounts: GrpcService;
  let dashboard: DashboardUnderTest;
  let base: string;

  beforeAll(async () => {
    // An account service that knows no password: every sign-in is a wrong one.
    accounts = await stubAccountService({
      SignIn: async () => {
        calls.signIn++;
        return { userId: '', clientId: '', email: '' };
      },
    });
    dashboard = await startDashboard({
      ACCOUNT_GRPC_ADDR: `127.0.0.1:${accounts.port}`,
      GRPC_DEADLINE_MS: '2000',
      DASHBOARD_SIGNIN_MAX_FAILURES: String(MAX_FAILURES),
    });
    base = dashboard.base;
  });

  afterAll(async () => {
    await dashboard?.stop();
    await accounts?.stop(100);
  });

  it('when 50 wrong sign-ins from one address arrive at once, then no more than the limit reach the account service and the rest get 429', async () => {
    const { cookie, csrf } = await anonymousForm(base, '/signin');
    const signIn = () =>
      postForm(
        base,
        '/signin',
        { _csrf: csrf, email: 'owner@example.com', password: 'wrong' },
        { 'x-forwarded-for': '198.51.100.20', cookie },
      );

    const statuses = (await Promise.all(Array.from({ length: 50 }, signIn))).map((r) => r.status);

    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(MAX_FAILURES);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(calls.signIn).toBeLessThanOrEqual(MAX_FAILURES);
  });
});
