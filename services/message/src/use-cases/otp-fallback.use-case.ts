import { counter } from '@smsgw/platform';
import type { FleetRepository } from '../data/fleet.repository';
import type { MessageRow } from '../domain/message-row';
import type { WakeUpPublisher } from '../events/wake-up.publisher';

/** What the fallback works with: the fleet's SQL and the client's phones' wake-up. */
export interface FallbackDeps {
  fleet: Pick<FleetRepository, 'otpFallbackAfterFailure'>;
  wakeUps: Pick<WakeUpPublisher, 'wakeClient'>;
}

const fallbacks = counter('message.otp_fallbacks', "OTPs' SMS sent once more through another phone, by reason (failed, not_delivered)");

/**
 * The failure causes another phone may not meet (its carrier, its credit, its radio). An invalid
 * number, an opted-out one, an expiry or a removal stay final.
 */
export const FALLBACK_CAUSES = ['OUT_OF_NETWORK', 'INSUFFICIENT_CREDIT', 'BLACKLISTED', 'DEVICE_ERROR'] as const;

/** The French sentence of the attempt an undelivered OTP's SMS leaves behind. */
export const NOT_DELIVERED_MESSAGE = "Le SMS n'a pas été remis à temps : le même code part par un autre téléphone.";

/**
 * Called where the phones' reports are applied (apply-reports.use-case.ts) with a message a
 * report just failed: an OTP's SMS that may fall back goes once more through another phone of the
 * client (same message, same text, so the same code), its failure an attempt; its phones are
 * woken and no `sms.failed` is published (true). Any other message costs no query: the row says
 * whether it has a fallback copy.
 */
export async function fallBackAfterFailure(
  { fleet, wakeUps }: FallbackDeps,
  row: Pick<MessageRow, 'message_id' | 'status' | 'error_code' | 'otp_fallback_text'>,
): Promise<boolean> {
  // Only live, unpinned OTPs have a second copy (the statement checks both again).
  if (row.status !== 'failed' || !row.otp_fallback_text) return false;
  if (!(FALLBACK_CAUSES as readonly string[]).includes(row.error_code ?? '')) return false;
  const moved = await fleet.otpFallbackAfterFailure(row.message_id, FALLBACK_CAUSES);
  if (!moved) return false;
  fallbacks.add(1, { reason: 'failed' });
  wakeUps.wakeClient(moved.client_id, 1);
  return true;
}

/** The fallback timer of an OTP fired: still not delivered, its SMS goes once more through another phone. */
export async function fallBackWhenUndelivered(
  fleet: Pick<FleetRepository, 'otpFallbackWhenUndelivered'>,
  wakeUps: Pick<WakeUpPublisher, 'wakeClient'>,
  messageId: string,
): Promise<boolean> {
  const moved = await fleet.otpFallbackWhenUndelivered(messageId, NOT_DELIVERED_MESSAGE);
  if (!moved) return false;
  fallbacks.add(1, { reason: 'not_delivered' });
  wakeUps.wakeClient(moved.client_id, 1);
  return true;
}
