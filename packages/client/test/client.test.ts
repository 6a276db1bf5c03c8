import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureCerts } from '@smsgw/stack';
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  OPERATIONS,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
  SmsGateway,
  SmsGatewayError,
  TimeoutError,
  VERSION,
  type ClientOptions,
} from '../src';
import { envelope, FakeGateway } from './support/fake-gateway';

const sent = { success: true, message_id: 'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E', status: 'queued', to: '+33612345678' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the TypeScript client against a scripted gateway', () => {
  let gw: FakeGateway;
  const client = (extra: Partial<ClientOptions> = {}) =>
    new SmsGateway({ apiKey: 'sgw_test_k', clientId: 'client_1', baseUrl: gw.url, backoff: { baseMs: 5, capMs: 20 }, ...extra });

  beforeEach(async () => {
    gw = await FakeGateway.start();
  });
  afterEach(async () => {
    await gw.stop();
  });

  it('when a message is sent, then the credentials, a new Idempotency-Key and the JSON body go out, and the answer comes back with its request id', async () => {
    gw.reply({
      status: 200,
      body: sent,
      headers: { 'x-request-id': 'abc', 'ratelimit-limit': '100', 'ratelimit-remaining': '99', 'ratelimit-reset': '60' },
    });
    const res = await client({ deviceId: 'device_A' }).messages.send({ to: '+33612345678', message: 'Bonjour', metadata: { order: 7 } });
    expect(res).toEqual(sent);
    expect(res.lastResponse).toMatchObject({
      status: 200,
      requestId: 'abc',
      replayed: false,
      attempts: 1,
      rateLimit: { limit: 100, remaining: 99, reset: 60 },
    });
    expect(JSON.stringify(res)).not.toContain('lastResponse');
    const [r] = gw.requests;
    expect(r).toMatchObject({
      method: 'POST',
      path: '/v1/sms/send',
      body: { to: '+33612345678', message: 'Bonjour', metadata: { order: 7 } },
    });
    expect(r!.headers).toMatchObject({
      'x-api-key': 'sgw_test_k',
      'x-client-id': 'client_1',
      'x-device-id': 'device_A',
      'content-type': 'application/json',
    });
    expect(r!.headers['idempotency-key']).toMatch(UUID);
    expect(res.lastResponse.idempotencyKey).toBe(r!.headers['idempotency-key']);
    expect(r!.headers['user-agent']).toBe(`smsgw-node/${VERSION} node/${process.version}`);
  });

  it("when two messages are sent, then each gets its own Idempotency-Key, and a caller's own key is used as given", async () => {
    const c = client();
    await c.messages.send({ to: '+33612345678', message: 'a' });
    await c.messages.send({ to: '+33612345678', message: 'b' });
    await c.messages.send({ to: '+33612345678', message: 'c' }, { idempotencyKey: 'order-17' });
    const keys = gw.requests.map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(3);
    expect(keys[2]).toBe('order-17');
  });

  it('when a send is answered 503 then 200, then it is retried once with the same Idempotency-Key, and the answer says replayed', async () => {
    gw.reply(
      { status: 503, body: envelope('SERVICE_UNAVAILABLE'), headers: { 'retry-after': '0' } },
      { status: 200, body: sent, headers: { 'idempotent-replayed': 'true' } },
    );
    const res = await client().messages.sendBulk({ recipients: ['+33612345678'], message: 'x' });
    expect(gw.requests).toHaveLength(2);
    expect(gw.requests[0]!.headers['idempotency-key']).toBe(gw.requests[1]!.headers['idempotency-key']);
    expect(res.lastResponse).toMatchObject({ attempts: 2, replayed: true });
  });

  it('when the gateway answers 429 with Retry-After: 1, then the client waits that second before trying again', async () => {
    gw.reply(
      { status: 429, body: envelope('RATE_LIMIT_EXCEEDED'), headers: { 'retry-after': '1' } },
      { status: 200, body: { success: true } },
    );
    const started = Date.now();
    await client().messages.get('msg_1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(gw.requests).toHaveLength(2);
  });

  it('when Retry-After is longer than a minute (an OTP limit), then nothing is retried and the RateLimitError carries it', async () => {
    gw.reply({ status: 429, body: envelope('OTP_RATE_LIMITED'), headers: { 'retry-after': '3600' } });
    const err = (await client()
      .otp.send({ to: '+33612345678' })
      .catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'OTP_RATE_LIMITED', retryAfter: 3600 });
    expect(gw.requests).toHaveLength(1);
  });

  it("when a key is used outside its scopes or ranges, or past its daily quota, then the error's class and code say which, thrown at once", async () => {
    const c = client();
    for (const code of ['SCOPE_NOT_ALLOWED', 'IP_NOT_ALLOWED'] as const) {
      gw.reply({ status: 403, body: envelope(code) });
      const err = (await c.messages.get('msg_1').catch((e: unknown) => e)) as AuthenticationError;
      expect(err).toBeInstanceOf(AuthenticationError);
      expect(err).toMatchObject({ status: 403, code });
    }
    // Until the next UTC midnight: longer than the client waits.
    gw.reply({ status: 429, body: envelope('QUOTA_EXCEEDED'), headers: { 'retry-after': '40000' } });
    const before = gw.requests.length;
    const err = (await c.messages.send({ to: '+33612345678', message: 'x' }).catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'QUOTA_EXCEEDED', retryAfter: 40000 });
    expect(gw.requests.length - before).toBe(1);
  });

  it('when the gateway keeps answering 503, then the call gives up after maxRetries and throws ServiceUnavailableError', async () => {
    gw.fallback = { status: 503, body: envelope('DEVICE_OFFLINE', 'hors ligne') };
    const err = await client({ maxRetries: 3 })
      .messages.send({ to: '+33612345678', message: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err).toMatchObject({ code: 'DEVICE_OFFLINE', status: 503 });
    expect(gw.requests).toHaveLength(4);
    expect(new Set(gw.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
  });

  it('when the answer is a 4xx or a 500, then it is thrown at once as its class with code, details and request id', async () => {
    const cases: [number, string, new (...a: never[]) => ApiError][] = [
      [400, 'INVALID_PHONE_NUMBER', InvalidRequestError],
      [401, 'INVALID_API_KEY', AuthenticationError],
      [404, 'MESSAGE_NOT_FOUND', NotFoundError],
      [409, 'MESSAGE_NOT_CANCELLABLE', ConflictError],
      [410, 'OTP_EXPIRED', ConflictError],
      [422, 'IDEMPOTENCY_KEY_REUSED', InvalidRequestError],
      [500, 'INTERNAL_ERROR', ServerError],
    ];
    const c = client();
    for (const [status, code, cls] of cases) {
      gw.reply({ status, body: envelope(code, 'Numéro invalide', [{ field: 'to', code }]), headers: { 'x-request-id': `r-${status}` } });
      const before = gw.requests.length;
      const err = (await c.messages.send({ to: 'x', message: 'y' }).catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(cls);
      expect(err).toBeInstanceOf(SmsGatewayError);
      expect(err).toMatchObject({ status, code, requestId: `r-${status}`, details: [{ field: 'to', code }] });
      expect(err.message).toContain(code);
      expect(gw.requests.length - before).toBe(1);
    }
  });

  it('when a send meets IDEMPOTENCY_IN_PROGRESS (its own lost attempt still running), then it waits and gets the stored answer', async () => {
    gw.reply(
      'reset',
      { status: 409, body: envelope('IDEMPOTENCY_IN_PROGRESS'), headers: { 'retry-after': '0' } },
      { status: 200, body: sent, headers: { 'idempotent-replayed': 'true' } },
    );
    const res = await client().messages.send({ to: '+33612345678', message: 'x' });
    expect(res.message_id).toBe(sent.message_id);
    expect(gw.requests).toHaveLength(3);
    expect(new Set(gw.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
  });

  it('when the connection is reset after a send reached the gateway, then it is retried with the same key', async () => {
    gw.reply('reset', { status: 200, body: sent });
    const res = await client().messages.send({ to: '+33612345678', message: 'x' });
    expect(res.lastResponse.attempts).toBe(2);
    expect(gw.requests[0]!.headers['idempotency-key']).toBe(gw.requests[1]!.headers['idempotency-key']);
  });

  it('when the connection is reset after verify-otp reached the gateway, or it answers 503, then it is not retried (the code may have been counted)', async () => {
    gw.reply('reset');
    const err = await client()
      .otp.verify({ otp_id: 'otp_1', code: '123456' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(gw.requests).toHaveLength(1);
    gw.reply({ status: 503, body: envelope('SERVICE_UNAVAILABLE') });
    await expect(client().otp.verify({ otp_id: 'otp_1', code: '123456' })).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(gw.requests).toHaveLength(2);
    expect(gw.requests[1]!.headers['idempotency-key']).toBeUndefined();
  });

  it('when verify-otp is refused with 429, then it is retried: nothing was counted', async () => {
    gw.reply(
      { status: 429, body: envelope('RATE_LIMIT_EXCEEDED'), headers: { 'retry-after': '0' } },
      { status: 200, body: { success: true, valid: true } },
    );
    const res = await client().otp.verify({ otp_id: 'otp_1', code: '123456' });
    expect(res.valid).toBe(true);
    expect(gw.requests).toHaveLength(2);
  });

  it('when nothing listens, then the call fails with a ConnectionError after its retries', async () => {
    const url = gw.url;
    await gw.stop();
    const c = new SmsGateway({ apiKey: 'k', clientId: 'c', baseUrl: url, maxRetries: 2, backoff: { baseMs: 1, capMs: 2 } });
    const err = (await c.otp.verify({ otp_id: 'otp_1', code: '1' }).catch((e: unknown) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.connected).toBe(false);
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    gw = await FakeGateway.start();
  });

  it('when the gateway does not answer in time, then each attempt times out and a read is retried', async () => {
    gw.fallback = 'hang';
    const err = await client({ timeoutMs: 150, maxRetries: 1 })
      .messages.get('msg_1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(gw.requests).toHaveLength(2);
  });

  it('when the caller aborts, then the call stops at once and is not retried', async () => {
    gw.fallback = 'hang';
    const controller = new AbortController();
    const call = client().messages.get('msg_1', { signal: controller.signal });
    // Aborted once the gateway holds the request (a fixed delay raced the request on a loaded machine).
    while (gw.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gw.requests).toHaveLength(1);
  });

  it('when an error answer has no envelope (a proxy page), then it is still an ApiError of its status', async () => {
    gw.reply({ status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } });
    const err = (await client()
      .messages.get('msg_1')
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ServerError);
    expect(err.code).toBe('UNEXPECTED_RESPONSE');
    expect(err.message).toContain('Bad gateway');
  });

  it("when the history is listed, then every page is fetched in turn, with the period pinned at the first page's newest message", async () => {
    const item = (n: number) => ({ message_id: `msg_${n}`, created_at: `2030-01-01T00:00:0${9 - n}.000Z` });
    gw.reply(
      {
        status: 200,
        body: { success: true, data: [item(1), item(2)], pagination: { current_page: 1, per_page: 2, total_pages: 3, total_items: 5 } },
      },
      {
        status: 200,
        body: { success: true, data: [item(3), item(4)], pagination: { current_page: 2, per_page: 2, total_pages: 3, total_items: 5 } },
      },
      {
        status: 200,
        body: { success: true, data: [item(5)], pagination: { current_page: 3, per_page: 2, total_pages: 3, total_items: 5 } },
      },
    );
    const ids: string[] = [];
    for await (const m of client().messages.list({ limit: 2, status: 'delivered' })) ids.push(m.message_id);
    expect(ids).toEqual(['msg_1', 'msg_2', 'msg_3', 'msg_4', 'msg_5']);
    expect(gw.requests.map((r) => Object.fromEntries(r.query))).toEqual([
      { limit: '2', page: '1', status: 'delivered' },
      { limit: '2', page: '2', status: 'delivered', to_date: '2030-01-01T00:00:08.000Z' },
      { limit: '2', page: '3', status: 'delivered', to_date: '2030-01-01T00:00:08.000Z' },
    ]);
  });

  it('when the history is empty, then the iterator ends after one request', async () => {
    gw.reply({
      status: 200,
      body: { success: true, data: [], pagination: { current_page: 1, per_page: 100, total_pages: 0, total_items: 0 } },
    });
    const all = [];
    for await (const m of client().messages.list()) all.push(m);
    expect(all).toEqual([]);
    expect(gw.requests).toHaveLength(1);
  });

  it('when every method is called, then together they reach every operation of the OpenAPI document, with its method and path', async () => {
    const c = client();
    await c.messages.send({ to: '+1', message: 'a' });
    await c.messages.sendBulk({ recipients: ['+1'], message: 'a' });
    await c.messages.sendPersonalized({ messages: [{ to: '+1', message: 'a' }] });
    await c.messages.get('msg_1/../x');
    await c.messages.cancel('msg_1');
    await c.messages.history({ page: 2, search: 'bonjour' });
    await c.messages.stats({ from_date: '2030-01-01' });
    await c.otp.send({ to: '+1' });
    await c.otp.verify({ otp_id: 'otp_1', code: '1' });
    await c.otp.stats({ from_date: '2030-01-01', device_id: 'device_A' });
    await c.inbox.page({ from: '+33698765432', limit: 10 });
    await c.inbox.get('rcv_1');
    await c.optOuts.page({ page: 2 });
    await c.optOuts.add({ phone_number: '+33612345678' });
    await c.optOuts.remove('+33612345678');
    await c.auth.test({ deviceId: 'device_B' });
    const reached = gw.requests.map((r) => `${r.method} ${r.path}`);
    const expected = Object.values(OPERATIONS).map(
      (op) =>
        `${op.method} ${op.path
          .replace('{message_id}', op.method === 'GET' ? 'msg_1%2F..%2Fx' : 'msg_1')
          .replace('{id}', 'rcv_1')
          .replace('{phone_number}', '%2B33612345678')}`,
    );
    expect(reached.sort()).toEqual(expected.sort());
    const keyed = gw.requests.filter((r) => r.headers['idempotency-key']).map((r) => r.path);
    expect(keyed.sort()).toEqual(
      Object.values(OPERATIONS)
        .filter((op) => op.idempotencyKey)
        .map((op) => op.path)
        .sort(),
    );
    expect(gw.requests.at(-1)!.headers['x-device-id']).toBe('device_B');
  });

  it('when a message is sent with ttl and failover, then both go in the body of a send, a batch, its messages and an OTP', async () => {
    const c = client({ deviceId: 'device_A' });
    await c.messages.send({ to: '+33612345678', message: 'a', ttl: 600, failover: true });
    await c.messages.sendBulk({ recipients: ['+33612345678'], message: 'a', ttl: 3600, failover: false });
    await c.messages.sendPersonalized({ messages: [{ to: '+33612345678', message: 'a', ttl: 120 }], ttl: 60, failover: true });
    await c.otp.send({ to: '+33612345678', failover: true });
    expect(gw.requests.map((r) => r.body)).toEqual([
      { to: '+33612345678', message: 'a', ttl: 600, failover: true },
      { recipients: ['+33612345678'], message: 'a', ttl: 3600, failover: false },
      { messages: [{ to: '+33612345678', message: 'a', ttl: 120 }], ttl: 60, failover: true },
      { to: '+33612345678', failover: true },
    ]);
  });

  it('when the inbox is asked for, then its filters go in the query, the + of a sender escaped, and one SMS comes by its escaped id', async () => {
    const received = {
      id: 'rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
      from: '+33698765432',
      device_id: 'device_A',
      sim: 1,
      message: 'Oui',
      received_at: '2026-11-25T09:12:03.000Z',
      created_at: '2026-11-25T09:12:03.412Z',
    };
    gw.reply(
      {
        status: 200,
        body: { success: true, data: [received], pagination: { current_page: 1, per_page: 50, total_pages: 1, total_items: 1 } },
      },
      { status: 200, body: { success: true, ...received } },
      { status: 404, body: envelope('RECEIVED_NOT_FOUND') },
    );
    const c = client({ deviceId: 'device_A' });
    const page = await c.inbox.page({
      from: '+33698765432',
      device_id: 'device_A',
      from_date: '2026-11-01',
      to_date: '2026-11-30',
      search: 'oui',
      page: 1,
      limit: 50,
    });
    expect(page.data).toEqual([received]);
    expect((await c.inbox.get(received.id)).message).toBe('Oui');
    await expect(c.inbox.get('rcv_x/../y')).rejects.toMatchObject({ status: 404, code: 'RECEIVED_NOT_FOUND' });
    await expect(c.inbox.get('rcv_x')).resolves.toBeDefined();
    expect(gw.requests[0]!.query.toString()).toContain('from=%2B33698765432');
    expect(Object.fromEntries(gw.requests[0]!.query)).toEqual({
      from: '+33698765432',
      device_id: 'device_A',
      from_date: '2026-11-01',
      to_date: '2026-11-30',
      search: 'oui',
      page: '1',
      limit: '50',
    });
    expect(gw.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/sms/inbox',
      `GET /v1/sms/inbox/${received.id}`,
      'GET /v1/sms/inbox/rcv_x%2F..%2Fy',
      'GET /v1/sms/inbox/rcv_x',
    ]);
    expect(gw.requests.every((r) => r.headers['idempotency-key'] === undefined && r.headers['x-device-id'] === undefined)).toBe(true);
  });

  it("when the inbox is listed, then every page is fetched in turn, with the period pinned at the first page's newest SMS", async () => {
    const item = (n: number) => ({ id: `rcv_${n}`, received_at: `2030-01-01T00:00:0${9 - n}.000Z` });
    const page = (n: number, data: unknown[]) => ({
      status: 200,
      body: { success: true, data, pagination: { current_page: n, per_page: 2, total_pages: 2, total_items: 3 } },
    });
    gw.reply(page(1, [item(1), item(2)]), page(2, [item(3)]));
    const ids: string[] = [];
    for await (const m of client().inbox.list({ limit: 2, from: 'BANQUE' })) ids.push(m.id);
    expect(ids).toEqual(['rcv_1', 'rcv_2', 'rcv_3']);
    expect(gw.requests.map((r) => Object.fromEntries(r.query))).toEqual([
      { limit: '2', page: '1', from: 'BANQUE' },
      { limit: '2', page: '2', from: 'BANQUE', to_date: '2030-01-01T00:00:08.000Z' },
    ]);
  });

  it('when the opt-outs are listed, added and removed, then the pages follow, the body is the number, and its + is %2B in the path', async () => {
    const entry = (n: number) => ({
      phone_number: `+3361234567${n}`,
      source: 'api',
      keyword: null,
      created_at: '2026-11-25T09:20:00.000Z',
    });
    gw.reply(
      {
        status: 200,
        body: { success: true, data: [entry(1), entry(2)], pagination: { current_page: 1, per_page: 2, total_pages: 2, total_items: 3 } },
      },
      {
        status: 200,
        body: { success: true, data: [entry(3)], pagination: { current_page: 2, per_page: 2, total_pages: 2, total_items: 3 } },
      },
      { status: 200, body: { success: true, ...entry(4) } },
      { status: 200, body: { success: true, phone_number: '+33612345674', removed: true } },
      { status: 404, body: envelope('OPT_OUT_NOT_FOUND') },
    );
    const c = client();
    const numbers: string[] = [];
    for await (const o of c.optOuts.list({ limit: 2 })) numbers.push(o.phone_number);
    expect(numbers).toEqual(['+33612345671', '+33612345672', '+33612345673']);
    expect((await c.optOuts.add({ phone_number: '+33612345674' })).source).toBe('api');
    expect((await c.optOuts.remove('+33612345674')).removed).toBe(true);
    const err = await c.optOuts.remove('+33612345674').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ code: 'OPT_OUT_NOT_FOUND' });
    expect(gw.requests.map((r) => [r.method, r.path, Object.fromEntries(r.query), r.body])).toEqual([
      ['GET', '/v1/opt-outs', { limit: '2', page: '1' }, undefined],
      ['GET', '/v1/opt-outs', { limit: '2', page: '2' }, undefined],
      ['POST', '/v1/opt-outs', {}, { phone_number: '+33612345674' }],
      ['DELETE', '/v1/opt-outs/%2B33612345674', {}, undefined],
      ['DELETE', '/v1/opt-outs/%2B33612345674', {}, undefined],
    ]);
    expect(gw.requests[2]!.headers['idempotency-key']).toBeUndefined();
  });

  it('when a base URL has a path prefix, then the API paths are appended to it', async () => {
    await client({ baseUrl: `${gw.url}/sms-api` }).auth.test();
    expect(gw.requests[0]!.path).toBe('/sms-api/v1/auth/test');
  });

  it('when the options miss a credential or the URL is not HTTP(S), then the constructor refuses them', () => {
    expect(() => new SmsGateway({ apiKey: '', clientId: 'c', baseUrl: 'https://x' })).toThrow(/apiKey/);
    expect(() => new SmsGateway({ apiKey: 'k', clientId: '', baseUrl: 'https://x' })).toThrow(/clientId/);
    expect(() => new SmsGateway({ apiKey: 'k', clientId: 'c', baseUrl: 'ftp://x' })).toThrow(/https/);
  });

  it('when the base URL is plain http to another machine, then the constructor refuses it (the key would go in clear); this machine is accepted', () => {
    for (const baseUrl of ['http://sms.example.com', 'http://10.0.0.5:8443', 'http://[2001:db8::1]/', 'http://127.0.0.1.example.com']) {
      expect(() => new SmsGateway({ apiKey: 'k', clientId: 'c', baseUrl })).toThrow(/plain http only to this machine/);
    }
    for (const baseUrl of [
      'http://localhost:8443',
      'http://127.0.0.1:9',
      'http://127.1.2.3',
      'http://[::1]:8443',
      'https://sms.example.com',
    ]) {
      expect(() => new SmsGateway({ apiKey: 'k', clientId: 'c', baseUrl })).not.toThrow();
    }
  });

  it('when the gateway answers a redirect, then it is not followed: the key goes nowhere else and the call fails with its status', async () => {
    gw.fallback = { status: 307, headers: { location: 'https://collector.example.com/steal' }, body: '' };
    const err = await client()
      .auth.test()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(307);
    expect(gw.requests).toHaveLength(1);
  });
});

describe('the TypeScript client over HTTPS with a private certificate authority', () => {
  it("when the CA file is given, then the gateway's certificate is trusted; without it, the connection is refused", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-client-ca-'));
    const certs = await ensureCerts(dir, ['127.0.0.1']);
    const gw = await FakeGateway.start({ cert: certs.certPem, key: certs.keyPem });
    try {
      gw.fallback = { status: 200, body: { success: true, mode: 'test' } };
      const trusted = new SmsGateway({ apiKey: 'k', clientId: 'c', baseUrl: gw.url, caFile: certs.caCertFile });
      expect((await trusted.auth.test()).mode).toBe('test');
      trusted.close();
      const untrusted = new SmsGateway({ apiKey: 'k', clientId: 'c', baseUrl: gw.url, maxRetries: 0 });
      const err = (await untrusted.auth.test().catch((e: unknown) => e)) as ConnectionError;
      expect(err).toBeInstanceOf(ConnectionError);
      expect(String((err.cause as Error).message)).toMatch(/certificate/);
    } finally {
      await gw.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
