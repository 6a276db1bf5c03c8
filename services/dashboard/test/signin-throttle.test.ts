import { randomBytes } from 'node:crypto';
import { AppError, createLogger, createRedis, startGrpcService, type AsyncHandlers, type GrpcService, type Redis } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import { anyCaller, grpcTlsEnv, grpcTlsFor } from '@smsgw/testing';
import { loadDashboardConfig } from '../src/config';
import { start } from '../src/main';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const MAX_FAILURES = 3;

/** An account service that knows no password: every sign-in is a wrong one. */
function accountRefusingEverySignIn(calls: { signIn: number }): AsyncHandlers<account.AccountServiceHandlers> {
  const handlers: Record<string, unknown> = {
    SignIn: async () => {
      calls.signIn++;
      return { userId: '', clientId: '', email: '' };
    },
  };
  for (const method of Object.keys(accountProto().AccountService.service)) {
    handlers[method] ??= async () => {
      throw new AppError('INTERNAL_ERROR');
    };
  }
  return handlers as unknown as AsyncHandlers<account.AccountServiceHandlers>;
}

describe('the dashboard sign-in throttle, against real Redis and a real account gRPC server', () => {
  const prefix = `smsgw:t${randomBytes(5).toString('hex')}:`;
  const calls = { signIn: 0 };
  let accounts: GrpcService;
  let app: Awaited<ReturnType<typeof start>>;
  let redis: Redis;
  let base: string;

  beforeAll(async () => {
    const log = createLogger('dashboard-test', 'silent');
    accounts = await startGrpcService({
      listen: { host: '127.0.0.1', port: 0 },
      tls: grpcTlsFor('account'),
      callers: anyCaller(accountProto().AccountService.service),
      name: 'smsgw.account.v1.AccountService',
      definition: accountProto().AccountService.service,
      handlers: accountRefusingEverySignIn(calls),
      log,
    });
    accounts.ready();
    app = await start(
      loadDashboardConfig({
        TLS_MODE: 'proxy',
        ...grpcTlsEnv('dashboard'),
        HTTP_HOST: '127.0.0.1',
        HTTP_PORT: '0',
        REDIS_URL,
        REDIS_PREFIX: prefix,
        NATS_URL,
        NATS_PREFIX: `t${randomBytes(5).toString('hex')}`,
        ACCOUNT_GRPC_ADDR: `127.0.0.1:${accounts.port}`,
        DEVICE_HUB_GRPC_ADDR: '127.0.0.1:9',
        MESSAGE_GRPC_ADDR: '127.0.0.1:9',
        WEBHOOK_GRPC_ADDR: '127.0.0.1:9',
        GRPC_DEADLINE_MS: '2000',
        DASHBOARD_SIGNIN_MAX_FAILURES: String(MAX_FAILURES),
      }),
      log,
    );
    base = `http://127.0.0.1:${app.port}`;
    redis = createRedis({ url: REDIS_URL, keyPrefix: prefix, name: 'dashboard-test' });
    await redis.connect();
  });

  afterAll(async () => {
    await app?.stop();
    await accounts?.stop(100);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys.map((k) => k.slice(prefix.length)));
    redis.disconnect();
  });

  it('when 50 wrong sign-ins from one address arrive at once, then no more than the limit reach the account service and the rest get 429', async () => {
    const form = await fetch(`${base}/signin`, { headers: { 'x-forwarded-proto': 'https' } });
    const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signIn = () =>
      fetch(`${base}/signin`, {
        method: 'POST',
        headers: {
          'x-forwarded-proto': 'https',
          'x-forwarded-for': '198.51.100.20',
          cookie,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ _csrf: csrf, email: 'owner@example.com', password: 'wrong' }).toString(),
      });

    const statuses = (await Promise.all(Array.from({ length: 50 }, signIn))).map((r) => r.status);

    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(MAX_FAILURES);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(calls.signIn).toBeLessThanOrEqual(MAX_FAILURES);
  });
});
