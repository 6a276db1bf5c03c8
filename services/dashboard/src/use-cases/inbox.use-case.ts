import { AppError, isStorableText, MAX_SMS_CHARACTERS, normalizePhoneNumber, smsCharacters } from '@smsgw/platform';
import type { devicehub, message } from '@smsgw/proto';
import type { Upstreams } from './upstreams';

/** The dashboard is the live account: its inbox and replies are live only. */
const LIVE = 'MODE_LIVE';
/** The most a list call gives (the message service's page size limit). */
const PAGE = 100;
/** The received SMS the conversations list is made of: the newest ones. */
export const INBOX_WINDOW = 2 * PAGE;

/** One number that wrote to the client: its latest SMS. */
export interface Conversation {
  number: string;
  lastText: string;
  lastAt: string;
  count: number;
}

/** One line of a conversation: an SMS received from the number, or one sent to it. */
export type Line =
  | { kind: 'in'; at: string; text: string; deviceId: string; id: string }
  | { kind: 'out'; at: string; text: string; deviceId: string; id: string; status: string };

/**
 * The numbers that wrote to the client, the latest first, from its newest received SMS (at most
 * INBOX_WINDOW: a number that wrote only before is reached by typing it, see the inbox page).
 */
export async function conversations(up: Upstreams, clientId: string): Promise<{ list: Conversation[]; truncated: boolean }> {
  const byNumber = new Map<string, Conversation>();
  let truncated = false;
  for (let page = 1; page <= INBOX_WINDOW / PAGE; page++) {
    const res = await listReceived(up, clientId, page, '');
    for (const m of res.messages) {
      const c = byNumber.get(m.from);
      if (c) c.count++;
      else byNumber.set(m.from, { number: m.from, lastText: m.text, lastAt: m.receivedAt, count: 1 });
    }
    if (page >= res.totalPages) break;
    truncated = page === INBOX_WINDOW / PAGE;
  }
  // The list comes newest first, so each number's first SMS is its latest; the map keeps that order.
  return { list: [...byNumber.values()], truncated };
}

function listReceived(up: Upstreams, clientId: string, page: number, from: string) {
  return up.messages.listReceived({ clientId, mode: LIVE, page, limit: PAGE, from, deviceId: '', fromDate: '', toDate: '', search: '' });
}

/** The newest received SMS of the number and the newest messages sent to it, merged oldest first. */
export async function conversation(up: Upstreams, clientId: string, number: string): Promise<Line[]> {
  const [received, sent] = await Promise.all([
    listReceived(up, clientId, 1, number),
    up.messages.listMessages({
      clientId,
      mode: LIVE,
      page: 1,
      limit: PAGE,
      status: '',
      to: number,
      deviceId: '',
      search: '',
      fromDate: '',
      toDate: '',
    }),
  ]);
  const lines: Line[] = [
    ...received.messages.map((m) => ({
      kind: 'in' as const,
      at: m.receivedAt || m.createdAt,
      text: m.text,
      deviceId: m.deviceId,
      id: m.id,
    })),
    ...sent.messages.map((m: message.Message__Output) => ({
      kind: 'out' as const,
      at: m.createdAt,
      text: m.text,
      deviceId: m.deviceId,
      id: m.messageId,
      status: m.status,
    })),
  ];
  return lines.sort((a, b) => Date.parse(a.at) - Date.parse(b.at)).slice(-PAGE);
}

/** The client's phones, for the reply's select. */
async function replyPhones(up: Upstreams, clientId: string): Promise<devicehub.Device__Output[]> {
  return (await up.devices.listDevices({ clientId, onlineOnly: false })).devices;
}

/** A conversation's page: its lines, and the phones a reply can go through. */
export interface Thread {
  lines: Line[];
  phones: devicehub.Device__Output[];
}

export async function thread(up: Upstreams, clientId: string, number: string): Promise<Thread> {
  const [lines, phones] = await Promise.all([conversation(up, clientId, number), replyPhones(up, clientId)]);
  return { lines, phones };
}

/** The reply's fields; `''` holds what belongs to no field. */
export type ReplyErrors = Partial<Record<'device_id' | 'text' | '', string>>;

/** The number a reply can go to (an E.164 number; a sender name or short code cannot be answered). */
export const replyable = (number: string) => normalizePhoneNumber(number);

export type ReplyAnswer =
  | { ok: true; messageId: string }
  /** Refused per field, or by the message service (`refusal`: an offline phone, a number it refuses...); with the conversation to show it on. */
  | { ok: false; errors: ReplyErrors; thread: Thread }
  | { ok: false; refusal: AppError; thread: Thread };

/** A reply from the conversation's page (`reply`); when it is refused, the conversation to give the form back on. */
export async function replyInThread(up: Upstreams, clientId: string, number: string, deviceId: string, text: string): Promise<ReplyAnswer> {
  let result: Awaited<ReturnType<typeof reply>>;
  try {
    result = await reply(up, clientId, number, deviceId, text);
  } catch (err) {
    // The service's refusals are shown; its failures are not.
    if (!(err instanceof AppError) || (err.httpStatus >= 500 && err.code !== 'DEVICE_OFFLINE')) throw err;
    return { ok: false, refusal: err, thread: await thread(up, clientId, number) };
  }
  if (!result.ok) return { ok: false, errors: result.errors, thread: await thread(up, clientId, number) };
  return result;
}

/**
 * Sends the reply through the chosen phone, pinned to it (the person chose that phone: it must not
 * move to another), with the client's default time to live, as the API would. The phone must be
 * the client's and online; what is refused comes back per field.
 */
async function reply(
  up: Upstreams,
  clientId: string,
  number: string,
  deviceId: string,
  text: string,
): Promise<{ ok: true; messageId: string } | { ok: false; errors: ReplyErrors }> {
  const to = replyable(number);
  if (!to) return { ok: false, errors: { '': 'This sender is not a phone number: it cannot be answered by SMS.' } };
  const errors: ReplyErrors = {};
  if (text.trim() === '') errors.text = 'Write the text of the reply.';
  else if (!isStorableText(text)) errors.text = 'The text holds characters an SMS cannot carry.';
  else if (smsCharacters(text) > MAX_SMS_CHARACTERS) errors.text = `The text is longer than ${MAX_SMS_CHARACTERS} characters.`;
  if (!deviceId) errors.device_id = 'Choose the phone that sends the reply.';
  else {
    const device = await up.devices.getDevice({ clientId, deviceId }).catch((err: unknown) => {
      if (err instanceof AppError && err.httpStatus < 500) return undefined;
      throw err;
    });
    if (!device) errors.device_id = 'This phone is not one of yours.';
    else if (device.status !== 'online')
      errors.device_id = `The phone “${device.name || device.deviceId}” is offline: choose an online phone, or try again once it is back.`;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const { defaultTtlSeconds } = await up.accounts.getClient({ clientId });
  // A refusal of the message service (an AppError below 500) is the caller's to show.
  const res = await up.messages.send({
    clientId,
    mode: LIVE,
    deviceId,
    message: { to, text, metadataJson: '' },
    priority: 3,
    webhookUrl: '',
    scheduledAt: '',
    idempotencyKey: '',
    requestHash: '',
    ttlSeconds: defaultTtlSeconds,
    pinned: true,
  });
  return { ok: true, messageId: res.message?.messageId ?? '' };
}
