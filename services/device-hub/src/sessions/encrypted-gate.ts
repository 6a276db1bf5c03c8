// Protocol 8 (PROTOCOL.md): only an agent that announced protocol 8 or later opens end-to-end
// envelopes. An encrypted message claimed for an older agent is never handed to it: the hub fails
// it on the phone's behalf as not sent, so that the message service offers it to another online
// phone of the client (which may be able to open it), and else ends it DECRYPTION_FAILED.
import { isEnvelope } from '@smsgw/e2e-envelope';
import type { AgentReport } from '@smsgw/platform';

export const ENCRYPTION_PROTOCOL = 8;

/** Whether the agent (its announced protocol; undefined: protocol 1 or 2) can be handed this text. */
export function canCarry(text: string, agentProtocol: number | undefined): boolean {
  return !isEnvelope(text) || (agentProtocol ?? 2) >= ENCRYPTION_PROTOCOL;
}

/** The failure the hub reports for an encrypted message an older agent was not handed. */
export function notDecryptable(messageId: string, deviceId: string, nowMs: number): AgentReport {
  return {
    message_id: messageId,
    device_id: deviceId,
    status: 'failed',
    at: new Date(nowMs).toISOString(),
    error: { code: 'DECRYPTION_FAILED', message: "L'application du téléphone est trop ancienne pour déchiffrer ce message." },
    not_sent: true,
  };
}
