import type { PublicEvent, PublicEventKind } from '@smsgw/platform';

/**
 * A sample event of `kind` for a "send test event": the shape of the real one,
 * with sample values and `metadata.test_event = true` so that a receiver can
 * tell it apart. Its `event_id` is new: a test event is an event of its own.
 */
export function testEvent(
  kind: PublicEventKind,
  ids: { eventId: string; clientId: string; mode: 'live' | 'test' },
  now: Date,
): PublicEvent {
  const at = now.toISOString();
  const earlier = new Date(now.getTime() - 4000).toISOString();
  const sms = { message_id: 'msg_00000000000000000000000000', to: '+33612345678', sim: null, metadata: { test_event: true } };
  const data: Record<PublicEventKind, Record<string, unknown>> = {
    'sms.sent': { ...sms, status: 'sent', sent_at: at },
    'sms.delivered': { ...sms, status: 'delivered', sent_at: earlier, delivered_at: at },
    'sms.failed': {
      ...sms,
      status: 'failed',
      failed_at: at,
      error: { code: 'INVALID_NUMBER', message: 'Numéro de destinataire invalide.' },
    },
    'sms.received': {
      id: 'rcv_00000000000000000000000000',
      from: '+33698765432',
      device_id: 'device_00000000000000000000000000',
      sim: null,
      message: 'Bonjour, ceci est un SMS reçu de test.',
      received_at: at,
      in_reply_to: null,
      test_event: true,
    },
    'device.connected': {
      device_id: 'device_00000000000000000000000000',
      client_id: ids.clientId,
      name: 'Test',
      at,
      reason: 'connected',
      test_event: true,
    },
    'device.disconnected': {
      device_id: 'device_00000000000000000000000000',
      client_id: ids.clientId,
      name: 'Test',
      at,
      reason: 'closed',
      test_event: true,
    },
    'device.battery_low': {
      device_id: 'device_00000000000000000000000000',
      client_id: ids.clientId,
      name: 'Test',
      battery: 12,
      charging: false,
      at,
      test_event: true,
    },
    'device.offline': {
      device_id: 'device_00000000000000000000000000',
      client_id: ids.clientId,
      name: 'Test',
      offline_since: at,
      threshold_seconds: 1800,
      test_event: true,
    },
    'otp.fraud_suspected': {
      hold_id: 'hold_00000000000000000000000000',
      scope: 'prefix',
      prefix: '+3361234',
      country: 'FR',
      requests: 20,
      verified: 1,
      conversion_rate: 5,
      window_seconds: 3600,
      held_at: at,
      held_until: new Date(now.getTime() + 3600_000).toISOString(),
      test_event: true,
    },
    'device.degraded': {
      device_id: 'device_00000000000000000000000000',
      client_id: ids.clientId,
      name: 'Test',
      at,
      sim: 2,
      state: 'quarantined',
      reason: 'consecutive_failures',
      recent_results: { sent: 3, generic_failure: 5 },
      probe_after: new Date(now.getTime() + 900_000).toISOString(),
      test_event: true,
    },
    'device.recovered': {
      device_id: 'device_00000000000000000000000000',
      client_id: ids.clientId,
      name: 'Test',
      at,
      sim: 2,
      state: 'healthy',
      reason: 'probe',
      recent_results: { sent: 1 },
      test_event: true,
    },
  };
  return { event: kind, event_id: ids.eventId, timestamp: at, data: data[kind], routing: { client_id: ids.clientId, mode: ids.mode } };
}
