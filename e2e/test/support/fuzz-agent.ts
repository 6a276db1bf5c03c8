/**
 * Hostile input for the device-hub (PROTOCOL.md): WebSocket frames a paired
 * phone may send, pairing bodies and upgrade requests, from a seeded PRNG
 * (support/fuzz.ts's), so that FUZZ_AGENT_SEED replays a run.
 */
import { Prng } from './fuzz';

/** The hub's limit on one frame (agent-server.ts's maxPayload). */
export const MAX_FRAME = 64 * 1024;

/** One frame: text (a string, or bytes sent as text, which may not be UTF-8), or binary. */
export interface HostileFrame {
  data: string | Buffer;
  binary: boolean;
  label: string;
}

/** The message ids a phone may name: its own (handed to it) and others' (never handed to it). */
export interface FrameIds {
  own: readonly string[];
  foreign: readonly string[];
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A well-formed message id that names no message. */
export function randomMessageId(rng: Prng): string {
  let id = 'msg_';
  for (let i = 0; i < 26; i++) id += CROCKFORD[rng.int(0, 31)];
  return id;
}

const ODD = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '\ud83d\ude00'.repeat(40),
  '\u202e\u0644\u0627',
  '${jndi:ldap://x}',
  "'; DROP TABLE devices; --",
  '__proto__',
  'constructor',
  '9999-99-99T99:99:99Z',
  '+33612345678',
];
const ODD_NUMBERS = [0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 2 ** 53 + 1, 9, 4, 3, 1];

/** A value of a wrong type or shape: odd strings and numbers, null, arrays, objects, deep nesting, long text. */
function wrong(rng: Prng): unknown {
  switch (rng.int(0, 8)) {
    case 0:
      return rng.pick(ODD);
    case 1:
      return rng.pick(ODD_NUMBERS);
    case 2:
      return rng.pick([true, false, null]);
    case 3:
      return [rng.pick(ODD), rng.pick(ODD_NUMBERS)];
    case 4:
      return { code: rng.pick(ODD), message: rng.pick(ODD_NUMBERS), __proto__: { polluted: true } };
    case 5:
      return JSON.parse('['.repeat(500) + ']'.repeat(500)) as unknown;
    case 6:
      return 'x'.repeat(rng.int(100, 20_000));
    case 7:
      return Array.from({ length: rng.int(100, 2000) }, (_, i) => ({ slot: i }));
    default:
      return undefined;
  }
}

/** A message id: one of the phone's, one never handed to it, one that names nothing, or not an id at all. */
function messageId(rng: Prng, ids: FrameIds): unknown {
  const roll = rng.next();
  if (roll < 0.25 && ids.own.length > 0) return rng.pick(ids.own);
  if (roll < 0.55 && ids.foreign.length > 0) return rng.pick(ids.foreign);
  if (roll < 0.7) return randomMessageId(rng);
  if (roll < 0.8) return rng.pick(['msg_', 'msg_\u0000', `msg_${'0'.repeat(40_000)}`, 'MSG_01JD3Z8Q6V5N4W2K9T7R1B0C3E', 'msg_../../x']);
  return wrong(rng);
}

/** A frame's fields: each kept, dropped, or replaced by a wrong value; sometimes extra ones. */
function mutate(rng: Prng, fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const roll = rng.next();
    if (roll < 0.55) out[name] = value;
    else if (roll < 0.7) continue;
    else out[name] = wrong(rng);
  }
  if (rng.chance(0.1)) out[rng.pick(['__proto__', 'constructor', 'extra', '\u0000'])] = wrong(rng);
  return out;
}

const now = () => new Date().toISOString();

/** A known frame type (PROTOCOL.md, agent to hub) with right, wrong, missing or oversized fields. */
function knownFrame(rng: Prng, ids: FrameIds): { frame: Record<string, unknown>; label: string } {
  const traceparent = rng.pick([undefined, '00-zz-zz-01', `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, 'x'.repeat(5000)]);
  switch (rng.int(0, 3)) {
    case 0:
      return { frame: mutate(rng, { type: 'ack', message_id: messageId(rng, ids), traceparent }), label: 'ack' };
    case 1: {
      const status = rng.pick(['sent', 'delivered', 'failed', 'accepted', 'SENT', 'queued', '']);
      const fields = {
        type: 'report',
        message_id: messageId(rng, ids),
        status,
        at: rng.pick([now(), '1970-01-01T00:00:00Z', '2999-12-31T23:59:59Z', 'yesterday', 0]),
        error: rng.pick([undefined, { code: 'INVALID_NUMBER', message: 'no' }, { code: 'NO_SUCH_CODE' }, 'DEVICE_ERROR']),
        not_sent: rng.pick([undefined, true, 'true', 1]),
        sim: rng.pick([undefined, 1, 2, 8, 9, 0, -1, '1', 1.5]),
        traceparent,
      };
      return { frame: mutate(rng, fields), label: 'report' };
    }
    case 2: {
      const sims = rng.pick([[], [{ slot: 1, carrier: 'Orange' }], [{ slot: 1 }, { slot: 1 }], [{ slot: 0 }, { slot: 9 }], 'sims', null]);
      const fields = {
        type: 'agent_hello',
        protocol: rng.pick([4, 3, 2, 99, -1, '4']),
        driver: rng.pick(['simulator', 'android', 'x']),
        sims,
      };
      return { frame: mutate(rng, fields), label: 'agent_hello' };
    }
    default: {
      const fields = {
        type: 'received',
        received_id: rng.pick([`fuzz-${rng.int(0, 1_000_000)}`, '', 'a b', 'x'.repeat(65), '\u0000']),
        from: rng.pick(['+33612345678', 'ORANGE', '', 'x'.repeat(33)]),
        text: rng.pick(['Bonjour', '', 'x'.repeat(10_001), '\ud800']),
        sim: rng.pick([undefined, 1, 9, 0, '2']),
        received_at: rng.pick([now(), 'never', 42]),
      };
      return { frame: mutate(rng, fields), label: 'received' };
    }
  }
}

/** Out-of-order steps on the phone's own messages: a report before the ack, twice, delivered before sent. */
function outOfOrder(rng: Prng, ids: FrameIds): Record<string, unknown> {
  const id = ids.own.length > 0 ? rng.pick(ids.own) : randomMessageId(rng);
  return rng.pick([
    { type: 'report', message_id: id, status: 'delivered', at: now() },
    { type: 'report', message_id: id, status: 'sent', at: now() },
    { type: 'report', message_id: id, status: 'failed', at: now(), error: { code: 'DEVICE_ERROR', message: 'x' }, not_sent: true },
    { type: 'ack', message_id: id },
    { type: 'agent_hello', protocol: 4, driver: 'simulator', sims: [{ slot: 1 }] },
  ]);
}

/**
 * One hostile frame for a paired phone's connection. Oversized frames (above
 * MAX_FRAME) and text that is not UTF-8 make the hub close the connection:
 * the caller reconnects.
 */
export function hostileFrame(rng: Prng, ids: FrameIds): HostileFrame {
  const roll = rng.next();
  if (roll < 0.1) {
    const text = rng.pick(['{', '}', 'ack', '{"type":"ack",', '\u0000\u0001', '{"type":"ack"}{"type":"ack"}', "{'type':'ack'}", 'NaN']);
    return { data: text, binary: false, label: 'not JSON' };
  }
  if (roll < 0.13) return { data: Buffer.from([0xc3, 0x28, 0xff, 0xfe]), binary: false, label: 'not UTF-8' };
  if (roll < 0.2) {
    const text = rng.pick([
      '[]',
      '42',
      'null',
      '"ack"',
      'true',
      '[{"type":"ack","message_id":"msg_x"}]',
      '['.repeat(5000) + ']'.repeat(5000),
    ]);
    return { data: text, binary: false, label: 'JSON not an object' };
  }
  if (roll < 0.27) {
    const type = rng.pick(['bogus', 'hello', 'sms', 'report_ack', 'reconnect', 'ACK', '', 42, null, ['ack'], { ack: 1 }]);
    return { data: JSON.stringify({ type, message_id: messageId(rng, ids) }), binary: false, label: 'unknown type' };
  }
  if (roll < 0.33) {
    const data = rng.chance(0.5)
      ? Buffer.from(Array.from({ length: rng.int(1, 2000) }, () => rng.int(0, 255)))
      : Buffer.from(JSON.stringify({ type: 'ack', message_id: messageId(rng, ids) }));
    return { data, binary: true, label: 'binary' };
  }
  if (roll < 0.35) {
    const size = MAX_FRAME + rng.int(1, 200_000);
    const data = rng.chance(0.5)
      ? JSON.stringify({ type: 'report', message_id: 'msg_x', status: 'sent', at: 'x'.repeat(size) })
      : 'x'.repeat(size);
    return { data, binary: rng.chance(0.3), label: 'oversized' };
  }
  if (roll < 0.45) return { data: JSON.stringify(outOfOrder(rng, ids)), binary: false, label: 'out of order' };
  const { frame, label } = knownFrame(rng, ids);
  return { data: JSON.stringify(frame), binary: false, label };
}

/** A hostile POST /v1/agent/pair body (and its content type). */
export function pairingBody(rng: Prng, clientId: string): { body: Buffer; contentType: string; label: string } {
  const contentType = rng.chance(0.85) ? 'application/json' : rng.pick(['text/plain', '', 'application/x-www-form-urlencoded']);
  const json = (value: unknown, label: string) => ({ body: Buffer.from(JSON.stringify(value)), contentType, label });
  switch (rng.int(0, 7)) {
    case 0:
      return {
        body: Buffer.from(rng.pick(['', '{', 'null', '[]', '"code"', '42', '{"pairing_code":']), 'utf8'),
        contentType,
        label: 'not an object',
      };
    case 1:
      return { body: Buffer.from(Array.from({ length: rng.int(1, 500) }, () => rng.int(0, 255))), contentType, label: 'bytes' };
    case 2:
      return { body: Buffer.alloc(16 * 1024 + rng.int(1, 100_000), 0x20), contentType, label: 'over 16 KiB' };
    case 3:
      return json(
        { pairing_code: rng.pick(['', 'K7M2Q9XAHB4R8TN3CW6ZDF2PMQ5SJ7VE9G', 'k7m2-q9xa hb4r', '\u0000', 'x'.repeat(10_000)]) },
        'pairing code',
      );
    case 4:
      return json({ pairing_code: wrong(rng) }, 'pairing code of another type');
    case 5:
      return json(
        { client_id: rng.pick([clientId, 'client_1', '', wrong(rng)]), device_password: rng.pick(['ABCD-EFGH-JKMN-PQRS', '', wrong(rng)]) },
        'client and password',
      );
    case 6:
      return json({ pairing_code: 'K7M2Q9XAHB4R8TN3CW6ZDF2PMQ5SJ7VE9G', agent: wrong(rng), __proto__: { admin: true } }, 'agent');
    default:
      return json(
        { client_id: clientId, device_password: 'ABCD-EFGH-JKMN-PQRS', pairing_code: 'K7M2Q9XAHB4R8TN3CW6ZDF2PMQ5SJ7VE9G' },
        'both',
      );
  }
}

/**
 * A hostile WebSocket upgrade request to the hub, as raw bytes: a bad token, or sometimes
 * `token` (a paired device's) with a bad handshake (key, version, subprotocol).
 */
export function upgradeRequest(rng: Prng, token: string): { bytes: Buffer; label: string } {
  const key = Buffer.from(Array.from({ length: 16 }, () => rng.int(0, 255))).toString('base64');
  const path = rng.pick(['/v1/agent', '/v1/agent', '/v1/agent/', '/v1/agents', '/', '/v1/agent?x=%ZZ']);
  const authorization = rng.pick([
    undefined,
    'Bearer ',
    'Bearer dtk_',
    `Bearer dtk_${'A'.repeat(43)}`,
    `Bearer dtk_${'x'.repeat(8000)}`,
    'Basic YWRtaW46YWRtaW4=',
    'bearer dtk_abc',
    "Bearer ' OR 1=1 --",
    'Bearer \u00e9\u00e9',
    `Bearer ${token}`,
    `Bearer ${token}`,
    `Bearer ${token}`,
  ]);
  const protocol = rng.pick([undefined, 'smsgw.agent.v1', 'smsgw.agent.v2', 'chat', '', 'smsgw.agent.v1, x']);
  const lines = [`GET ${path} HTTP/1.1`, 'Host: hub', 'Connection: Upgrade', `Upgrade: ${rng.pick(['websocket', 'websocket', 'h2c', ''])}`];
  if (rng.chance(0.9)) lines.push(`Sec-WebSocket-Key: ${rng.pick([key, key, 'short', ''])}`);
  lines.push(`Sec-WebSocket-Version: ${rng.pick(['13', '13', '8', 'x'])}`);
  if (authorization !== undefined) lines.push(`Authorization: ${authorization}`);
  if (protocol !== undefined) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
  return {
    bytes: Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    label: lines.slice(1).join(' ').replace(token, '<token>').slice(0, 300),
  };
}
