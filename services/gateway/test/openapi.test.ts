import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import {
  ALL_DESTINATIONS,
  AppError,
  createLogger,
  DASHBOARD_ONLY_CODES,
  ERROR_CATALOG,
  FAILURE_CODES,
  newId,
  type ErrorCode,
} from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { escapePointer, OpenApi, type ResponseObject } from '@smsgw/testing';
import { openApiDocument } from '../src/openapi';
import { storedMessage } from './support/fleet-gateway';
import type { GatewayMiddleware, GatewayState } from '../src/http/context';
import type { KeyVerifier } from '../src/http/middleware/auth';
import { errorEnvelope } from '../src/http/middleware/errors';
import { requestId } from '../src/http/middleware/request-id';
import { authRoutes } from '../src/http/routes/auth.routes';
import { eventsRoutes } from '../src/http/routes/events.routes';
import { inboxRoutes } from '../src/http/routes/inbox.routes';
import { optOutRoutes } from '../src/http/routes/opt-outs.routes';
import { otpRoutes } from '../src/http/routes/otp.routes';
import { smsRoutes } from '../src/http/routes/sms.routes';
import { statusBody } from '../src/mappers/sms.mapper';
import type { Upstreams } from '../src/use-cases/upstreams';

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  responses: Record<string, ResponseObject>;
}

const doc = openApiDocument as {
  openapi: string;
  servers: { url: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, Json>;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, Json>;
  };
};
// Documented here but served outside the routers below: the probes live in app.ts.
const OUTSIDE_ROUTERS = ['GET /healthz', 'GET /readyz'];
const AGENT_ONLY_CODES = ['INVALID_DEVICE_TOKEN', 'INVALID_PAIRING'];

const api = new OpenApi(doc);

/** The value at a local pointer, or undefined when nothing is there. */
function resolvePointer(ref: string): unknown {
  try {
    return api.resolve(ref);
  } catch {
    return undefined;
  }
}

const deref = <T extends { $ref?: string }>(value: T, pointer: string) => api.deref(value, pointer);
const operations = () => api.operations() as { method: string; template: string; pointer: string; operation: Operation }[];
const validatorAt = (pointer: string) => api.validatorAt(pointer);

function allRefs(node: unknown, at = '#'): { at: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((v, i) => allRefs(v, `${at}/${i}`));
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === '$ref' && typeof v === 'string' ? [{ at, ref: v }] : allRefs(v, `${at}/${escapePointer(k)}`),
  );
}

/** The codes an error response narrows `error.code` to. */
function narrowedCodes(response: ResponseObject): string[] {
  const schema = response.content?.['application/json']?.schema as { allOf?: Json[] } | undefined;
  const narrowing = schema?.allOf?.[1] as { properties: { error: { properties: { code: { enum: string[] } } } } } | undefined;
  return narrowing?.properties.error.properties.code.enum ?? [];
}

/** What is wrong with `body` (and `headers`, when given) as the response at `pointer`; empty when it conforms. */
function problemsAt(pointer: string, body: unknown, headers?: Record<string, string>): string[] {
  const { value: response, pointer: at } = deref(resolvePointer(pointer) as ResponseObject, pointer);
  const validate = validatorAt(`${at}/content/application~1json/schema`);
  const problems = validate(body)
    ? []
    : (validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  if (headers === undefined) return problems;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const { value: header } = deref(declared, at);
    if (header.required && lower[name.toLowerCase()] === undefined) problems.push(`header ${name} absent`);
  }
  return problems;
}

const responsePointer = (method: string, template: string, status: number | string) =>
  `#/paths/${escapePointer(template)}/${method.toLowerCase()}/responses/${status}`;

describe('the OpenAPI document', () => {
  it('when read, then it is OpenAPI 3.1 served at https://localhost:8443 behind X-API-Key and X-Client-ID', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'https://localhost:8443' })]);
    expect(doc.security).toEqual([{ ApiKey: [], ClientId: [] }]);
    expect(doc.components.securitySchemes).toEqual({
      ApiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      ClientId: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Client-ID' }),
    });
  });

  it('when every $ref is followed, then it lands on an object of the document', () => {
    const refs = allRefs(doc);
    expect(refs.length).toBeGreaterThan(50);
    const dangling = refs
      .filter(({ ref }) => !ref.startsWith('#/') || typeof resolvePointer(ref) !== 'object')
      .map(({ at, ref }) => `${at} -> ${ref}`);
    expect(dangling).toEqual([]);
  });

  it('when the operations are listed, then each has a unique operationId, a 200 response and a description on every response', () => {
    const ops = operations();
    const ids = ops.map((o) => o.operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { template, method, operation, pointer } of ops) {
      expect({ op: `${method} ${template}`, has200: operation.responses['200'] !== undefined }).toEqual({
        op: `${method} ${template}`,
        has200: true,
      });
      for (const [status, response] of Object.entries(operation.responses)) {
        const { value } = deref(response, `${pointer}/responses/${status}`);
        expect({ at: `${method} ${template} ${status}`, description: typeof value.description }).toEqual({
          at: `${method} ${template} ${status}`,
          description: 'string',
        });
      }
    }
  });

  it("when compared with ERROR_CATALOG, then the Error code enum lists exactly its codes (but the dashboard's own)", () => {
    const error = doc.components.schemas.Error as { properties: { error: { properties: { code: { enum: string[] } } } } };
    expect([...error.properties.error.properties.code.enum].sort()).toEqual(
      (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((c) => !DASHBOARD_ONLY_CODES.includes(c)).sort(),
    );
  });

  it('when an operation answers an error status, then the codes allowed there are the catalog codes of that status', () => {
    for (const { template, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const codes = narrowedCodes(deref(response, '').value);
        expect({ at: `${method} ${template} ${status}`, narrows: codes.length > 0 }).toEqual({
          at: `${method} ${template} ${status}`,
          narrows: true,
        });
        for (const code of codes) expect({ code, http: ERROR_CATALOG[code as ErrorCode]?.http }).toEqual({ code, http: Number(status) });
      }
    }
    const covered = Object.values(doc.components.responses).flatMap(narrowedCodes).sort();
    expect(covered).toEqual(
      Object.keys(ERROR_CATALOG)
        .filter((c) => !AGENT_ONLY_CODES.includes(c) && !DASHBOARD_ONLY_CODES.includes(c as ErrorCode))
        .sort(),
    );
  });

  it('when compared with the failure codes of the platform, then the SMS error enum lists exactly them', () => {
    const smsError = doc.components.schemas.SmsError as { properties: { code: { enum: string[] } } };
    expect(smsError.properties.code.enum).toEqual([...FAILURE_CODES]);
  });

  it('when the gateway routers are built, then every route they register is documented and every documented route is registered', () => {
    const noop: GatewayMiddleware = (_ctx, next) => next();
    const up = {} as Upstreams;
    const registered = new Set(
      [
        smsRoutes(up, noop, noop, noop, { allowPrivate: false }),
        otpRoutes(up, noop, noop, noop),
        authRoutes(up, noop, noop),
        inboxRoutes(up, noop, noop),
        optOutRoutes(up, noop, noop),
        eventsRoutes(undefined, noop, noop, {} as KeyVerifier),
      ].flatMap((router) =>
        router.stack.flatMap((layer) =>
          layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(layer.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`),
        ),
      ),
    );
    const documented = new Set(operations().map((o) => `${o.method.toUpperCase()} ${o.template}`));
    expect([...registered].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((d) => !registered.has(d) && !OUTSIDE_ROUTERS.includes(d))).toEqual([]);
  });

  it('when any response is described, then it requires X-Request-ID', () => {
    const pointers = [
      ...operations().flatMap(({ pointer, operation }) =>
        Object.keys(operation.responses).map((status) => `${pointer}/responses/${status}`),
      ),
      ...Object.keys(doc.components.responses).map((name) => `#/components/responses/${name}`),
    ];
    for (const pointer of pointers) {
      const { value } = deref(resolvePointer(pointer) as ResponseObject, pointer);
      const header = value.headers?.['X-Request-ID'];
      expect({ pointer, required: header ? deref(header, '').value.required : false }).toEqual({ pointer, required: true });
    }
  });

  it('when an authenticated operation succeeds, then its answer requires X-Request-ID and the three RateLimit headers', () => {
    for (const { template, method, operation, pointer } of operations()) {
      const { value } = deref(operation.responses['200']!, `${pointer}/responses/200`);
      const required = Object.entries(value.headers ?? {})
        .filter(([, h]) => deref(h, '').value.required)
        .map(([name]) => name);
      const expected =
        template === '/healthz' || template === '/readyz'
          ? ['X-Request-ID']
          : ['X-Request-ID', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
      expect({ op: `${method} ${template}`, required }).toEqual({ op: `${method} ${template}`, required: expected });
    }
  });
});

const CLIENT = 'client_1736935200000123456';
const DEVICE = 'device_01JD3Z8Q6V5N4W2K9T7R1B0C3E';
const T0 = '2030-01-15T10:00:00.000Z';
const T1 = '2030-01-15T10:00:05.000Z';
const T2 = '2030-01-15T10:00:09.000Z';
// A scheduled send must be in the next 30 days.
const IN_AN_HOUR = new Date(Date.now() + 3600_000).toISOString();

/** A stored test-mode message of this file's client and device (the gateway tests' one builder). */
function stored(over: Partial<message.Message__Output> = {}): message.Message__Output {
  return storedMessage({ clientId: CLIENT, deviceId: DEVICE, mode: 'MODE_TEST', createdAt: T0, queuedAt: T0, ...over });
}

const RECEIVED_UNKNOWN = 'rcv_01JD3Z8Q6V5N4W2K9T7R1B0UNK';

function received(over: Partial<message.ReceivedMessage__Output> = {}): message.ReceivedMessage__Output {
  return {
    id: newId('msg').replace('msg_', 'rcv_'),
    clientId: CLIENT,
    mode: 'MODE_TEST',
    deviceId: DEVICE,
    sim: 0,
    from: '+33698765432',
    text: 'Bonjour',
    receivedAt: T0,
    createdAt: T1,
    ...over,
  };
}

describe('bodies checked against the document', () => {
  const send = {
    success: true,
    message_id: 'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
    status: 'queued',
    to: '+33612345678',
    device_id: DEVICE,
    parts: 1,
    encoding: 'GSM-7',
    queued_at: T0,
    estimated_delivery: T1,
    expires_at: null,
    sim: null,
  };

  it('when every response schema is compiled in strict mode, then none is refused', () => {
    for (const { pointer, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const { pointer: at, value } = deref(response, `${pointer}/responses/${status}`);
        // The listener's stream (text/event-stream) has no JSON body to validate.
        if (!value.content?.['application/json']) continue;
        expect(() => validatorAt(`${at}/content/application~1json/schema`)).not.toThrow();
      }
    }
  });

  it('when a send answer is what the gateway sends, then it conforms; with an extra field or a priority label, then it does not', () => {
    const at = responsePointer('post', '/v1/sms/send', 200);
    expect(problemsAt(at, send)).toEqual([]);
    expect(problemsAt(at, { ...send, scheduled_at: T2 })).toEqual([]);
    // A number on the suppression list: accepted, stored failed / OPTED_OUT at once.
    expect(problemsAt(at, { ...send, status: 'failed' })).toEqual([]);
    expect(problemsAt(at, { ...send, status: 'sent' })).not.toEqual([]);
    expect(problemsAt(at, { ...send, expires_at: T2 })).toEqual([]);
    expect(problemsAt(at, { ...send, sim: 2 })).toEqual([]);
    expect(problemsAt(at, { ...send, sim: 0 })).not.toEqual([]);
    expect(problemsAt(at, { ...send, extra: true })).toEqual([expect.stringContaining('additionalProperty')]);
    expect(problemsAt(at, { ...send, priority: 'normal' })).not.toEqual([]);
    expect(problemsAt(at, { ...send, to: '0612345678' })).not.toEqual([]);
    expect(problemsAt(at, { ...send, queued_at: 'yesterday' })).not.toEqual([]);
  });

  it('when the status body of a stored message is built, then it conforms at every stage, and a null timestamp does not', () => {
    const at = responsePointer('get', '/v1/sms/status/{message_id}', 200);
    expect(problemsAt(at, statusBody(stored()))).toEqual([]);
    expect(problemsAt(at, statusBody(stored({ scheduledAt: T2, metadataJson: '{"order":42}' })))).toEqual([]);
    expect(problemsAt(at, statusBody(stored({ status: 'delivered', sentAt: T1, deliveredAt: T2, priority: 1 })))).toEqual([]);
    expect(
      problemsAt(
        at,
        statusBody(stored({ status: 'failed', failedAt: T1, errorCode: 'OUT_OF_NETWORK', errorMessage: 'Destinataire hors réseau.' })),
      ),
    ).toEqual([]);
    expect(problemsAt(at, statusBody(stored({ status: 'cancelled', cancelledAt: T1, encoding: 'UCS-2', text: 'Été ☀️' })))).toEqual([]);
    const optedOut = 'Le destinataire a demandé à ne plus recevoir de SMS de ce compte.';
    expect(problemsAt(at, statusBody(stored({ status: 'failed', failedAt: T0, errorCode: 'OPTED_OUT', errorMessage: optedOut })))).toEqual(
      [],
    );
    expect(problemsAt(at, { ...statusBody(stored()), sent_at: null })).not.toEqual([]);
    const attempt = { deviceId: DEVICE, status: 'sent', errorCode: '', errorMessage: '', at: T1, sim: 2, reconciled: 'report_applied' };
    expect(problemsAt(at, statusBody(stored({ sim: 2, requestedSim: 2, replies: true, attempts: [attempt] })))).toEqual([]);
  });

  it('when an error envelope comes with its status, then it conforms; with a code of another status or an unknown code, then it does not', () => {
    const notFound = responsePointer('get', '/v1/sms/status/{message_id}', 404);
    expect(problemsAt(notFound, { success: false, error: { code: 'MESSAGE_NOT_FOUND', message: 'Message introuvable.' } })).toEqual([]);
    expect(problemsAt(notFound, { success: false, error: { code: 'INVALID_API_KEY', message: 'Clé API invalide.' } })).not.toEqual([]);
    expect(problemsAt(notFound, { success: false, error: { code: 'NO_SUCH_CODE', message: 'x' } })).not.toEqual([]);
    const badRequest = responsePointer('post', '/v1/sms/send', 400);
    const details = [
      { field: 'to', code: 'INVALID_PHONE_NUMBER', message: 'Numéro invalide.' },
      { field: 'priority', code: 'INVALID_PRIORITY' },
    ];
    expect(problemsAt(badRequest, { success: false, error: { code: 'VALIDATION_ERROR', message: 'Plusieurs champs.', details } })).toEqual(
      [],
    );
    expect(problemsAt(badRequest, { success: true, error: { code: 'VALIDATION_ERROR', message: 'x' } })).not.toEqual([]);
    const tooMany = responsePointer('get', '/v1/sms/history', 429);
    const envelope = { success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Trop de requêtes.' } };
    expect(
      problemsAt(tooMany, envelope, {
        'X-Request-ID': 'r',
        'RateLimit-Limit': '100',
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': '7',
        'Retry-After': '7',
      }),
    ).toEqual([]);
    expect(problemsAt(tooMany, envelope, { 'X-Request-ID': 'r' })).toEqual(expect.arrayContaining(['header Retry-After absent']));
  });

  it('when an OTP is verified, then both documented answers conform and a mix of them does not', () => {
    const at = responsePointer('post', '/v1/sms/verify-otp', 200);
    expect(problemsAt(at, { success: true, valid: true, message: 'Code valide.', verified_at: T1 })).toEqual([]);
    expect(problemsAt(at, { success: true, valid: false, message: 'Code incorrect.', attempts_remaining: 2 })).toEqual([]);
    expect(problemsAt(at, { success: true, valid: true, message: 'Code valide.', attempts_remaining: 2 })).not.toEqual([]);
    expect(
      problemsAt(responsePointer('post', '/v1/sms/send-otp', 200), {
        success: true,
        otp_id: newId('otp'),
        to: '+33612345678',
        expires_at: T2,
        message_id: newId('msg'),
        status: 'queued',
      }),
    ).toEqual([]);
  });
});

describe('the gateway routes answering through real HTTP', () => {
  const BATCH = newId('batch');
  let server: http.Server;
  let base: string;

  const up = {
    accounts: {},
    devices: {
      getDevice: async (req: { deviceId: string }) => {
        if (req.deviceId !== DEVICE) throw new AppError('INVALID_DEVICE_ID');
        return { deviceId: DEVICE, clientId: CLIENT, name: 'Pixel', status: 'online', lastSeenAt: T0, createdAt: T0 };
      },
      listDevices: async () => ({
        devices: [{ deviceId: DEVICE, clientId: CLIENT, name: 'Pixel', status: 'online', lastSeenAt: T0, createdAt: T0 }],
      }),
    },
    directory: {
      owned: async (_clientId: string, deviceId: string) => {
        if (deviceId !== DEVICE) throw new AppError('INVALID_DEVICE_ID');
        return { deviceId: DEVICE, clientId: CLIENT };
      },
      state: async () => ({ online: true, removed: false }),
      forgetRemoved: () => undefined,
    },
    sends: {
      send: async (req: { scheduledAt: string }) => {
        const m = stored({ scheduledAt: req.scheduledAt });
        return {
          messageId: m.messageId,
          status: m.status,
          parts: m.parts,
          encoding: m.encoding,
          queuedAt: m.queuedAt,
          scheduledAt: m.scheduledAt,
          estimatedDelivery: T1,
        };
      },
    },
    messages: {
      sendBatch: async (req: { messages: { to: string; text: string }[] }) => ({
        batchId: BATCH,
        messages: req.messages.map((m) => stored({ batchId: BATCH, to: m.to, text: m.text })),
        queuedAt: T0,
      }),
      getMessage: async (req: { messageId: string }) => {
        if (req.messageId === 'msg_unknown') throw new AppError('MESSAGE_NOT_FOUND');
        return stored({ messageId: req.messageId, status: 'delivered', sentAt: T1, deliveredAt: T2 });
      },
      cancelMessage: async (req: { messageId: string }) => {
        if (req.messageId === 'msg_01JD3Z8Q6V5N4W2K9T7R1B0SNT')
          throw new AppError('MESSAGE_NOT_CANCELLABLE', {
            details: [{ field: 'status', code: 'MESSAGE_NOT_CANCELLABLE', status: 'sent' }],
          });
        return stored({ messageId: req.messageId, status: 'cancelled', cancelledAt: T1 });
      },
      listMessages: async () => ({
        messages: [
          stored(),
          stored({ batchId: BATCH, status: 'delivered', sentAt: T1, deliveredAt: T2 }),
          stored({ status: 'failed', failedAt: T1, errorCode: 'BLACKLISTED', errorMessage: 'x' }),
        ],
        page: 1,
        perPage: 50,
        totalPages: 1,
        totalItems: 3,
      }),
      getStats: async () => ({
        from: '2029-12-16T00:00:00.000Z',
        to: '2030-01-15T23:59:59.999Z',
        totalSent: 3,
        delivered: 1,
        failed: 1,
        pending: 1,
        deliveryRate: 33.33,
        byDay: [{ date: '2030-01-15', sent: 3, delivered: 1, failed: 1, received: 2 }],
        received: 2,
      }),
      listReceived: async () => ({
        messages: [received(), received({ sim: 2, from: 'BANQUE' })],
        page: 1,
        perPage: 50,
        totalPages: 1,
        totalItems: 2,
      }),
      getReceived: async (req: { id: string }) => {
        if (req.id === RECEIVED_UNKNOWN) throw new AppError('RECEIVED_NOT_FOUND');
        return received({ id: req.id });
      },
      queueDepths: async () => ({ depths: {} }),
      listOptOuts: async () => ({
        optOuts: [
          { phoneNumber: '+33698765432', source: 'keyword', keyword: 'STOP', createdAt: T0 },
          { phoneNumber: '+33612345678', source: 'api', keyword: '', createdAt: T1 },
        ],
        page: 1,
        perPage: 50,
        totalPages: 1,
        totalItems: 2,
      }),
      addOptOut: async (req: { phoneNumber: string; source: string }) => ({
        phoneNumber: req.phoneNumber,
        source: req.source,
        keyword: '',
        createdAt: T0,
      }),
      removeOptOut: async (req: { phoneNumber: string }) => {
        if (req.phoneNumber === '+33655555555') throw new AppError('OPT_OUT_NOT_FOUND');
        return { removed: true };
      },
    },
    // Counted, never refused: the quota's rules have their own test (key-limits.test.ts).
    keyUsage: {
      take: async () => ({ stored: () => undefined, giveBack: async () => undefined }),
      countOnceStored: () => ({ stored: () => undefined, giveBack: async () => undefined }),
    },
  } as unknown as Upstreams;

  // Stand-ins for the Redis- and account-backed middleware: the same headers and errors, no I/O.
  const auth: GatewayMiddleware = async (ctx, next) => {
    if (!ctx.get('x-api-key') || !ctx.get('x-client-id')) throw new AppError('MISSING_AUTH_HEADERS');
    ctx.state.auth = {
      clientId: CLIENT,
      mode: 'test',
      defaultTtlSeconds: 0,
      destinations: ALL_DESTINATIONS,
      keyId: 'key_1',
      dailyQuota: 0,
    };
    await next();
  };
  const guard: GatewayMiddleware = async (ctx, next) => {
    ctx.set('RateLimit-Limit', '100');
    ctx.set('RateLimit-Remaining', '99');
    ctx.set('RateLimit-Reset', '60');
    await next();
  };
  const idempotent: GatewayMiddleware = (_ctx, next) => next();

  beforeAll(async () => {
    const app = new Koa<GatewayState>();
    app.use(requestId);
    app.use(errorEnvelope(createLogger('gateway-test', 'silent')));
    for (const router of [
      smsRoutes(up, auth, guard, idempotent, { allowPrivate: false }),
      authRoutes(up, auth, guard),
      inboxRoutes(up, auth, guard),
      optOutRoutes(up, auth, guard),
    ]) {
      app.use(router.routes());
      app.use(router.allowedMethods());
    }
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        'x-api-key': 'test_abc',
        'x-client-id': CLIENT,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, headers: Object.fromEntries(res.headers.entries()), body: await res.json() };
  }

  it.each([
    ['POST', '/v1/sms/send', '/v1/sms/send', { to: '+33 6 12 34 56 78', message: 'Bonjour', priority: 2, metadata: { order: 42 } }],
    ['POST', '/v1/sms/send', '/v1/sms/send', { to: '+33612345678', message: 'Plus tard', scheduled_at: IN_AN_HOUR }],
    ['POST', '/v1/sms/send-bulk', '/v1/sms/send-bulk', { recipients: ['+33612345678', '+33698765432'], message: 'Bonjour à tous' }],
    [
      'POST',
      '/v1/sms/send-bulk-personalized',
      '/v1/sms/send-bulk-personalized',
      {
        messages: [
          { to: '+33612345678', message: 'Bonjour Ana' },
          { to: '+33698765432', message: 'Bonjour Léo', metadata: { n: 2 } },
        ],
      },
    ],
    ['GET', '/v1/sms/status/{message_id}', '/v1/sms/status/msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E', undefined],
    ['GET', '/v1/sms/history', '/v1/sms/history?page=1&limit=50&status=delivered', undefined],
    ['GET', '/v1/sms/stats', '/v1/sms/stats', undefined],
    ['DELETE', '/v1/sms/{message_id}', '/v1/sms/msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E', undefined],
    ['GET', '/v1/auth/test', '/v1/auth/test', undefined],
    ['GET', '/v1/sms/inbox', '/v1/sms/inbox?page=1&limit=50&from=BANQUE', undefined],
    ['GET', '/v1/sms/inbox/{id}', '/v1/sms/inbox/rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E', undefined],
    ['GET', '/v1/opt-outs', '/v1/opt-outs?page=1&limit=50', undefined],
    ['POST', '/v1/opt-outs', '/v1/opt-outs', { phone_number: '+33 6 98 76 54 32' }],
    ['DELETE', '/v1/opt-outs/{phone_number}', '/v1/opt-outs/%2B33698765432', undefined],
  ])('when %s %s succeeds, then its answer conforms to the document', async (method, template, url, body) => {
    const res = await call(method, url, body);
    expect(res.status).toBe(200);
    expect(problemsAt(responsePointer(method, template, 200), res.body, res.headers)).toEqual([]);
  });

  it.each([
    ['POST', '/v1/sms/send', '/v1/sms/send', { to: 'nope', message: '' }, {}, 400],
    ['POST', '/v1/sms/send', '/v1/sms/send', { to: '+33612345678', message: 'x'.repeat(1601) }, {}, 400],
    [
      'POST',
      '/v1/sms/send-bulk',
      '/v1/sms/send-bulk',
      { recipients: Array.from({ length: 101 }, () => '+33612345678'), message: 'x' },
      {},
      400,
    ],
    ['POST', '/v1/sms/send', '/v1/sms/send', { to: '+33612345678', message: 'x' }, { 'x-device-id': 'device_Unknown' }, 404],
    ['GET', '/v1/sms/status/{message_id}', '/v1/sms/status/msg_unknown', undefined, {}, 404],
    ['GET', '/v1/sms/history', '/v1/sms/history?limit=abc', undefined, {}, 400],
    ['DELETE', '/v1/sms/{message_id}', '/v1/sms/msg_01JD3Z8Q6V5N4W2K9T7R1B0SNT', undefined, {}, 409],
    ['GET', '/v1/auth/test', '/v1/auth/test', undefined, { 'x-api-key': '' }, 400],
    ['GET', '/v1/sms/inbox', '/v1/sms/inbox?page=0x', undefined, {}, 400],
    ['GET', '/v1/sms/inbox/{id}', `/v1/sms/inbox/${RECEIVED_UNKNOWN}`, undefined, {}, 404],
    ['GET', '/v1/sms/inbox/{id}', '/v1/sms/inbox/msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E', undefined, {}, 404],
    ['GET', '/v1/opt-outs', '/v1/opt-outs?limit=x', undefined, {}, 400],
    ['POST', '/v1/opt-outs', '/v1/opt-outs', { phone_number: '0612345678' }, {}, 400],
    ['DELETE', '/v1/opt-outs/{phone_number}', '/v1/opt-outs/0612345678', undefined, {}, 400],
    ['DELETE', '/v1/opt-outs/{phone_number}', '/v1/opt-outs/%2B33655555555', undefined, {}, 404],
  ])('when %s %s fails, then its error conforms to the document', async (method, template, url, body, headers, status) => {
    const res = await call(method, url, body, headers);
    expect(res.status).toBe(status);
    expect(problemsAt(responsePointer(method, template, status), res.body, res.headers)).toEqual([]);
  });

  it('when a route or a method does not exist, then the answer is the documented NotFound or MethodNotAllowed error', async () => {
    const missing = await call('GET', '/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(problemsAt('#/components/responses/NotFound', missing.body, missing.headers)).toEqual([]);
    const wrongMethod = await call('PUT', '/v1/sms/send', {});
    expect(wrongMethod.status).toBe(405);
    expect(problemsAt('#/components/responses/MethodNotAllowed', wrongMethod.body, wrongMethod.headers)).toEqual([]);
  });
});
