import { randomBytes } from 'node:crypto';
import { createLogger, createRedis } from '@smsgw/platform';
import { grpcTlsEnv } from '@smsgw/testing';
import { loadGatewayConfig } from '../src/config';
import { start } from '../src/main';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The gateway as the Helm chart runs it by default: plain HTTP behind an Ingress that terminates
 * TLS. No upstream answers: a key of the wrong shape is refused before the account service is asked,
 * and counted against the caller's address all the same.
 */
describe('the gateway behind a TLS-terminating proxy (TLS_MODE=proxy)', () => {
  const prefix = `smsgw:t${randomBytes(5).toString('hex')}:`;
  const started: Awaited<ReturnType<typeof start>>[] = [];

  async function gateway(env: Record<string, string> = {}): Promise<string> {
    const app = await start(
      loadGatewayConfig({
        ...grpcTlsEnv('gateway'),
        TLS_MODE: 'proxy',
        HTTP_HOST: '127.0.0.1',
        HTTP_PORT: '0',
        REDIS_URL,
        REDIS_PREFIX: `${prefix}${started.length}:`,
        ACCOUNT_GRPC_ADDR: '127.0.0.1:9',
        MESSAGE_GRPC_ADDR: '127.0.0.1:9',
        DEVICE_HUB_GRPC_ADDR: '127.0.0.1:9',
        OTP_GRPC_ADDR: '127.0.0.1:9',
        GRPC_DEADLINE_MS: '500',
        AUTH_FAILURE_LIMIT: '2',
        ...env,
      }),
      createLogger('gateway-test', 'silent'),
    );
    started.push(app);
    return `http://127.0.0.1:${app.port}`;
  }

  afterAll(async () => {
    await Promise.all(started.map((app) => app.stop()));
    const redis = createRedis({ url: REDIS_URL, keyPrefix: '', name: 'gateway-test' });
    await redis.connect();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const history = async (base: string, headers: Record<string, string>) => {
    const res = await fetch(`${base}/v1/sms/history`, { headers: { 'x-api-key': 'not-a-key', 'x-client-id': 'client_1', ...headers } });
    return { status: res.status, body: (await res.json()) as { error?: { code?: string } } };
  };

  it('when bad keys are forwarded over HTTPS, then each client address has its own failure limit, read from X-Forwarded-For', async () => {
    const base = await gateway();
    const from = (xff: string) => history(base, { 'x-forwarded-proto': 'https', 'x-forwarded-for': xff });
    expect((await from('203.0.113.7')).status).toBe(401);
    expect((await from('203.0.113.7')).status).toBe(401);
    expect(await from('203.0.113.7')).toMatchObject({ status: 429, body: { error: { code: 'RATE_LIMIT_EXCEEDED' } } });
    // A client that writes its own X-Forwarded-For cannot pass for another: the proxy's entry is the last.
    expect((await from('198.51.100.4, 203.0.113.7')).status).toBe(429);
    expect((await from('203.0.113.8')).status).toBe(401);
    // Not received over HTTPS by the proxy: refused.
    expect(await history(base, { 'x-forwarded-proto': 'http' })).toMatchObject({
      status: 403,
      body: { error: { code: 'HTTPS_REQUIRED' } },
    });
  });

  it('when a load balancer hides client addresses (no X-Forwarded-For), then no address limit applies, so one caller cannot lock every other out', async () => {
    const base = await gateway();
    for (let i = 0; i < 6; i++) expect((await history(base, { 'x-forwarded-proto': 'https' })).status).toBe(401);
  });

  it('when the connection does not come from a trusted proxy, then its X-Forwarded-* headers are not believed: it is refused as not HTTPS', async () => {
    // This machine (127.0.0.1) is not the trusted proxy here.
    const base = await gateway({ TRUSTED_PROXIES: '192.0.2.1' });
    expect(await history(base, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' })).toMatchObject({
      status: 403,
      body: { error: { code: 'HTTPS_REQUIRED' } },
    });
  });

  it('when TRUSTED_PROXIES is not a list of addresses or ranges, then the gateway does not start and says which value is wrong', () => {
    expect(() => loadGatewayConfig({ ...grpcTlsEnv('gateway'), TLS_MODE: 'proxy', TRUSTED_PROXIES: '10.0.0.0/8, ingress' })).toThrow(
      /TRUSTED_PROXIES.*"ingress" is not an IP address or a CIDR range/,
    );
  });
});
