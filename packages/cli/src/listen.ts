import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { VERSION, verifyWebhook } from '@smsgw/client';
import type { Credentials } from './config';
import { SseParser, type ServerSentEvent } from './sse';

export interface ListenOptions {
  /** Comma-separated kinds, as the API takes them; all when undefined. */
  events?: string;
  /** Where each verified event is posted again, with the same signature headers. */
  forward?: string;
  json: boolean;
}

export interface ListenIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Aborted on Ctrl-C: the command ends with 0. */
  signal: AbortSignal;
  /** The reconnection delays (tests shorten them). */
  backoff?: { initialMs: number; maxMs: number };
}

/** A stream that brings nothing, not even a keepalive (every 15 s), for this long is taken as lost. */
const IDLE_MS = 45_000;
const FORWARD_TIMEOUT_MS = 5000;

type Outcome =
  | { kind: 'ended'; ready: boolean; reason: string }
  | { kind: 'refused'; status: number; code: string; message: string; retryAfterMs?: number };

interface Delivery {
  body: string;
  signature: string;
}

/**
 * `smsgw listen`: the client's events as they happen (GET /v1/events/listen), each checked with
 * the session's secret, printed, and posted to `--forward` if given. The stream is opened again,
 * with a growing delay, whenever it drops; it ends with 0 on Ctrl-C, with 1 when the API refuses
 * it for good (a bad key, an unknown kind).
 */
export async function listen(creds: Credentials, options: ListenOptions, io: ListenIo): Promise<number> {
  const ca = creds.caFile ? fs.readFileSync(creds.caFile, 'utf8') : undefined;
  const backoff = io.backoff ?? { initialMs: 1000, maxMs: 30_000 };
  let failures = 0;
  while (!io.signal.aborted) {
    const outcome = await session(creds, ca, options, io);
    if (io.signal.aborted) break;
    if (outcome.kind === 'refused' && outcome.status !== 429 && outcome.status < 500) {
      io.err(`smsgw: ${outcome.code} (HTTP ${outcome.status}): ${outcome.message}`);
      return 1;
    }
    if (outcome.kind === 'ended' && outcome.ready) failures = 0;
    const exponential = Math.min(backoff.maxMs, backoff.initialMs * 2 ** failures);
    const delay = (outcome.kind === 'refused' && outcome.retryAfterMs) || Math.round(exponential * (0.5 + Math.random() / 2));
    failures++;
    const reason = outcome.kind === 'refused' ? `${outcome.code} (HTTP ${outcome.status})` : outcome.reason;
    io.err(`stream lost: ${reason}; connecting again in ${(delay / 1000).toFixed(1)} s`);
    await sleep(delay, io.signal);
  }
  io.err('stopped');
  return 0;
}

/** One connection, until it ends; its events are handled in order. */
function session(creds: Credentials, ca: string | undefined, options: ListenOptions, io: ListenIo): Promise<Outcome> {
  const url = new URL('v1/events/listen', creds.baseUrl.endsWith('/') ? creds.baseUrl : `${creds.baseUrl}/`);
  if (options.events) url.searchParams.set('events', options.events);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<Outcome>((resolve) => {
    let ready = false;
    let secret = '';
    let handled: Promise<void> = Promise.resolve();
    const handle = (e: ServerSentEvent) => {
      try {
        take(e);
      } catch (err) {
        io.err(`an event could not be read, skipped: ${(err as Error).message}`);
      }
    };
    const take = (e: ServerSentEvent) => {
      if (e.event === 'ready') {
        const r = JSON.parse(e.data) as { secret: string; mode: string; events: string[] };
        ready = true;
        secret = r.secret;
        io.err(`Signing secret: ${r.secret} (this connection only)`);
        io.err(
          `Ready: ${r.mode} events ${r.events.join(', ')}${options.forward ? `, forwarded to ${options.forward}` : ''} (Ctrl-C to stop)`,
        );
      } else if (e.event === 'webhook') {
        const delivery = JSON.parse(e.data) as Delivery;
        const at = secret;
        handled = handled.then(() => onWebhook(delivery, at, options, io, ca));
      }
    };
    const parser = new SseParser(handle);
    const req = transport.request(url, {
      method: 'GET',
      signal: io.signal,
      headers: {
        accept: 'text/event-stream',
        'user-agent': `smsgw-cli/${VERSION}`,
        'x-api-key': creds.apiKey,
        'x-client-id': creds.clientId,
      },
      ...(ca ? { ca } : {}),
    });
    const end = (reason: string) => {
      void handled.then(() => resolve({ kind: 'ended', ready, reason }));
    };
    req.setTimeout(IDLE_MS, () => req.destroy(new Error(`nothing received for ${IDLE_MS / 1000} s`)));
    req.on('error', (e) => end(e.message));
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        let raw = '';
        res.setEncoding('utf8');
        // An error's envelope is small: what comes past 64 kB is not kept.
        res.on('data', (c: string) => (raw = (raw + c).slice(0, 65_536)));
        res.on('end', () => resolve(refusal(res, raw)));
        res.on('error', (e) => end(e.message));
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        try {
          parser.push(c);
        } catch (err) {
          // A line never ended (a broken or hostile server): this connection is given up, not the memory.
          res.destroy();
          end((err as Error).message);
        }
      });
      res.on('end', () => end('the server closed the stream'));
      res.on('error', (e) => end(e.message));
    });
    req.end();
  });
}

function refusal(res: http.IncomingMessage, raw: string): Outcome {
  let code = 'HTTP_ERROR';
  let message = raw.slice(0, 200);
  try {
    const body = JSON.parse(raw) as { error?: { code?: string; message?: string } };
    code = body.error?.code ?? code;
    message = body.error?.message ?? message;
  } catch {
    // not the API's envelope (a proxy's page): shown as it is
  }
  const retryAfter = Number(res.headers['retry-after']);
  return {
    kind: 'refused',
    status: res.statusCode ?? 0,
    code,
    message,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
  };
}

async function onWebhook(delivery: Delivery, secret: string, options: ListenOptions, io: ListenIo, ca: string | undefined): Promise<void> {
  let event: { event: string; event_id: string; timestamp: string; data: Record<string, unknown> };
  try {
    event = await verifyWebhook(delivery.body, delivery.signature, secret);
  } catch (e) {
    io.err(`an event failed its check, not forwarded: ${(e as Error).message}`);
    return;
  }
  if (options.json) io.out(delivery.body);
  else io.out(eventLine(event));
  if (!options.forward) return;
  const answer = await forward(options.forward, delivery, event, ca);
  (options.json ? io.err : io.out)(`  -> ${options.forward} ${answer}`);
}

/** The longest line an event prints (characters). */
export const MAX_LINE_CHARS = 200;

/**
 * An event's line on the terminal: its time, kind, id and summary, with no control character
 * (a phone names the sender of a received SMS: an escape sequence there would drive the terminal)
 * and at most MAX_LINE_CHARS characters.
 */
export function eventLine(event: { event: string; event_id: string; timestamp: string; data: Record<string, unknown> }): string {
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  const line = `${s(event.timestamp).slice(11, 19)}  ${s(event.event).padEnd(19)}  ${s(event.event_id)}  ${summary(s(event.event), event.data ?? {})}`;
  // eslint-disable-next-line no-control-regex -- control characters are what this removes
  const printable = line.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '?');
  return [...printable].length > MAX_LINE_CHARS ? `${[...printable].slice(0, MAX_LINE_CHARS - 1).join('')}…` : printable;
}

/** A few words about an event: the message and its status, the sender of a received SMS, the phone. */
export function summary(kind: string, data: Record<string, unknown>): string {
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  if (kind.startsWith('sms.received')) return `${s(data.id)} from ${s(data.from)}`;
  if (kind.startsWith('sms.')) return `${s(data.message_id)} ${s(data.status)}`;
  if (kind.startsWith('device.')) return `${s(data.device_id)}${data.name ? ` (${s(data.name)})` : ''}`;
  return '';
}

/** Posts the body as the webhook service would (same signature headers); the answer's status, or why there is none. */
function forward(target: string, delivery: Delivery, event: { event: string; event_id: string }, ca: string | undefined): Promise<string> {
  const url = new URL(target);
  const body = Buffer.from(delivery.body, 'utf8');
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = transport.request(url, {
      method: 'POST',
      timeout: FORWARD_TIMEOUT_MS,
      headers: {
        'content-type': 'application/json',
        'content-length': String(body.length),
        'user-agent': `smsgw-cli/${VERSION} (listen)`,
        'x-webhook-signature': delivery.signature,
        'x-webhook-event': event.event,
        'x-webhook-event-id': event.event_id,
        'x-webhook-attempt': '1',
      },
      // A local receiver may use the same private CA as the gateway (SMSGW_CA_FILE).
      ...(ca && url.protocol === 'https:' ? { ca: [...tls.rootCertificates, ca] } : {}),
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${FORWARD_TIMEOUT_MS / 1000} s`)));
    req.on('error', (e) => resolve(`failed: ${e.message}`));
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
    });
    req.end(body);
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
