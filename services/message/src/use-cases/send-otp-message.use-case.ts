import { AppError, currentTraceparent, measureSms, newId, sealText } from '@smsgw/platform';
import type { MessageRow, Mode, NewMessage } from '../domain/message-row';
import { parseMetadata } from '../domain/outgoing-message';
import { checkSendRules } from '../domain/send-rules';
import { requestedSim } from '../domain/sim';
import { averagePacingMs, type MessageService } from './message-service';
import { publishFailed } from './opt-outs.use-case';

/** The SMS of an OTP, as the otp service asks for it. */
export interface SendOtpMessageInput {
  clientId: string;
  mode: Mode;
  deviceId: string;
  to: string;
  /** The full text, code included: sealed, and opened only for the phone. */
  text: string;
  /** The text with its code masked: what history, events and webhooks show. */
  maskedText: string;
  metadataJson: string;
  expiresAt: string;
  /** The otp service's id for it, so that a lost answer is completed with the same message. */
  messageId: string;
  /** The client chose the device: the message never moves (absent from the request today: false). */
  pinned?: boolean;
  /** The SIM slot to send through (1 to 8); 0 or absent: the phone's choice. */
  sim?: number;
  /** A live, unpinned OTP: its SMS may go once more through another phone (use-cases/otp-fallback.use-case.ts). */
  fallback?: boolean;
  /** Seconds after which its SMS, still undelivered, falls back; 0 or absent: only after a failure. */
  fallbackAfterSeconds?: number;
}

/**
 * Queues an OTP's SMS first in its device's queue (priority 1), its full text
 * sealed. The same id again answers the message stored the first time
 * (`replayed`), if it is this client's.
 */
export async function sendOtpMessage(
  service: MessageService,
  req: SendOtpMessageInput,
): Promise<{ row: MessageRow; estimatedDelivery: string; replayed: boolean }> {
  if (!req.deviceId) throw new AppError('INVALID_DEVICE_ID');
  if (!req.text || !req.maskedText) throw new AppError('MESSAGE_REQUIRED');
  checkSendRules(req);
  await service.devices.require([{ clientId: req.clientId, deviceId: req.deviceId }]);
  const expiresAt = new Date(req.expiresAt);
  if (Number.isNaN(expiresAt.getTime()))
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'expires_at', code: 'VALIDATION_ERROR' }] });
  // Parts and encoding are the phone's: those of the full text.
  const size = measureSms(req.text);
  if (req.messageId && !/^msg_[0-9A-HJKMNP-TV-Z]{26}$/.test(req.messageId)) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'message_id', code: 'VALIDATION_ERROR' }] });
  }
  const message: NewMessage = {
    messageId: req.messageId || newId('msg'),
    clientId: req.clientId,
    mode: req.mode,
    deviceId: req.deviceId,
    batchId: null,
    to: req.to,
    text: req.maskedText,
    priority: 1,
    metadata: parseMetadata(req.metadataJson),
    webhookUrl: null,
    parts: size.parts,
    encoding: size.encoding,
    scheduledAt: null,
    traceparent: currentTraceparent(),
    pinned: req.pinned === true,
    requestedSim: requestedSim(req.sim),
    // The fleet's rules: a pinned message never moves, and test keys have no fleet.
    otpFallback: req.fallback === true && req.mode === 'live' && req.pinned !== true,
  };
  // An opted-out number gets its code only if the client's OTPs ignore the list (the default).
  message.optedOut = await service.optOuts.blocksOtp(message);
  const sealed = sealText(service.config.otp.sealKey, message.messageId, req.text);
  const inserted = await service.queue.insertOtp(message, sealed, expiresAt, publishFailed(service));
  // The same id again: the message stored the first time, if it is this client's.
  const existing = inserted ? undefined : await service.messages.find(message.clientId, message.messageId, message.mode);
  const stored = inserted ? { ...inserted, created: true } : existing && { row: existing, ahead: 0, created: false };
  // The id is another client's (or another mode's): nothing of theirs is shown.
  if (!stored) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'message_id', code: 'VALIDATION_ERROR' }] });
  const { row, ahead, created } = stored;
  if (created) service.wakeUps.wake([{ row, ahead, deviceWasIdle: true }]);
  const after = req.fallbackAfterSeconds ?? 0;
  if (created && message.otpFallback && row.status === 'queued' && Number.isInteger(after) && after > 0) {
    const fireAt = new Date(row.queued_at.getTime() + after * 1000);
    if (fireAt < expiresAt) await service.otpFallbackTimers?.schedule(row.message_id, fireAt);
  }
  return { row, estimatedDelivery: new Date(Date.now() + ahead * averagePacingMs(service)).toISOString(), replayed: !created };
}
