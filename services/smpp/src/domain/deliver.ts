import { MESSAGE_STATE, receiptText, stateOfStatus, wantsReceipt, type MessageState } from './receipt';

/** A deliver_sm to send, as stored while it waits (JSON): the SMPP layer encodes its text. */
export interface OutgoingDeliver {
  source_addr: string;
  destination_addr: string;
  /** 0x04: a delivery receipt; 0: a received SMS. */
  esm_class: number;
  text: string;
  receipted_message_id?: string;
  message_state?: number;
}

/** What a receipt needs of the submit (the `submits` row). */
export interface SubmitFacts {
  message_id: string;
  registered_delivery: number;
  source_addr: string;
  destination_addr: string;
  text_start: string;
  submitted_at: Date;
}

/** What a final `sms.*` event says of its message. */
export interface Outcome {
  status: 'delivered' | 'failed';
  errorCode: string;
  at: Date;
}

/**
 * The receipt deliver_sm of a message's final outcome, when its submit asked for it: from the
 * message's destination to its source, as SMSCs send them.
 */
export function receiptDeliver(submit: SubmitFacts, outcome: Outcome): OutgoingDeliver | undefined {
  const state: MessageState = stateOfStatus(outcome.status, outcome.errorCode);
  if (!wantsReceipt(submit.registered_delivery, state)) return undefined;
  return {
    source_addr: submit.destination_addr,
    destination_addr: submit.source_addr,
    esm_class: 0x04,
    text: receiptText({
      messageId: submit.message_id,
      state,
      errorCode: outcome.status === 'failed' ? outcome.errorCode : '',
      submittedAt: submit.submitted_at,
      doneAt: outcome.at,
      text: submit.text_start,
    }),
    receipted_message_id: submit.message_id,
    message_state: MESSAGE_STATE[state],
  };
}

/** A received SMS as a deliver_sm: from its sender to the SIM's number (empty when unknown). */
export function receivedDeliver(received: { from: string; to: string; text: string }): OutgoingDeliver {
  return { source_addr: received.from, destination_addr: received.to, esm_class: 0, text: received.text };
}
