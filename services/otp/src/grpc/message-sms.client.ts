import { AppError, modeToProto, type PromiseClient } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { Mode } from '../data/otp.repository';

/** An OTP's SMS as the message service queues it. */
export interface OtpSms {
  clientId: string;
  mode: Mode;
  deviceId: string;
  to: string;
  /** The full text, code included. */
  text: string;
  /** The text with its code masked, for history, events and webhooks. */
  maskedText: string;
  metadataJson: string;
  expiresAt: Date;
  /** Chosen here, so that a retry after a lost answer names the same message. */
  messageId: string;
  /** It never moves to another phone. */
  pinned: boolean;
  /** The SIM slot to send through; 0: the client's SIM rule. */
  sim: number;
  /** Live and unpinned: a failed (or, after `fallbackAfterSeconds`, undelivered) SMS goes once through another phone. */
  fallback: boolean;
  fallbackAfterSeconds: number;
}

/** The message service, as the OTP use cases need it. */
export class MessageSms {
  constructor(private readonly messages: PromiseClient<message.MessageServiceClient>) {}

  /** Queues the SMS; the same message id again stores nothing new. */
  async queue(sms: OtpSms): Promise<void> {
    await this.messages.sendOtpMessage({ ...sms, mode: modeToProto(sms.mode), expiresAt: sms.expiresAt.toISOString() });
  }

  /** Whether the message service holds this message of the client. */
  async exists(clientId: string, messageId: string, mode: Mode): Promise<boolean> {
    try {
      await this.messages.getMessage({ clientId, messageId, mode: modeToProto(mode) });
      return true;
    } catch (err) {
      if (err instanceof AppError && err.code === 'MESSAGE_NOT_FOUND') return false;
      throw err;
    }
  }
}
