import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { jetstreamManager } from '@nats-io/jetstream';
import type { AgentProcess, SentSms } from './support/agent';
import { eventually, request, type ApiResponse } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

const run = promisify(execFile);

/** pg_dump of the same major version as the server, wherever the distribution put it. */
function pgDumpBinary(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(root, v, 'bin/pg_dump')).find((p) => fs.existsSync(p));
  return found ?? 'pg_dump';
}

describe('one-time passwords, end to end over HTTPS with a simulated phone', () => {
  let system: TestSystem;
  let client: DemoClient;
  let other: DemoClient;
  let device: DemoDevice;
  let agent: AgentProcess;
  let n = 0;
  /** Everything the run carried on NATS, as it was published: the streams keep only what a consumer has not had. */
  let bus: NatsConnection;
  const carried: string[] = [];
  /** Every code a phone received in this file, for the leak check at the end. */
  const received = new Set<string>();
  /** And every text the phone sent for them (for the codes too short to be searched alone). */
  const texts = new Set<string>();
  // A number of its own for each OTP, unless a test is about one number.
  const number = () => `+3361${String(1_000_000 + n++).slice(-7)}`;

  beforeAll(async () => {
    // This file makes far more than 100 requests a minute; the global limit is another file's subject.
    system = await TestSystem.start({ TEST_MODE_SENT_DELAY_MS: '50', TEST_MODE_DELIVERY_DELAY_MS: '50', RATE_LIMIT_PER_MINUTE: '100000' });
    bus = await connect({ servers: system.stack.natsUrl, user: system.stack.natsAdmin?.user, pass: system.stack.natsAdmin?.password });
    bus.subscribe(`${system.stack.natsPrefix}.>`, {
      callback: (_err, msg) => {
        carried.push(`${msg.subject} ${new TextDecoder().decode(msg.data)}`);
      },
    });
    client = await system.createClient();
    other = await system.createClient();
    device = await system.createDevice(client.client_id);
    agent = await system.startAgent(client, device);
  });

  afterAll(async () => {
    await bus?.close();
    await system?.stop();
  });

  const sendOtp = (
    body: Record<string, unknown>,
    options: { mode?: 'live' | 'test'; headers?: Record<string, string>; url?: string } = {},
  ): Promise<ApiResponse> => {
    const headers = { 'X-Device-ID': device.device_id, ...options.headers };
    if (!options.url) return system.api('/v1/sms/send-otp', client, { headers, body }, options.mode ?? 'live');
    const key = options.mode === 'test' ? client.test_api_key : client.live_api_key;
    return request(`${options.url}/v1/sms/send-otp`, system.stack.certs.caPem, {
      headers: { 'X-API-Key': key, 'X-Client-ID': client.client_id, ...headers },
      body,
    });
  };
  const verifyOtp = (body: Record<string, unknown>, who: DemoClient = client, mode: 'live' | 'test' = 'live') =>
    system.api('/v1/sms/verify-otp', who, { body }, mode);

  /** The SMS the phone sent for this message, and the code read from its text (the last run of digits). */
  async function smsOf(messageId: string): Promise<SentSms & { code: string }> {
    const sms = await eventually(async () => agent.sent.find((s) => s.message_id === messageId), 20_000, `the phone to send ${messageId}`);
    const code = /(\d+)\D*$/.exec(sms.text)![1]!;
    received.add(code);
    texts.add(sms.text);
    return { ...sms, code };
  }

  it('when an OTP is asked with only a number, then the answer has the specification fields and no code, and the phone gets the French sentence with 6 digits', async () => {
    const res = await sendOtp({ to: '+33 6 12 00 00 01', metadata: { user: 'u-1' } });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      otp_id: expect.stringMatching(/^otp_/),
      to: '+33612000001',
      expires_at: expect.any(String),
      message_id: expect.stringMatching(/^msg_/),
      status: 'queued',
    });
    expect(Math.round((Date.parse(String(res.body.expires_at)) - Date.now()) / 1000)).toBeGreaterThan(290);
    const sms = await smsOf(String(res.body.message_id));
    expect(sms.to).toBe('+33612000001');
    expect(sms.text).toMatch(/^Votre code de vérification est : \d{6}$/);
    expect(res.raw).not.toContain(sms.code);
  });

  it('when the OTP SMS is followed, then it has a normal lifecycle at very_high priority and status and history show the code masked', async () => {
    const res = await sendOtp({ to: number(), template: 'Boutique : {{code}} est votre code.' });
    const id = String(res.body.message_id);
    const sms = await smsOf(id);
    expect(sms.text).toMatch(/^Boutique : \d{6} est votre code\.$/);
    const status = await system.waitForStatus(client, id, 'delivered');
    expect(status).toMatchObject({ message: 'Boutique : ****** est votre code.', priority: 'very_high' });
    const history = await system.api(`/v1/sms/history?search=Boutique`, client);
    const item = (history.body.data as { message_id: string; message: string }[]).find((m) => m.message_id === id);
    expect(item?.message).toBe('Boutique : ****** est votre code.');
    expect(JSON.stringify([status, history.body])).not.toContain(sms.code);
  });

  it('when the right code is verified, then valid with a French message and verified_at; verified again, then 409 OTP_ALREADY_VERIFIED', async () => {
    const res = await sendOtp({ to: number(), length: 4 });
    const { code } = await smsOf(String(res.body.message_id));
    expect(code).toMatch(/^\d{4}$/);

    const ok = await verifyOtp({ otp_id: res.body.otp_id, code });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true, valid: true, message: 'Code vérifié avec succès.', verified_at: expect.any(String) });
    const again = await verifyOtp({ otp_id: res.body.otp_id, code });
    expect([again.status, (again.body.error as { code: string }).code]).toEqual([409, 'OTP_ALREADY_VERIFIED']);
  });

  it('when wrong codes are given, then 2, 1, 0 attempts remain, then even the right code is 410 OTP_MAX_ATTEMPTS', async () => {
    const res = await sendOtp({ to: number(), length: 8, template: 'Code {{code}}' });
    const { code } = await smsOf(String(res.body.message_id));
    const wrong = code === '00000000' ? '11111111' : '00000000';
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const r = await verifyOtp({ otp_id: res.body.otp_id, code: wrong });
      expect(r.body).toMatchObject({ success: true, valid: false, message: expect.stringMatching(/^Code incorrect/) });
      remaining.push(r.body.attempts_remaining);
    }
    expect(remaining).toEqual([2, 1, 0]);
    const right = await verifyOtp({ otp_id: res.body.otp_id, code });
    expect([right.status, (right.body.error as { code: string }).code]).toEqual([410, 'OTP_MAX_ATTEMPTS']);
  });

  it("when the OTP is unknown or another client's, then 404 OTP_NOT_FOUND; when a field is missing, then 400 in the envelope", async () => {
    const res = await sendOtp({ to: number() });
    const { code } = await smsOf(String(res.body.message_id));
    const unknown = await verifyOtp({ otp_id: 'otp_01JD3Z8Q6V5N4W2K9T7R1B0C3E', code });
    const foreign = await verifyOtp({ otp_id: res.body.otp_id, code }, other);
    expect([unknown.status, foreign.status]).toEqual([404, 404]);
    expect([unknown.body.error, foreign.body.error]).toEqual([
      expect.objectContaining({ code: 'OTP_NOT_FOUND' }),
      expect.objectContaining({ code: 'OTP_NOT_FOUND' }),
    ]);
    const missing = await verifyOtp({ otp_id: res.body.otp_id });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: [{ field: 'code' }] } });
    expect((await verifyOtp({ otp_id: res.body.otp_id, code })).body.valid).toBe(true);
  });

  it('when the options break a rule, then 400 with the rule code and no SMS', async () => {
    const before = agent.sent.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ to: number(), length: 3 }, 'INVALID_OTP_LENGTH'],
      [{ to: number(), length: 9 }, 'INVALID_OTP_LENGTH'],
      [{ to: number(), expiry: 29 }, 'INVALID_OTP_EXPIRY'],
      [{ to: number(), expiry: 3601 }, 'INVALID_OTP_EXPIRY'],
      [{ to: number(), template: 'Votre code est {code}' }, 'INVALID_TEMPLATE'],
      [{ to: number(), template: `${'a'.repeat(1595)}{{code}}` }, 'MESSAGE_TOO_LONG'],
      [{ to: '0612345678' }, 'INVALID_PHONE_NUMBER'],
    ];
    for (const [body, code] of cases) {
      const res = await sendOtp(body);
      expect([res.status, (res.body.error as { code: string }).code]).toEqual([400, code]);
    }
    const fits = await sendOtp({ to: number(), template: `${'a'.repeat(1594)}{{code}}` });
    expect(fits.status).toBe(200);
    await smsOf(String(fits.body.message_id));
    expect(agent.sent.length).toBe(before + 1);
  });

  it('when send-otp is repeated with its Idempotency-Key, then the first answer comes back and one SMS is sent', async () => {
    const body = { to: number() };
    const first = await sendOtp(body, { headers: { 'Idempotency-Key': `otp-${Date.now()}` } });
    const key = `otp-key-${Date.now()}`;
    const a = await sendOtp(body, { headers: { 'Idempotency-Key': key } });
    const b = await sendOtp(body, { headers: { 'Idempotency-Key': key } });
    expect(b.body).toEqual(a.body);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(a.body.otp_id).not.toBe(first.body.otp_id);
    const { code } = await smsOf(String(a.body.message_id));
    await smsOf(String(first.body.message_id));
    await new Promise((r) => setTimeout(r, 500));
    expect(agent.sentCount(String(a.body.message_id))).toBe(1);
    expect((await verifyOtp({ otp_id: a.body.otp_id, code })).body.valid).toBe(true);
  });

  it("when send-otp is retried with its Idempotency-Key after the gateway's record of it is gone, then the otp service answers the same OTP and no second SMS is sent", async () => {
    const body = { to: number() };
    const key = `otp-durable-${Date.now()}`;
    const a = await sendOtp(body, { headers: { 'Idempotency-Key': key } });
    expect(a.status).toBe(200);
    // The gateway's fast path (Redis) forgets the key, as after a flush or a lost gateway: only the otp service remembers.
    const redis = new Redis(system.stack.redisUrl);
    try {
      const keys = await redis.keys(`${system.stack.redisPrefix}idempotency:*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    const b = await sendOtp(body, { headers: { 'Idempotency-Key': key } });
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(b.headers['idempotent-replayed']).toBe('true');
    const other = await sendOtp({ ...body, length: 8 }, { headers: { 'Idempotency-Key': key } });
    expect([other.status, (other.body.error as { code: string }).code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    const { code } = await smsOf(String(a.body.message_id));
    await new Promise((r) => setTimeout(r, 500));
    expect(agent.sentCount(String(a.body.message_id))).toBe(1);
    expect((await verifyOtp({ otp_id: a.body.otp_id, code })).body.valid).toBe(true);
  });

  it('when 20 verifies of the right code arrive at once, then exactly one is valid and the others 409', async () => {
    const res = await sendOtp({ to: number() });
    const { code } = await smsOf(String(res.body.message_id));
    const answers = await Promise.all(Array.from({ length: 20 }, () => verifyOtp({ otp_id: res.body.otp_id, code })));
    expect(answers.filter((a) => a.status === 200 && a.body.valid === true)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).map((a) => (a.body.error as { code: string }).code)).toEqual(
      Array(19).fill('OTP_ALREADY_VERIFIED'),
    );
  });

  it('when 20 wrong codes arrive at once, then no more than 3 attempts count and the right code afterwards is refused', async () => {
    const res = await sendOtp({ to: number(), length: 6 });
    const { code } = await smsOf(String(res.body.message_id));
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const answers = await Promise.all(Array.from({ length: 20 }, () => verifyOtp({ otp_id: res.body.otp_id, code: wrong })));
    const counted = answers.filter((a) => a.status === 200);
    expect(counted.map((a) => a.body.attempts_remaining).sort()).toEqual([0, 1, 2]);
    expect(counted.every((a) => a.body.valid === false)).toBe(true);
    expect(answers.filter((a) => a.status === 410).map((a) => (a.body.error as { code: string }).code)).toEqual(
      Array(17).fill('OTP_MAX_ATTEMPTS'),
    );
    const right = await verifyOtp({ otp_id: res.body.otp_id, code });
    expect([right.status, (right.body.error as { code: string }).code]).toEqual([410, 'OTP_MAX_ATTEMPTS']);
  });

  it('when 11 OTPs for one number are asked through two gateways, then 10 are sent and the 11th is 429 OTP_RATE_LIMITED with Retry-After; another number and the earlier OTPs still work', async () => {
    const second = await system.stack.addGateway();
    const to = number();
    const answers = await Promise.all(
      Array.from({ length: 11 }, (_, i) => sendOtp({ to, length: 8, template: 'Code {{code}}' }, i % 2 ? { url: second } : {})),
    );
    const sent = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect([sent.length, limited.length]).toEqual([10, 1]);
    expect(limited[0]!.body.error).toMatchObject({ code: 'OTP_RATE_LIMITED' });
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThan(3500);
    expect((await sendOtp({ to: number() })).status).toBe(200);
    // A newer OTP does not void the earlier ones: the first one still verifies.
    const firstSent = sent.sort((a, b) => String(a.body.otp_id).localeCompare(String(b.body.otp_id)))[0]!;
    const { code } = await smsOf(String(firstSent.body.message_id));
    for (const s of sent) await smsOf(String(s.body.message_id));
    expect((await verifyOtp({ otp_id: firstSent.body.otp_id, code })).body.valid).toBe(true);
  });

  it('when a test key asks, then the simulated device sends it (no phone), the code is 123456 (1234 for 4 digits), and it verifies', async () => {
    const six = await sendOtp({ to: number() }, { mode: 'test' });
    const four = await sendOtp({ to: number(), length: 4 }, { mode: 'test' });
    expect([six.status, four.status]).toEqual([200, 200]);
    await system.waitForStatus(client, String(six.body.message_id), 'delivered', 20_000, 'test');
    expect(agent.sentCount(String(six.body.message_id))).toBe(0);
    expect((await verifyOtp({ otp_id: six.body.otp_id, code: '123456' }, client, 'test')).body.valid).toBe(true);
    expect((await verifyOtp({ otp_id: four.body.otp_id, code: '1234' }, client, 'test')).body.valid).toBe(true);
    // The live key does not see test OTPs, and live codes are not the fixed one.
    expect((await verifyOtp({ otp_id: six.body.otp_id, code: '123456' })).status).toBe(404);
    expect([...received].some((c) => c === '123456' || c === '1234' || c === '12345678')).toBe(false);
  });

  it('when OTPs went through the whole stack, then no code the phone received is in any schema, any message the run carried on NATS (JetStream included), or any service log', async () => {
    // A few more, and the time for their events and logs to be written.
    for (let i = 0; i < 3; i++) {
      const res = await sendOtp({ to: number(), length: 8, template: 'Votre code : {{code}}' });
      const { code } = await smsOf(String(res.body.message_id));
      await verifyOtp({ otp_id: res.body.otp_id, code });
      await system.waitForStatus(client, String(res.body.message_id), 'delivered');
    }
    expect(received.size).toBeGreaterThan(20);

    const { stdout: dump } = await run(pgDumpBinary(), ['--no-owner', system.stack.databaseUrl], { maxBuffer: 256 * 1024 * 1024 });
    expect(dump).toContain('CREATE TABLE otp.otps');
    expect(dump).toContain('CREATE TABLE message.messages');

    const nc = await connect({ servers: system.stack.natsUrl, user: system.stack.natsAdmin?.user, pass: system.stack.natsAdmin?.password });
    const streamed: string[] = [];
    try {
      const jsm = await jetstreamManager(nc);
      for await (const name of jsm.streams.names()) {
        if (!name.startsWith(`${system.stack.natsPrefix.toUpperCase()}_`)) continue;
        const info = await jsm.streams.info(name);
        for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
          const stored = await jsm.streams.getMessage(name, { seq }).catch(() => null);
          if (stored) streamed.push(`${stored.subject} ${new TextDecoder().decode(stored.data)}`);
        }
      }
    } finally {
      await nc.close();
    }
    await bus.flush();
    expect(carried.length).toBeGreaterThan(20);

    const logDir = system.stack.logDir;
    const serviceLogs = fs
      .readdirSync(logDir)
      .filter((f) => f.endsWith('.log') && !f.startsWith('agent'))
      .map((f): [string, string] => [f, fs.readFileSync(path.join(logDir, f), 'utf8')]);
    expect(serviceLogs.map(([f]) => f)).toEqual(
      expect.arrayContaining(['gateway.log', 'otp.log', 'message.log', 'device-hub.log', 'account.log']),
    );

    const places: [string, string][] = [
      ['pg_dump', dump],
      ['jetstream', streamed.join('\n')],
      ['nats', carried.join('\n')],
      ...serviceLogs,
    ];
    const leaks: string[] = [];
    for (const code of received) {
      // A code stands alone: not a part of a longer run of digits (ids, timestamps).
      const alone = new RegExp(`(?<!\\d)${code}(?!\\d)`);
      for (const [where, text] of places) if (alone.test(text)) leaks.push(`${code} in ${where}`);
    }
    // A 4- or 6-digit code can stand alone by chance (a time's microseconds): those are searched
    // with the text they came in; an 8-digit one alone.
    for (const text of texts) for (const [where, content] of places) if (content.includes(text)) leaks.push(`"${text}" in ${where}`);
    expect(leaks.filter((l) => !/^\d{4} |^\d{6} /.test(l))).toEqual([]);
    expect([...received].filter((c) => c.length === 8).length).toBeGreaterThan(10);
  });
});
