import { AppError, modeToProto, type SlidingWindowLimiter } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import type { SubmitRepository } from '../data/submit.repository';
import { checkDestination, checkSchedule, checkTextGiven, destinationNumber, ttlOfValidity } from '../domain/submit-rules';
import type { Upstreams } from '../grpc-clients/upstreams';
import type { Binding } from './bind.use-case';

/** A message as submit_sm (or one destination of submit_multi) gives it, its parts joined. */
export interface Submission {
  sourceAddr: string;
  destinationAddr: string;
  destinationTon: number;
  text: string;
  priority: number;
  scheduledAt?: Date;
  validUntil?: Date;
  registeredDelivery: number;
}

export interface SubmitDeps {
  up: Pick<Upstreams, 'messages' | 'devices'>;
  limiter: Pick<SlidingWindowLimiter, 'hit'>;
  submits: Pick<SubmitRepository, 'record'>;
}

/** How many online phones the automatic choice weighs, as the gateway's (CHOICE_SAMPLE). */
const CHOICE_SAMPLE = 32;
const DEPTH_UP_TO = 200;

/**
 * One message, through the send path of POST /v1/sms/send: the client's rate limit (the gateway's
 * Redis keys, so REST and SMPP share it), the submit's fields read (destination address, a text
 * given, schedule, validity) and the client's destination countries, the phone (the bind's, or
 * the fleet's choice), then the message service's Send, which applies the send rules (a storable
 * text of 1600 characters at most: INVALID_CHARACTER, MESSAGE_TOO_LONG, mapped to SMPP statuses
 * by the session), the opt-outs, the test mode and the phones' limits. A submit that asks for a
 * receipt is recorded for it. Answers the message id.
 */
export async function submitMessage(deps: SubmitDeps, binding: Binding, s: Submission, now = new Date()): Promise<string> {
  const hit = await deps.limiter.hit(`ratelimit:${binding.clientId}`);
  if (!hit.allowed) throw new AppError('RATE_LIMIT_EXCEEDED', { retryAfterSeconds: Math.max(1, Math.ceil(hit.resetMs / 1000)) });
  const to = destinationNumber(s.destinationAddr, s.destinationTon);
  checkTextGiven(s.text);
  checkDestination({ smsCountries: binding.smsCountries }, to);
  const scheduledAt = checkSchedule(s.scheduledAt, now);
  const ttlSeconds = ttlOfValidity(s.validUntil, scheduledAt ?? now) ?? binding.defaultTtlSeconds;
  const deviceId = await chooseDevice(deps.up, binding, scheduledAt !== undefined);
  const { message } = await deps.up.messages.send({
    clientId: binding.clientId,
    mode: modeToProto(binding.mode),
    deviceId,
    message: { to, text: s.text, metadataJson: '' },
    priority: s.priority,
    webhookUrl: '',
    scheduledAt: scheduledAt?.toISOString() ?? '',
    ttlSeconds,
    pinned: binding.deviceId !== undefined,
    sim: 0,
    replies: false,
    idempotencyKey: '',
    requestHash: '',
  });
  const messageId = message!.messageId;
  if ((s.registeredDelivery & 0x03) !== 0) {
    await deps.submits.record({
      message_id: messageId,
      client_id: binding.clientId,
      mode: binding.mode,
      registered_delivery: s.registeredDelivery,
      source_addr: s.sourceAddr,
      destination_addr: s.destinationAddr,
      text_start: Array.from(s.text).slice(0, 20).join(''),
    });
  }
  return messageId;
}

/**
 * The phone, by the gateway's rules: the bind's own (which must be the client's, and online unless
 * in test mode or for a scheduled send), else the online phone with room and the shortest queue.
 */
async function chooseDevice(up: SubmitDeps['up'], binding: Binding, scheduled: boolean): Promise<string> {
  const lenient = binding.mode === 'test' || scheduled;
  if (binding.deviceId) {
    const device = await up.devices.getDevice({ clientId: binding.clientId, deviceId: binding.deviceId });
    if (!lenient && device.status !== 'online') throw new AppError('DEVICE_OFFLINE');
    return device.deviceId;
  }
  const { devices } = await up.devices.listDevices({ clientId: binding.clientId, onlineOnly: !lenient, sample: CHOICE_SAMPLE });
  if (devices.length === 0) throw new AppError('DEVICE_OFFLINE', { message: 'Aucun appareil en ligne pour ce client.' });
  const withRoom = devices.filter((d) => d.hasRoom);
  const candidates: devicehub.Device__Output[] = withRoom.length > 0 ? withRoom : devices;
  if (candidates.length === 1) return candidates[0]!.deviceId;
  const { depths } = await up.messages.queueDepths({ deviceIds: candidates.map((d) => d.deviceId), upTo: DEPTH_UP_TO });
  const depth = (id: string) => depths[id] ?? 0;
  return candidates.reduce((best, d) => (depth(d.deviceId) < depth(best.deviceId) ? d : best)).deviceId;
}
