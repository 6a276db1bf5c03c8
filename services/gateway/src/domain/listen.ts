import { createHmac, randomBytes } from 'node:crypto';
import { AppError, type PublicEventKind } from '@smsgw/platform';

/** Every kind a listener may ask for (a Record, so that a new kind of the platform fails to compile here). */
const KINDS: Record<PublicEventKind, true> = {
  'sms.sent': true,
  'sms.delivered': true,
  'sms.failed': true,
  'sms.received': true,
  'device.connected': true,
  'device.disconnected': true,
  'otp.fraud_suspected': true,
  'device.degraded': true,
  'device.recovered': true,
  'device.battery_low': true,
  'device.offline': true,
};
export const LISTEN_KINDS = Object.freeze(Object.keys(KINDS) as PublicEventKind[]);
/** Kinds beyond the specification's, heard only when named (as webhook endpoints get them). */
const OPT_IN_KINDS: readonly PublicEventKind[] = [
  'otp.fraud_suspected',
  'device.degraded',
  'device.recovered',
  'device.battery_low',
  'device.offline',
];

/**
 * The `events` query: comma-separated kinds; absent, every kind of the specification (opt-in
 * kinds only when named); an unknown kind is VALIDATION_ERROR.
 */
export function listenKinds(query: string | undefined): PublicEventKind[] {
  if (query === undefined || query.trim() === '') return LISTEN_KINDS.filter((k) => !OPT_IN_KINDS.includes(k));
  const wanted = new Set(query.split(',').map((k) => k.trim()));
  const unknown = [...wanted].filter((k) => !(k in KINDS));
  if (unknown.length > 0 || wanted.has(''))
    throw new AppError('VALIDATION_ERROR', {
      details: [{ field: 'events', code: 'VALIDATION_ERROR', message: `Type d'événement inconnu : ${unknown.join(', ') || '(vide)'}.` }],
    });
  return LISTEN_KINDS.filter((k) => wanted.has(k));
}

/** The session's signing secret: shown once, in the `ready` event, and used for no other session. */
export const newListenSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/** An event as the webhook service publishes it on `listen.<client_id>.<mode>`. */
export interface ListenedEvent {
  event: PublicEventKind;
  event_id: string;
  data: Record<string, unknown>;
}

function listenedEvent(value: unknown): ListenedEvent | undefined {
  const e = value as Partial<ListenedEvent> | null;
  if (typeof e !== 'object' || e === null) return undefined;
  if (typeof e.event !== 'string' || !(e.event in KINDS) || typeof e.event_id !== 'string') return undefined;
  if (!e.data || typeof e.data !== 'object') return undefined;
  return e as ListenedEvent;
}

/**
 * The events of one message on `listen.<client_id>.<mode>`: a JSON array of them (the webhook
 * service publishes those of a batch together), or one (as earlier versions did); what is not an
 * event is left out.
 */
export function parseListenedEvents(bytes: Uint8Array): ListenedEvent[] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return [];
  }
  return (Array.isArray(value) ? value : [value]).flatMap((v) => listenedEvent(v) ?? []);
}

export interface SignedDelivery {
  /** The exact body a webhook receiver would get. */
  body: string;
  /** Its X-Webhook-Signature. */
  signature: string;
  timestamp: string;
}

/**
 * The event as the webhook service would deliver it: the same envelope, field order and
 * `timestamp` (the time of sending), and the same signature (hex HMAC-SHA256 of the body's
 * UTF-8 bytes), so that the client libraries' webhook helpers verify it.
 */
export function signListened(event: ListenedEvent, secret: string, at: Date): SignedDelivery {
  const timestamp = at.toISOString();
  const body = `{"event":${JSON.stringify(event.event)},"event_id":${JSON.stringify(event.event_id)},"timestamp":"${timestamp}","data":${JSON.stringify(event.data)}}`;
  return { body, signature: createHmac('sha256', secret).update(body, 'utf8').digest('hex'), timestamp };
}
