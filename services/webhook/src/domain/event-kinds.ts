import type { PublicEventKind } from '@smsgw/platform';

export const EVENT_KINDS: readonly PublicEventKind[] = Object.freeze([
  'sms.sent',
  'sms.delivered',
  'sms.failed',
  'sms.received',
  'device.connected',
  'device.disconnected',
  'otp.fraud_suspected',
  'device.degraded',
  'device.recovered',
  'device.battery_low',
  'device.offline',
]);

/**
 * Kinds beyond the specification's: an endpoint gets them only when it names them (an endpoint
 * made before a kind existed never starts receiving it), and a message's `webhook_url` never does.
 */
export const OPT_IN_KINDS: readonly PublicEventKind[] = Object.freeze([
  'otp.fraud_suspected',
  'device.degraded',
  'device.recovered',
  'device.battery_low',
  'device.offline',
]);

/** The kinds a message's own `webhook_url` receives instead of the global endpoints (the specification's per-message callbacks); a reply's `sms.received` goes to both (see `destinationsOf`). */
export const MESSAGE_KINDS: readonly PublicEventKind[] = Object.freeze(['sms.sent', 'sms.delivered', 'sms.failed']);

export const isEventKind = (value: string): value is PublicEventKind => (EVENT_KINDS as readonly string[]).includes(value);

/** The kinds of a request, de-duplicated in the canonical order; undefined if one is unknown or none is given. */
export function parseKinds(values: readonly string[]): PublicEventKind[] | undefined {
  const wanted = new Set(values.map((v) => v.trim()).filter(Boolean));
  if (wanted.size === 0 || [...wanted].some((v) => !isEventKind(v))) return undefined;
  return EVENT_KINDS.filter((k) => wanted.has(k));
}
