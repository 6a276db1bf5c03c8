// The frames a phone sends (PROTOCOL.md), read into what the hub relays.
import { AGENT_REPORT_STATUSES, FAILURE_CODES, type AgentReport, type FailureCode } from '@smsgw/platform';
import { isSimSlot } from '../domain/sims';

export interface AgentFrame {
  type?: unknown;
  message_id?: unknown;
  status?: unknown;
  at?: unknown;
  error?: { code?: unknown; message?: unknown };
  not_sent?: unknown;
  traceparent?: unknown;
  sim?: unknown;
}

/**
 * Whether a frame's `message_id` can name a message: `msg_` and 1 to 64 letters and digits (the
 * message service makes `msg_` and a ULID). Anything else is dropped: an id holding U+0000 failed
 * in SQL, and the failed acknowledgement, sent on through JetStream, was retried there for ever.
 */
export const isMessageId = (value: unknown): value is string => typeof value === 'string' && /^msg_[0-9A-Za-z]{1,64}$/.test(value);

/** The trace context an agent echoed, if it is well formed (else the hub's spans start a trace of their own). */
export const echoedTrace = (value: unknown) =>
  typeof value === 'string' && /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(value) ? value : '';

/**
 * The report a `report` frame makes (undefined for `accepted`, which the ack covers, and for an
 * unknown status): its time (now when the phone's is not a date), its error, for a failure
 * `not_sent` when the phone says nothing of the SMS left it (protocol 2), and the SIM slot it sent
 * through (protocol 4; only 1 to 8, anything else is left out).
 */
export function reportOf(frame: AgentFrame, messageId: string, deviceId: string, nowMs: number): AgentReport | undefined {
  const status = frame.status;
  if (status === 'accepted' || !AGENT_REPORT_STATUSES.includes(status as never)) return undefined;
  const at =
    typeof frame.at === 'string' && !Number.isNaN(Date.parse(frame.at)) ? new Date(frame.at).toISOString() : new Date(nowMs).toISOString();
  const report: AgentReport = { message_id: messageId, device_id: deviceId, status: status as AgentReport['status'], at };
  if (isSimSlot(frame.sim)) report.sim = frame.sim;
  if (status === 'failed') {
    const code = FAILURE_CODES.includes(frame.error?.code as never) ? (frame.error!.code as FailureCode) : 'DEVICE_ERROR';
    report.error = { code, message: typeof frame.error?.message === 'string' ? frame.error.message.slice(0, 200) : '' };
    if (frame.not_sent === true) report.not_sent = true;
  }
  return report;
}
