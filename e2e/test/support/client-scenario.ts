import fs from 'node:fs';
import path from 'node:path';
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  InvalidRequestError,
  MemorySeenEvents,
  NotFoundError,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
  SmsGateway,
  verifyWebhook,
  WebhookVerificationError,
} from '@smsgw/client';

/**
 * The scenario every client library runs against the real gateway (TypeScript here, Python in
 * e2e/scenarios/python/scenario.py, Go in e2e/scenarios/go/main.go), and the report each prints:
 * what a user of the library sees. The test asserts the same things on the three reports.
 *
 * Its inputs, in the environment: SMSGW_BASE_URL, SMSGW_PROXY_URL (a proxy that loses the first
 * answer of each send), SMSGW_API_KEY, SMSGW_TEST_API_KEY, SMSGW_CLIENT_ID, SMSGW_DEVICE_ID,
 * SMSGW_CA_FILE, SMSGW_WEBHOOK_SECRET, SMSGW_WEBHOOK_DIR (where the test's receiver writes each
 * delivery as {path, signature, raw}, and where `replay-<event_id>.req` asks it to replay an
 * event), SMSGW_WEBHOOK_PATH and SMSGW_LANG (tags the texts).
 */
export interface ErrorSeen {
  kind: 'invalid_request' | 'authentication' | 'not_found' | 'conflict' | 'rate_limit' | 'unavailable' | 'server' | 'other';
  status: number;
  code: string;
  request_id: string;
  fields: string[];
}

export interface ScenarioReport {
  auth: { mode: string; client_id: string; device_id: string };
  single: { message_id: string; status: string; to: string; final_status: string };
  bulk: { batch_id: string; total_recipients: number; message_ids: string[]; statuses: string[] };
  personalized: { batch_id: string; message_ids: string[]; texts: string[] };
  scheduled: {
    message_id: string;
    status: string;
    scheduled: boolean;
    cancel_status: string;
    status_after: string;
    cancel_again: ErrorSeen;
  };
  retry: { message_id: string; idempotency_key: string; attempts: number; replayed: boolean; history_total: number };
  history: { ids: string[]; total_items: number; page2: { current_page: number; per_page: number; count: number } };
  otp: { otp_id: string; wrong: { valid: boolean; attempts_remaining: number }; right: { valid: boolean }; again: ErrorSeen };
  errors: { invalid_phone: ErrorSeen; not_found: ErrorSeen; bad_key: ErrorSeen };
  webhook: { event: string; event_id: string; message_id: string; duplicate: string; tampered: string; stale: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function seen(err: unknown): ErrorSeen {
  if (!(err instanceof ApiError)) throw err;
  const kind: ErrorSeen['kind'] =
    err instanceof InvalidRequestError
      ? 'invalid_request'
      : err instanceof AuthenticationError
        ? 'authentication'
        : err instanceof NotFoundError
          ? 'not_found'
          : err instanceof ConflictError
            ? 'conflict'
            : err instanceof RateLimitError
              ? 'rate_limit'
              : err instanceof ServiceUnavailableError
                ? 'unavailable'
                : err instanceof ServerError
                  ? 'server'
                  : 'other';
  return { kind, status: err.status, code: err.code, request_id: err.requestId ?? '', fields: err.details.map((d) => d.field ?? '') };
}

async function refused(call: () => Promise<unknown>): Promise<ErrorSeen> {
  try {
    await call();
  } catch (err) {
    return seen(err);
  }
  throw new Error('the call was expected to fail');
}

interface Delivery {
  path: string;
  signature: string;
  raw: string;
}

/** The deliveries the test's receiver wrote, in arrival order. */
function deliveries(dir: string): Delivery[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Delivery);
}

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(300);
  }
}

export async function runScenario(env: Record<string, string>): Promise<ScenarioReport> {
  const lang = env.SMSGW_LANG!;
  const common = {
    clientId: env.SMSGW_CLIENT_ID!,
    baseUrl: env.SMSGW_BASE_URL!,
    caFile: env.SMSGW_CA_FILE!,
    deviceId: env.SMSGW_DEVICE_ID!,
  };
  const sms = new SmsGateway({ ...common, apiKey: env.SMSGW_API_KEY! });

  const auth = await sms.auth.test();

  const sent = await sms.messages.send({ to: '+33612345678', message: `Bonjour (${lang})`, metadata: { lang } });
  const delivered = await waitFor(async () => {
    const m = await sms.messages.get(sent.message_id);
    return m.status === 'delivered' || m.status === 'failed' ? m : undefined;
  }, 'the single message to be delivered');

  const bulk = await sms.messages.sendBulk({ recipients: ['+33612345001', '+33612345002', '+33612345003'], message: `Promo (${lang})` });

  const perso = await sms.messages.sendPersonalized({
    messages: [
      { to: '+33612345011', message: `Bonjour Ana (${lang})` },
      { to: '+33612345012', message: `Bonjour Bo (${lang})` },
    ],
  });
  const texts = await Promise.all(perso.messages.map(async (m) => (await sms.messages.get(m.message_id)).message));

  const later = await sms.messages.send({
    to: '+33612345021',
    message: `Rappel (${lang})`,
    scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
  });
  const cancelled = await sms.messages.cancel(later.message_id);
  const after = await sms.messages.get(later.message_id);
  const cancelAgain = await refused(() => sms.messages.cancel(later.message_id));

  const viaProxy = new SmsGateway({ ...common, apiKey: env.SMSGW_API_KEY!, baseUrl: env.SMSGW_PROXY_URL! });
  const retried = await viaProxy.messages.send({ to: '+33612345031', message: `Relance (${lang})` });
  const retryHistory = await sms.messages.history({ search: `Relance (${lang})` });

  const ids: string[] = [];
  for await (const m of sms.messages.list({ limit: 3 })) ids.push(m.message_id);
  const page2 = await sms.messages.history({ page: 2, limit: 3 });

  const test = new SmsGateway({ ...common, apiKey: env.SMSGW_TEST_API_KEY! });
  const otp = await test.otp.send({ to: '+33612345041' });
  const wrong = await test.otp.verify({ otp_id: otp.otp_id, code: '000000' });
  const right = await test.otp.verify({ otp_id: otp.otp_id, code: '123456' });
  const otpAgain = await refused(() => test.otp.verify({ otp_id: otp.otp_id, code: '123456' }));

  const invalidPhone = await refused(() => sms.messages.send({ to: '12345', message: 'x' }));
  const notFound = await refused(() => sms.messages.get('msg_00000000000000000000000000'));
  const badKey = await refused(() => new SmsGateway({ ...common, apiKey: 'sgw_live_notakey' }).auth.test());

  const dir = env.SMSGW_WEBHOOK_DIR!;
  const mine = (d: Delivery) => {
    const body = JSON.parse(d.raw) as { event: string; event_id: string; data: { message_id?: string } };
    return d.path === env.SMSGW_WEBHOOK_PATH && body.event === 'sms.delivered' && body.data.message_id === sent.message_id
      ? body
      : undefined;
  };
  const first = await waitFor(() => deliveries(dir).find(mine), 'the sms.delivered webhook');
  const eventId = mine(first)!.event_id;
  fs.writeFileSync(path.join(dir, `replay-${eventId}.req`), '');
  const copies = await waitFor(() => {
    const all = deliveries(dir).filter((d) => mine(d)?.event_id === eventId);
    return all.length >= 2 ? all : undefined;
  }, 'the replayed webhook');
  const secret = env.SMSGW_WEBHOOK_SECRET!;
  const store = new MemorySeenEvents();
  const event = await verifyWebhook(copies[0]!.raw, copies[0]!.signature, secret, { seen: store });
  const reason = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'accepted';
    } catch (err) {
      if (err instanceof WebhookVerificationError) return err.reason;
      throw err;
    }
  };
  const duplicate = await reason(verifyWebhook(copies[1]!.raw, copies[1]!.signature, secret, { seen: store }));
  const tampered = await reason(verifyWebhook(copies[0]!.raw.replace(sent.message_id, later.message_id), copies[0]!.signature, secret));
  const stale = await reason(
    verifyWebhook(copies[0]!.raw, copies[0]!.signature, secret, { now: () => Date.parse(event.timestamp) + 10 * 60_000 }),
  );

  for (const c of [sms, viaProxy, test]) c.close();
  return {
    auth: { mode: auth.mode, client_id: auth.client_id, device_id: auth.device_id },
    single: { message_id: sent.message_id, status: sent.status, to: sent.to, final_status: delivered.status },
    bulk: {
      batch_id: bulk.batch_id,
      total_recipients: bulk.total_recipients,
      message_ids: bulk.messages.map((m) => m.message_id),
      statuses: bulk.messages.map((m) => m.status),
    },
    personalized: { batch_id: perso.batch_id, message_ids: perso.messages.map((m) => m.message_id), texts },
    scheduled: {
      message_id: later.message_id,
      status: later.status,
      scheduled: later.scheduled_at !== undefined,
      cancel_status: cancelled.status,
      status_after: after.status,
      cancel_again: cancelAgain,
    },
    retry: {
      message_id: retried.message_id,
      idempotency_key: retried.lastResponse.idempotencyKey ?? '',
      attempts: retried.lastResponse.attempts,
      replayed: retried.lastResponse.replayed,
      history_total: retryHistory.pagination.total_items,
    },
    history: {
      ids,
      total_items: page2.pagination.total_items,
      page2: { current_page: page2.pagination.current_page, per_page: page2.pagination.per_page, count: page2.data.length },
    },
    otp: {
      otp_id: otp.otp_id,
      wrong: { valid: wrong.valid, attempts_remaining: wrong.valid ? -1 : wrong.attempts_remaining },
      right: { valid: right.valid },
      again: otpAgain,
    },
    errors: { invalid_phone: invalidPhone, not_found: notFound, bad_key: badKey },
    webhook: { event: event.event, event_id: event.event_id, message_id: String(event.data.message_id), duplicate, tampered, stale },
  };
}
