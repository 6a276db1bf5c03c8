import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { eventually, request } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';
import type { AgentProcess } from './support/agent';

/** Deadline of every gRPC call of the gateway: shorter than a write held by the test. */
const DEADLINE_MS = 1500;

describe('retries after a lost answer, and input that cannot be stored', () => {
  let system: TestSystem;
  let client: DemoClient;
  let device: DemoDevice;
  let agent: AgentProcess;
  let db: pg.Client;

  beforeAll(async () => {
    system = await TestSystem.start({ GRPC_DEADLINE_MS: String(DEADLINE_MS) });
    client = await system.createClient();
    device = await system.createDevice(client.client_id);
    agent = await system.startAgent(client, device);
    db = new pg.Client({ connectionString: system.stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  /** Locks still held when a test ends (it failed half-way): released after it. */
  const locks = new Set<pg.Client>();
  afterEach(async () => {
    for (const lock of locks) await lock.end().catch(() => undefined);
    locks.clear();
  });

  /** Holds every insert into the message service's tables until `release()`. */
  async function holdWrites(): Promise<{ release(): Promise<void> }> {
    const lock = new pg.Client({ connectionString: system.stack.databaseUrl });
    await lock.connect();
    locks.add(lock);
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE message.messages, message.batches IN SHARE MODE');
    return {
      async release() {
        await lock.query('COMMIT');
        locks.delete(lock);
        await lock.end();
      },
    };
  }
  /** Waits until a statement of the message service waits on the test's lock. */
  const writeWaiting = () =>
    eventually(
      async () => {
        const { rows } = await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'message' AND wait_event_type = 'Lock'",
        );
        return rows[0]!.n > 0 ? true : undefined;
      },
      10_000,
      'a write waiting on the lock',
    );
  const storedFor = async (text: string) =>
    (
      await db.query<{ message_id: string; batch_id: string | null }>('SELECT message_id, batch_id FROM message.messages WHERE body = $1', [
        text,
      ])
    ).rows;

  it('when a send times out after it reached the database and is retried with its Idempotency-Key, then the retry answers the stored message and the SMS is sent once', async () => {
    const text = 'Relance après délai dépassé';
    const req = {
      headers: { 'X-Device-ID': device.device_id, 'Idempotency-Key': 'timeout-1' },
      body: { to: '+33612345678', message: text },
    };
    const held = await holdWrites();
    const started = Date.now();
    const first = await system.api('/v1/sms/send', client, req);
    const took = Date.now() - started;
    await writeWaiting();
    await held.release();

    // The outcome was unknown: 503, within the documented bound, saying to retry with the same key.
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(String((first.body.error as { message: string }).message)).toContain('Idempotency-Key');
    expect(took).toBeLessThan(3 * DEADLINE_MS);
    // It was stored once the lock went.
    const stored = await eventually(async () => ((await storedFor(text)).length > 0 ? storedFor(text) : undefined), 5000, 'the held write');

    const otherBody = await system.api('/v1/sms/send', client, { ...req, body: { to: '+33612345678', message: 'Un autre texte' } });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toMatchObject({ success: false, error: { code: 'IDEMPOTENCY_KEY_REUSED' } });

    const retry = await system.api('/v1/sms/send', client, req);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toMatchObject({ success: true, message_id: stored[0]!.message_id, to: '+33612345678', device_id: device.device_id });

    await system.waitForStatus(client, stored[0]!.message_id, 'delivered');
    await new Promise((r) => setTimeout(r, 500));
    expect(await storedFor(text)).toHaveLength(1);
    expect(agent.sent.filter((s) => s.text === text)).toHaveLength(1);
  });

  it('when send-otp times out after its SMS reached the database and is retried with its Idempotency-Key, then the retry answers the same OTP, the phone gets one SMS, and its code verifies', async () => {
    const to = '+33612345699';
    const req = { headers: { 'X-Device-ID': device.device_id, 'Idempotency-Key': 'otp-timeout-1' }, body: { to } };
    const held = await holdWrites();
    const first = await system.api('/v1/sms/send-otp', client, req);
    await writeWaiting();
    await held.release();

    // The outcome was unknown: the send endpoint's 503, saying to retry with the same key.
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toBe('1');
    expect(first.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(String((first.body.error as { message: string }).message)).toContain('Idempotency-Key');
    const smsTo = async () =>
      (await db.query<{ message_id: string }>('SELECT message_id FROM message.messages WHERE to_number = $1', [to])).rows;
    const stored = await eventually(async () => ((await smsTo()).length > 0 ? smsTo() : undefined), 5000, 'the held OTP SMS');
    const { rows: otps } = await db.query<{ otp_id: string }>('SELECT otp_id FROM otp.otps WHERE message_id = $1', [stored[0]!.message_id]);
    expect(otps).toHaveLength(1);

    const retry = await system.api('/v1/sms/send-otp', client, req);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toMatchObject({ success: true, otp_id: otps[0]!.otp_id, message_id: stored[0]!.message_id, to, status: 'queued' });

    await system.waitForStatus(client, stored[0]!.message_id, 'delivered');
    await new Promise((r) => setTimeout(r, 500));
    expect(await smsTo()).toHaveLength(1);
    const sent = agent.sent.filter((s) => s.message_id === stored[0]!.message_id);
    expect(sent).toHaveLength(1);
    const code = /(\d+)\D*$/.exec(sent[0]!.text)![1]!;
    const verified = await system.api('/v1/sms/verify-otp', client, { body: { otp_id: otps[0]!.otp_id, code } });
    expect(verified.body).toMatchObject({ success: true, valid: true });
  });

  it('when the gateway is killed after the message service stored the send, then the key answers 409 only for a few deadlines, and the retry answers the stored message', async () => {
    const text = 'Passerelle tuée en plein envoi';
    const req = {
      headers: { 'X-Device-ID': device.device_id, 'Idempotency-Key': 'killed-1' },
      body: { to: '+33612345678', message: text },
    };
    // The retries go to a second replica already running, as behind a load balancer: how long the
    // killed one takes to start again does not eat into the marker's few seconds.
    const replica = await system.stack.addGateway();
    const viaReplica = () =>
      request(`${replica}/v1/sms/send`, system.stack.certs.caPem, {
        ...req,
        headers: { 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id, ...req.headers },
      });
    const held = await holdWrites();
    const lost = system.api('/v1/sms/send', client, req).catch((err: unknown) => err);
    await writeWaiting();
    await system.stack.services.gateway.stop('SIGKILL');
    const restarted = system.stack.services.gateway.start();
    await held.release();
    // The client lost its connection: no answer.
    expect((await lost) as { status?: number }).not.toHaveProperty('status');
    const stored = await eventually(async () => ((await storedFor(text)).length > 0 ? storedFor(text) : undefined), 5000, 'the held write');

    const meanwhile = await viaReplica();
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body).toMatchObject({ success: false, error: { code: 'IDEMPOTENCY_IN_PROGRESS' } });
    expect(meanwhile.headers['retry-after']).toBe('1');

    // The marker of the dead request lasts 3 deadlines, not 24 hours.
    const retry = await eventually(
      async () => {
        const res = await viaReplica();
        return res.status === 409 ? undefined : res;
      },
      3 * DEADLINE_MS + 5000,
      'the in-progress marker to expire',
    );
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.message_id).toBe(stored[0]!.message_id);
    expect(await storedFor(text)).toHaveLength(1);
    await restarted;
  });

  it.each([
    ['/v1/sms/send-bulk', (text: string) => ({ recipients: ['+33611111111', '+33622222222'], message: text })],
    [
      '/v1/sms/send-bulk-personalized',
      (text: string) => ({
        messages: [
          { to: '+33611111111', message: text },
          { to: '+33622222222', message: text },
        ],
      }),
    ],
  ])(
    'when %s times out after it reached the database and is retried with its key, then the retry answers the stored batch',
    async (path, body) => {
      const text = `Lot relancé ${path}`;
      const req = { headers: { 'Idempotency-Key': `batch-${path}` }, body: body(text) };
      const held = await holdWrites();
      const first = await system.api(path, client, req);
      await writeWaiting();
      await held.release();
      expect(first.status).toBe(503);
      const stored = await eventually(
        async () => ((await storedFor(text)).length === 2 ? storedFor(text) : undefined),
        5000,
        'the held batch',
      );

      const retry = await system.api(path, client, req);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body.batch_id).toBe(stored[0]!.batch_id);
      expect((retry.body.messages as { message_id: string }[]).map((m) => m.message_id).sort()).toEqual(
        stored.map((s) => s.message_id).sort(),
      );
      expect(await storedFor(text)).toHaveLength(2);
    },
  );

  it.each([
    ['a lone surrogate in the text', '{"to":"+33612345678","message":"moitié \\ud800"}', 'message'],
    ['a NUL in a nested metadata key', '{"to":"+33612345678","message":"ok","metadata":{"a":{"b\\u0000":1}}}', 'metadata'],
    ['a NUL in a metadata value', '{"to":"+33612345678","message":"ok","metadata":{"a":["\\u0000"]}}', 'metadata'],
  ])('when a send carries %s, then it is refused with 400 INVALID_CHARACTER naming the field', async (_what, rawBody, field) => {
    const res = await system.api('/v1/sms/send', client, { rawBody }, 'test');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'INVALID_CHARACTER', details: [{ field, code: 'INVALID_CHARACTER' }] },
    });
  });

  it('when a bulk send carries a NUL, then it is refused with 400 and nothing is stored', async () => {
    const res = await system.api('/v1/sms/send-bulk', client, { body: { recipients: ['+33611111111'], message: 'lot\u0000' } }, 'test');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_CHARACTER' } });
  });

  it('when the history is searched with a NUL, then it is 400 INVALID_CHARACTER, not a server error', async () => {
    const res = await system.api('/v1/sms/history?search=a%00b', client);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'INVALID_CHARACTER', details: [{ field: 'search', code: 'INVALID_CHARACTER' }] },
    });
  });
});

// Many clients at once: on the run's shared stack, whose deadlines are the default ones, so that a
// busy machine's slower answers are not taken for lost ones.
describe('input that cannot be stored, among sends of other clients', () => {
  let shared: TestSystem;
  let sharedDb: pg.Client;
  const tag = randomBytes(4).toString('hex');

  beforeAll(async () => {
    shared = await TestSystem.shared();
    sharedDb = new pg.Client({ connectionString: shared.stack.databaseUrl });
    await sharedDb.connect();
  });

  afterAll(async () => {
    await sharedDb?.end();
    await shared?.stop();
  });

  it('when one send with a NUL arrives among 50 sends of other clients, then only it is refused with 400 INVALID_CHARACTER and the 50 are stored', async () => {
    const [sender, ...others] = await Promise.all(
      Array.from({ length: 51 }, async () => {
        const c = await shared.createClient();
        // Enrolled by pairing code: no device password to hash (51 scrypt hashes at once took over
        // the call's 10 s deadline on a busy machine).
        await shared.admin.createDevices(c.client_id, 1);
        return c;
      }),
    );
    const poisoned = shared.api('/v1/sms/send', sender, { body: { to: '+33612345678', message: 'nul\u0000ici' } }, 'test');
    const valid = others.map((c, i) =>
      shared.api('/v1/sms/send', c, { body: { to: '+33612345678', message: `Envoi valide ${tag} ${i}` } }, 'test'),
    );
    const [bad, ...good] = await Promise.all([poisoned, ...valid]);

    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      success: false,
      error: { code: 'INVALID_CHARACTER', details: [{ field: 'message', code: 'INVALID_CHARACTER' }] },
    });
    expect(good.map((r) => r.status)).toEqual(Array(50).fill(200));
    const { rows } = await sharedDb.query<{ n: number }>('SELECT count(*)::int AS n FROM message.messages WHERE body LIKE $1', [
      `Envoi valide ${tag} %`,
    ]);
    expect(rows[0]!.n).toBe(50);
  });
});
