/**
 * Hostile requests generated from the gateway's OpenAPI document with a
 * seeded PRNG: the same seed gives the same requests, so a failure can be
 * replayed with FUZZ_SEED.
 */

type Json = unknown;
type Schema = Record<string, unknown>;

export interface OpenApiDoc {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Schema> };
}

/** Mulberry32: small, fast, and good enough to pick test inputs. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

/** One HTTP request over a keep-alive client, or raw bytes on a fresh TLS socket. */
export type FuzzRequest =
  | {
      kind: 'http';
      method: string;
      path: string;
      /** Which credentials: a client's test key (by index), or the headers as given. */
      auth: { client: number } | 'none';
      headers: Record<string, string>;
      body?: Buffer;
      /** The path's message id is replaced by one a send returned, when there is one. */
      knownMessageId?: boolean;
      /** The documented operation it was made from. */
      operation: string;
      label: string;
    }
  | { kind: 'raw'; bytes: Buffer; label: string };

/** Strings that break naive code: NUL, lone surrogates, controls, odd Unicode, huge or tiny numbers as text. */
const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ud83d\ude00'.repeat(50),
  '\u202e\u0644\u0627',
  'e\u0301\u0301\u0301',
  '\ufeff+33612345678',
  '\u00a0+33 6 12 34 56 78',
  '+\u0663\u0663\u0666\u0661',
  '\r\n\t',
  '%00',
  '%ZZ',
  '${jndi:ldap://x}',
  "'; DROP TABLE messages; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  '9'.repeat(400),
  'x'.repeat(1601),
  '\u00e9'.repeat(1600),
  '{{code}}',
  'null',
  'true',
  '[]',
  '{}',
];

const ODD_NUMBERS = [0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 2 ** 64, 1e-320, 4294967297];

function deref(doc: OpenApiDoc, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    const parts = current.$ref.replace(/^#\//, '').split('/');
    let node: unknown = doc;
    for (const part of parts) node = (node as Record<string, unknown>)[part];
    current = node as Schema;
  }
  return current;
}

/** A value that the schema accepts (mostly: patterns are met through `examples`). */
export function validValue(doc: OpenApiDoc, raw: Schema, rng: Prng, depth = 0): Json {
  const schema = deref(doc, raw);
  if (Array.isArray(schema.allOf)) return validValue(doc, schema.allOf[0] as Schema, rng, depth);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return rng.pick(schema.examples as Json[]);
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum as Json[]);
  if ('const' in schema) return schema.const;
  const types = Array.isArray(schema.type) ? (schema.type as string[]).filter((t) => t !== 'null') : [schema.type as string | undefined];
  const type = types[0];
  if (type === 'object' || (type === undefined && schema.properties)) {
    const out: Record<string, Json> = {};
    const required = (schema.required as string[] | undefined) ?? [];
    for (const [name, sub] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {})) {
      if (required.includes(name) || (depth < 3 && rng.chance(0.4))) {
        const value = optionalValue(doc, name, sub, rng, depth);
        if (value !== undefined) out[name] = value;
      }
    }
    return out;
  }
  if (type === 'array') {
    const min = (schema.minItems as number | undefined) ?? 0;
    const count = rng.int(Math.max(min, 1), Math.min((schema.maxItems as number | undefined) ?? 3, 3));
    return Array.from({ length: count }, () => validValue(doc, schema.items as Schema, rng, depth + 1));
  }
  if (type === 'integer' || type === 'number') {
    const min = (schema.minimum as number | undefined) ?? 0;
    const max = (schema.maximum as number | undefined) ?? min + 100;
    return rng.int(min, max);
  }
  if (type === 'boolean') return rng.chance(0.5);
  if (type === 'string') {
    if (schema.format === 'date-time') return new Date(Date.now() + rng.int(2, 48) * 3600_000).toISOString();
    if (schema.format === 'uri') return 'https://hooks.example.com/sms';
    return rng.pick(['Bonjour', 'Votre code est 1234', 'Ça marche ✓', 'x']);
  }
  return null;
}

/** Optional fields that would need an outside service are left out of "valid" bodies. */
function optionalValue(doc: OpenApiDoc, name: string, sub: Schema, rng: Prng, depth: number): Json {
  if (name === 'webhook_url') return rng.chance(0.5) ? null : 'https://hooks.example.com/sms';
  if (name === 'metadata') return rng.chance(0.5) ? { order: rng.int(1, 999) } : null;
  return validValue(doc, sub, rng, depth + 1);
}

// Deep arrays are written into the JSON text afterwards (see toJson): JSON.stringify would overflow on them.
const DEEP = /"__deep_(\d+)__"/g;

function nested(depth: number): Json {
  return `__deep_${depth}__`;
}

function toJson(value: Json): string {
  return JSON.stringify(value).replace(DEEP, (_, depth: string) => `${'['.repeat(Number(depth))}1${']'.repeat(Number(depth))}`);
}

/** A wrong value for a field: another type, an odd string or number, or a deep structure. */
function wrongValue(rng: Prng): Json {
  switch (rng.int(0, 7)) {
    case 0:
      return rng.pick(ODD_STRINGS);
    case 1:
      return rng.pick(ODD_NUMBERS);
    case 2:
      return rng.pick([true, false, null]);
    case 3:
      return [rng.pick(ODD_STRINGS), rng.pick(ODD_NUMBERS)];
    case 4:
      return { [rng.pick(ODD_STRINGS)]: rng.pick(ODD_STRINGS) };
    case 5:
      return nested(rng.pick([50, 2000, 20_000]));
    case 6:
      return Array.from({ length: rng.int(101, 150) }, () => '+33612345678');
    default:
      return 'x'.repeat(rng.int(1, 5000));
  }
}

/** A body with one or more fields mutated, removed or added. */
function mutateBody(value: Json, rng: Prng): Json {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return wrongValue(rng);
  const out = { ...(value as Record<string, Json>) };
  const keys = Object.keys(out);
  const mutations = rng.int(1, 3);
  for (let i = 0; i < mutations; i++) {
    const action = rng.int(0, 4);
    if (action === 0 && keys.length > 0) delete out[rng.pick(keys)];
    else if (action === 1) out[rng.pick(['__proto__', 'constructor', 'extra', '\u0000', rng.pick(ODD_STRINGS)])] = wrongValue(rng);
    else if (action === 2 && keys.length > 0) {
      const key = rng.pick(keys);
      const inner = out[key];
      out[key] =
        Array.isArray(inner) && inner.length > 0
          ? inner.map((v) => (rng.chance(0.3) ? wrongValue(rng) : typeof v === 'object' ? mutateBody(v, rng) : v))
          : wrongValue(rng);
    } else if (keys.length > 0) out[rng.pick(keys)] = wrongValue(rng);
  }
  return out;
}

/** JSON text that is not quite JSON, or JSON that is not an object, or not text at all. */
function brokenBody(rng: Prng, valid: string): Buffer {
  switch (rng.int(0, 9)) {
    case 0:
      return Buffer.from(valid.slice(0, rng.int(0, Math.max(0, valid.length - 1))));
    case 1:
      return Buffer.from(rng.pick(['[]', '"text"', '42', 'null', 'true', '[{"to":"+33612345678"}]']));
    case 2:
      return Buffer.from(rng.int(0, 255).toString(16).repeat(rng.int(1, 50)));
    case 3:
      return Buffer.from(Array.from({ length: rng.int(1, 300) }, () => rng.int(0, 255)));
    case 4:
      return Buffer.from(valid.replace(/"/, "'"));
    case 5:
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid)]);
    case 6:
      return Buffer.from(valid.replace(/"([^"]*)"/, '"$1\\ud800"'));
    case 7:
      return Buffer.concat([Buffer.from(valid.slice(0, -1)), Buffer.from([0xc3, 0x28]), Buffer.from('}')]);
    case 8:
      return Buffer.from(`${valid}${valid}`);
    default:
      return Buffer.from('{"a":' + '['.repeat(rng.int(1000, 100_000)) + ']'.repeat(10));
  }
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/xml',
  '',
  '*/*',
  'application/json; charset=utf-16',
];

const BAD_PATH_PARTS = [
  '%00',
  'msg_%00',
  '%ZZ',
  '%E0%A4%A',
  '%C0%AF',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '..%2F..%2Fetc',
  'msg_' + '0'.repeat(26),
  'msg_01jd3z8q6v5n4w2k9t7r1b0c3e',
  'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3',
  'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3EE',
  'MSG_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
  'batch_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
  'x'.repeat(3000),
  '%20',
  'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E%00',
  "msg_'OR'1'='1",
  '1',
  '-1',
  '%2F',
  '',
];

const QUERY_VALUES = [
  '',
  '-1',
  '0',
  '1',
  '100',
  '101',
  '1e3',
  '0x10',
  '999999999999999999999',
  'abc',
  '%00',
  '%ZZ',
  '%E0%A4%A',
  '%2B33612345678',
  '+33612345678',
  '2030-01-01',
  '2030-02-30',
  '2030-01-01T08:00:00Z',
  '1969-12-31',
  '99999-01-01',
  'queued',
  'QUEUED',
  'delivered',
  'bogus',
  'device_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
  'device_%00',
  '%F0%9F%98%80',
  'x'.repeat(500),
  '%ED%A0%80',
  '%C3%28',
  '[]',
  'null',
];

function randomKey(rng: Prng): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let key = rng.pick(['sgw_live_', 'sgw_test_']);
  for (let i = 0; i < 40; i++) key += alphabet[rng.int(0, alphabet.length - 1)];
  return key;
}

interface Operation {
  method: string;
  template: string;
  body?: Schema;
  query: string[];
  secured: boolean;
}

export function operationsOf(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const op = raw as { requestBody?: { content?: Record<string, { schema?: Schema }> }; parameters?: Schema[]; security?: unknown[] };
      const query = (op.parameters ?? [])
        .map((p) => deref(doc, p))
        .filter((p) => p.in === 'query')
        .map((p) => p.name as string);
      out.push({
        method: method.toUpperCase(),
        template,
        body: op.requestBody?.content?.['application/json']?.schema,
        query,
        secured: !(Array.isArray(op.security) && op.security.length === 0),
      });
    }
  }
  return out;
}

const VALID_ID = 'msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E';

/** The raw requests that only a socket can send: broken HTTP/1.1 framing and headers. */
function rawRequest(rng: Prng, clientHeaders: string): Buffer {
  const path = rng.pick(['/v1/sms/send', '/v1/sms/history', `/v1/sms/${VALID_ID}`, '/v1/auth/test', '/healthz']);
  const method = rng.pick(['POST', 'DELETE', 'GET', 'PUT']);
  const head = `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${clientHeaders}`;
  const json = '{"to":"+33612345678","message":"hi"}';
  switch (rng.int(0, 13)) {
    case 0: // a chunk size that is not hexadecimal
      return Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`);
    case 1: // a chunk longer than announced
      return Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n3\r\n${json}\r\n0\r\n\r\n`);
    case 2: // both Content-Length and chunked
      return Buffer.from(`${head}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`);
    case 3: // a chunk extension far too long
      return Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n5;${'x'.repeat(20_000)}\r\nhello\r\n0\r\n\r\n`);
    case 4: // a header name with a space
      return Buffer.from(`${head}Bad Header: y\r\n\r\n`);
    case 5: // a NUL in a header value
      return Buffer.from(`${head}X-Device-ID: device_\u0000x\r\n\r\n`);
    case 6: // headers over the server limit
      return Buffer.from(`${head}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    case 7: // two different Content-Lengths
      return Buffer.from(`${head}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`);
    case 8: // an obsolete folded header
      return Buffer.from(`${head}X-Folded: a\r\n b\r\n\r\n`);
    case 9: // a request line that is not HTTP
      return Buffer.from(
        rng.pick([
          'GARBAGE\r\n\r\n',
          'GET /\r\n\r\n',
          `${method} ${path} HTTP/9.9\r\n\r\n`,
          '\u0000\u0001\u0002\r\n\r\n',
          `G\u00c9T ${path} HTTP/1.1\r\n\r\n`,
        ]),
      );
    case 10: // bytes outside ASCII in the path and a header
      return Buffer.concat([
        Buffer.from(`GET /v1/sms/status/`),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from(` HTTP/1.1\r\nHost: x\r\n${clientHeaders}X-Odd: \u00e9\r\n\r\n`, 'latin1'),
      ]);
    case 11: // a valid chunked body, for contrast
      return Buffer.from(
        `${head}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n`,
      );
    case 12: // a negative Content-Length
      return Buffer.from(`${head}Content-Length: -1\r\n\r\n`);
    default: // a bad header then a second request on the same connection
      return Buffer.from(`${head}Content-Length: 0\r\n\r\nGET /v1/sms/history HTTP/1.1\r\nHost: x\r\nX:\u0007\r\n\r\n`);
  }
}

/**
 * The request number `index` of the run of `seed`: the same pair always
 * gives the same request. `clients` is how many clients' keys may be used.
 */
export function generate(doc: OpenApiDoc, ops: Operation[], rng: Prng, clients: number, rawAuthHeaders: string): FuzzRequest {
  const category = rng.next();
  // A few clients get most of the traffic, so the rate limit is crossed too.
  const client = rng.chance(0.12) ? 0 : rng.int(1, clients - 1);
  if (category < 0.08) return { kind: 'raw', bytes: rawRequest(rng, rng.chance(0.7) ? rawAuthHeaders : ''), label: 'raw socket' };

  const op = rng.pick(ops);
  let path = op.template;
  let knownMessageId = false;
  if (path.includes('{message_id}')) {
    const choice = rng.next();
    if (choice < 0.3) knownMessageId = true;
    path = path.replace('{message_id}', choice < 0.5 ? VALID_ID : rng.pick(BAD_PATH_PARTS));
  }
  const headers: Record<string, string> = {};
  let auth: { client: number } | 'none' = op.secured ? { client } : 'none';
  const labels: string[] = [];

  // Query: valid, odd or repeated values; sometimes a parameter it does not know.
  if (op.query.length > 0 || rng.chance(0.1)) {
    const names = op.query.length > 0 ? op.query : ['page'];
    const parts: string[] = [];
    for (const name of names) {
      if (!rng.chance(0.35)) continue;
      parts.push(`${name}=${rng.pick(QUERY_VALUES)}`);
      if (rng.chance(0.1)) parts.push(`${name}=${rng.pick(QUERY_VALUES)}`);
    }
    if (rng.chance(0.1)) parts.push(`${rng.pick(['%00', 'x[]', '__proto__', 'a%ZZ'])}=${rng.pick(QUERY_VALUES)}`);
    if (parts.length > 0) path += `?${parts.join('&')}`;
    labels.push('query');
  }

  // Credentials: usually right; otherwise missing, random or odd.
  const authRoll = rng.next();
  if (op.secured && authRoll < 0.12) {
    auth = 'none';
    const mode = rng.int(0, 4);
    if (mode === 1) headers['x-api-key'] = randomKey(rng);
    if (mode >= 1) headers['x-client-id'] = rng.pick(['client_1', 'client_', 'x'.repeat(300), 'client_99999999999999999999999999', '']);
    if (mode === 2) headers['x-api-key'] = rng.pick(['sgw_live_', 'Bearer x', '\u00e9\u00e9', 'x'.repeat(5000)]);
    if (mode === 3) headers['x-api-key'] = randomKey(rng);
    labels.push('auth');
  }

  // Other headers.
  if (rng.chance(0.15))
    headers['x-device-id'] = rng.pick(['device_01JD3Z8Q6V5N4W2K9T7R1B0C3E', 'device_', 'device_x', '%00', 'x'.repeat(1000)]);
  if (rng.chance(0.1)) headers['idempotency-key'] = rng.pick(['k', 'x'.repeat(256), `fuzz-${rng.int(0, 20)}`, '\u00e9t\u00e9']);
  if (rng.chance(0.1)) headers['x-request-id'] = rng.pick(['ok-1', 'x'.repeat(200), 'a b', '\u00ff']);
  if (rng.chance(0.05))
    headers['traceparent'] = rng.pick(['00-zz-zz-01', '00-' + '0'.repeat(32) + '-' + '0'.repeat(16) + '-01', 'garbage']);

  // Method: the documented one, or another.
  let method = op.method;
  if (rng.chance(0.07)) {
    method = rng.pick(['PUT', 'PATCH', 'OPTIONS', 'HEAD', 'DELETE', 'POST', 'GET', 'PROPFIND']);
    labels.push('method');
  }

  let body: Buffer | undefined;
  const wantsBody = op.body !== undefined || rng.chance(0.05);
  if (wantsBody) {
    const valid = op.body ? validValue(doc, op.body, rng) : { hello: 'world' };
    const roll = rng.next();
    let text: string;
    if (roll < 0.4) text = JSON.stringify(valid);
    else if (roll < 0.85) {
      text = toJson(mutateBody(valid, rng));
      labels.push('mutated body');
    } else {
      body = brokenBody(rng, JSON.stringify(valid));
      labels.push('broken body');
      text = '';
    }
    body ??= Buffer.from(text);
    headers['content-type'] = rng.chance(0.85) ? 'application/json' : rng.pick(CONTENT_TYPES);
    if (body.length > 900_000 && rng.chance(0.5)) labels.push('large');
  }
  if (rng.chance(0.01) && method === 'POST') {
    body = Buffer.alloc(1024 * 1024 + 10, 0x20);
    labels.push('over 1 MB');
  }
  return {
    kind: 'http',
    method,
    path,
    auth,
    headers,
    body,
    knownMessageId,
    operation: `${op.method} ${op.template}`,
    label: `${method} ${op.template} ${labels.join(', ')}`.trim(),
  };
}
