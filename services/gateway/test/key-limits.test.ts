import { status as grpcStatus } from '@grpc/grpc-js';
import {
  AppError,
  ALL_DESTINATIONS,
  createLogger,
  KEY_SCOPES,
  keyUsageKey,
  msToNextUtcDay,
  presenceKey,
  TrustedProxies,
  utcDay,
  type KeyScope,
} from '@smsgw/platform';
import { ToolFailure } from '@smsgw/mcp';
import { outcomeUnknown } from '../src/clients/send-coalescer';
import { mcpOperations } from '../src/http/mcp-operations';
import { openApiDocument } from '../src/openapi';
import type { Upstreams } from '../src/use-cases/upstreams';
import { apiKey, FleetGateway } from './support/fleet-gateway';

const A = 'device_A';
type Operation = { 'x-key-scopes'?: KeyScope[] };
const documented = Object.entries(openApiDocument.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([, op]) => op['x-key-scopes'] !== undefined)
    .map(([method, op]) => ({ method: method.toUpperCase(), path, scopes: op['x-key-scopes']! })),
);
/** A URL of the operation (its path parameters filled with some value). */
const urlOf = (path: string) =>
  path
    .replace('{message_id}', 'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E')
    .replace('{id}', 'rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E')
    .replace('{phone_number}', '%2B33612345678');

/** Scopes, address ranges and daily quotas of keys, through the gateway's real app on real Redis. */
describe('keys with limits', () => {
  const gw = new FleetGateway();

  beforeAll(async () => {
    await gw.start();
    gw.devices = [{ deviceId: A, status: 'online', hasRoom: true }];
    await gw.redis.set(presenceKey(A), 'online');
  });

  afterAll(() => gw.stop());

  const keyWith = (limits: { scopes?: KeyScope[]; ipRanges?: string[]; dailyQuota?: number }) => {
    const key = apiKey();
    gw.keyLimits.set(key, limits);
    return key;
  };
  const send = (key: string, headers: Record<string, string> = {}) =>
    gw.call('POST', '/v1/sms/send', { key, body: { to: '+33612345678', message: 'Bonjour' }, headers });
  const bulk = (key: string, count: number) =>
    gw.call('POST', '/v1/sms/send-bulk', {
      key,
      body: { recipients: Array.from({ length: count }, (_, i) => `+336123456${String(i).padStart(2, '0')}`), message: 'Bonjour' },
    });

  it('when every operation of the document is called with a key of the other scopes, then each is refused 403 SCOPE_NOT_ALLOWED naming its scopes', async () => {
    expect(documented.length).toBeGreaterThan(15);
    for (const { method, path, scopes } of documented.filter((op) => op.scopes.length > 0)) {
      const key = keyWith({ scopes: KEY_SCOPES.filter((s) => !scopes.includes(s)) });
      const res = await gw.call(method, urlOf(path), { key, ...(method === 'POST' ? { body: {} } : {}) });
      expect({ at: `${method} ${path}`, status: res.status, code: res.body.error?.code, details: res.body.error?.details }).toEqual({
        at: `${method} ${path}`,
        status: 403,
        code: 'SCOPE_NOT_ALLOWED',
        details: [{ field: 'X-API-Key', code: 'SCOPE_NOT_ALLOWED', message: expect.stringContaining(scopes[0]!), scopes }],
      });
    }
  });

  it('when every operation is called with a key of one of its scopes, or a key without scopes, then none is refused for its scope', async () => {
    for (const { method, path, scopes } of documented) {
      for (const key of [keyWith({ scopes: scopes.length ? [scopes[scopes.length - 1]!] : ['listen'] }), apiKey()]) {
        const res = await gw.call(method, urlOf(path), { key, ...(method === 'POST' ? { body: {} } : {}) });
        expect({ at: `${method} ${path}`, code: res.body.error?.code }).not.toEqual({ at: `${method} ${path}`, code: 'SCOPE_NOT_ALLOWED' });
      }
    }
  });

  it('when a key limited to address ranges calls from outside them, then 403 IP_NOT_ALLOWED, from the cache too; from inside, then it works', async () => {
    const elsewhere = keyWith({ ipRanges: ['10.0.0.0/8', '::1/128'] });
    const refused = await gw.call('GET', '/v1/sms/history', { key: elsewhere });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('IP_NOT_ALLOWED');
    // Refused again from the verified key's cache, not only on its first verification.
    expect((await gw.call('GET', '/v1/sms/history', { key: elsewhere })).body.error?.code).toBe('IP_NOT_ALLOWED');
    expect((await send(elsewhere)).body.error?.code).toBe('IP_NOT_ALLOWED');

    for (const ranges of [['127.0.0.0/8'], ['127.0.0.1/32', '2001:db8::/32']]) {
      const here = keyWith({ ipRanges: ranges, scopes: ['read'] });
      expect((await gw.call('GET', '/v1/sms/history', { key: here })).status).toBe(200);
    }
  });

  it('when a key reaches its daily quota, then the next send is refused 429 QUOTA_EXCEEDED until the next UTC day, a bulk counting each message and fitting whole or not at all', async () => {
    const key = keyWith({ dailyQuota: 5 });
    const sendsBefore = gw.sends.length;

    expect((await send(key)).status).toBe(200);
    expect((await bulk(key, 3)).status).toBe(200);
    const tooBig = await bulk(key, 2);
    expect(tooBig.status).toBe(429);
    expect(tooBig.body.error?.code).toBe('QUOTA_EXCEEDED');
    expect((await send(key)).status).toBe(200);
    const refused = await send(key);

    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: 'QUOTA_EXCEEDED',
        message: 'Quota journalier de cette clé API atteint : de nouveaux envois seront possibles demain (minuit UTC).',
      },
    });
    expect(gw.sends.length - sendsBefore).toBe(2);

    // The next day (by the gateway's clock), the quota starts again.
    gw.clockOffsetMs = msToNextUtcDay(Date.now()) + 1000;
    try {
      expect((await send(key)).status).toBe(200);
      expect(await gw.redis.get(keyUsageKey(`key_${key.slice(-12)}`, utcDay(new Date(Date.now() + gw.clockOffsetMs))))).toBe('1');
    } finally {
      gw.clockOffsetMs = 0;
    }
  });

  it('when a quota is refused, then Retry-After says the seconds to the next UTC midnight', async () => {
    const key = keyWith({ dailyQuota: 1 });
    expect((await send(key)).status).toBe(200);
    const res = await fetch(`${gw.base}/v1/sms/send`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'x-client-id': 'client_1736935200000123456', 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+33612345678', message: 'Bonjour' }),
    });
    expect(res.status).toBe(429);
    const expected = Math.ceil(msToNextUtcDay(Date.now()) / 1000);
    expect(Math.abs(Number(res.headers.get('retry-after')) - expected)).toBeLessThanOrEqual(2);
  });

  it('when a send is made again with its Idempotency-Key, or refused before it is stored, then it is counted once, or not at all', async () => {
    const key = keyWith({ dailyQuota: 2 });
    const idempotencyKey = `k-${Date.now()}`;
    expect((await send(key, { 'idempotency-key': idempotencyKey })).status).toBe(200);
    expect((await send(key, { 'idempotency-key': idempotencyKey })).status).toBe(200);
    // Refused by the body's rules: nothing counted.
    expect((await gw.call('POST', '/v1/sms/send', { key, body: { to: 'nope', message: 'x' } })).status).toBe(400);

    expect((await send(key)).status).toBe(200);
    expect((await send(key)).body.error?.code).toBe('QUOTA_EXCEEDED');
  });

  it('when a key has no quota, then its SMS of the day are counted all the same (the dashboard shows them), without a bound', async () => {
    const key = apiKey();
    for (let i = 0; i < 3; i++) expect((await send(key)).status).toBe(200);
    expect((await bulk(key, 4)).status).toBe(200);

    expect(await gw.redis.get(keyUsageKey(`key_${key.slice(-12)}`, utcDay(new Date())))).toBe('7');
  });

  it('when a key without a quota has a send replayed, refused or timed out by the message service, then only what may be stored is counted, by its answer', async () => {
    const key = apiKey();
    const counted = () => gw.redis.get(keyUsageKey(`key_${key.slice(-12)}`, utcDay(new Date())));
    expect((await send(key)).status).toBe(200);
    expect(await counted()).toBe('1');

    gw.nextSendOutcome = { replayed: true };
    expect((await send(key)).status).toBe(200);
    gw.nextSendOutcome = { error: new AppError('INVALID_DEVICE_ID') };
    expect((await send(key)).body.error?.code).toBe('INVALID_DEVICE_ID');
    expect(await counted()).toBe('1');

    // Out of time: the message may have been stored, so it is counted.
    gw.nextSendOutcome = { error: outcomeUnknown(new AppError('SERVICE_UNAVAILABLE', { cause: { code: grpcStatus.DEADLINE_EXCEEDED } })) };
    expect((await send(key)).body.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(await counted()).toBe('2');
  });

  describe('behind a trusted proxy', () => {
    const proxied = new FleetGateway();

    beforeAll(async () => {
      proxied.trustedProxies = new TrustedProxies(['127.0.0.0/8']);
      await proxied.start();
    });

    afterAll(() => proxied.stop());

    const history = (key: string, forwardedFor?: string) =>
      proxied.call('GET', '/v1/sms/history', {
        key,
        headers: { 'x-forwarded-proto': 'https', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      });
    const keyOf = (ipRanges: string[]) => {
      const key = apiKey();
      proxied.keyLimits.set(key, { ipRanges });
      return key;
    };

    it("when a key limited to ranges comes through the proxy, then the client's address the proxy reports is matched, not the proxy's; a hidden address is in no range", async () => {
      const office = keyOf(['203.0.113.0/24']);
      const local = keyOf(['127.0.0.0/8']);

      expect((await history(office, '203.0.113.7')).status).toBe(200);
      expect((await history(office, '198.51.100.1')).body.error?.code).toBe('IP_NOT_ALLOWED');
      expect((await history(local, '203.0.113.7')).body.error?.code).toBe('IP_NOT_ALLOWED');
      expect((await history(office)).body.error?.code).toBe('IP_NOT_ALLOWED');
      // A key without ranges works whatever the proxy says.
      expect((await history(apiKey())).status).toBe(200);
    });
  });

  it('when an MCP tool stands for an operation the key has no scope for, then it fails SCOPE_NOT_ALLOWED before anything is asked', async () => {
    const auth = {
      clientId: 'client_1',
      mode: 'live' as const,
      defaultTtlSeconds: 0,
      destinations: ALL_DESTINATIONS,
      keyId: 'key_1',
      dailyQuota: 0,
      scopes: new Set<KeyScope>(['send']),
    };
    // No upstream at all: a refused tool never reaches one.
    const tools = mcpOperations(
      {} as Upstreams,
      { auth, deviceId: undefined, requestId: 'req_1' },
      { allowPrivate: false },
      createLogger('t', 'silent'),
    );

    for (const refused of [() => tools.history({}), () => tools.inbox({}), () => tools.verifyOtp({ otp_id: 'otp_1', code: '1234' })]) {
      const failure = await refused().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(ToolFailure);
      expect((failure as ToolFailure).code).toBe('SCOPE_NOT_ALLOWED');
    }
  });
});
