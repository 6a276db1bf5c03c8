// Protocol 7 of a phone's session (PROTOCOL.md): its `digest` frames, read and stored in JetStream
// for the message service, which compares them with its own state and repairs what lost frames left.
import { counter, FAILURE_CODES, type DeviceDigest, type DigestEntry, type FailureCode, type LogSink } from '@smsgw/platform';
import { isSimSlot } from '../domain/sims';
import type { ReportPublisher } from '../events/report.publisher';
import { isMessageId } from './agent-frames';

/** The first agent protocol whose `digest` frames the hub takes. */
export const DIGEST_PROTOCOL = 7;
/** A phone sends a digest every few minutes and at each connection: more frames than this a minute are dropped. */
const DIGEST_FRAMES_PER_MINUTE = 60;
const MAX_ENTRIES = 500;
const STATES: readonly DigestEntry['state'][] = ['accepted', 'sending', 'sent', 'delivered', 'failed'];

const digestFrames = counter('hub.digest_frames', 'Digest frames of phones (protocol 7), by outcome');

/**
 * The digest frames of one phone's connection: each one checked, stamped with the hub's clock,
 * and stored in JetStream as one batch (PROTOCOL.md, version 7). Nothing is answered: the phone
 * sends a digest again a few minutes later anyway.
 */
export class DigestRelay {
  private windowStart = 0;
  private framesInWindow = 0;

  constructor(
    private readonly deviceId: string,
    private readonly reports: Pick<ReportPublisher, 'publishDigest'>,
    private readonly log: LogSink,
    private readonly clock: () => number,
  ) {}

  relay(frame: Record<string, unknown>): void {
    const now = this.clock();
    if (now - this.windowStart >= 60_000) {
      this.windowStart = now;
      this.framesInWindow = 0;
    }
    if (++this.framesInWindow > DIGEST_FRAMES_PER_MINUTE) {
      digestFrames.add(1, { outcome: 'refused' });
      return;
    }
    const digest = digestOf(frame, this.deviceId, new Date(now).toISOString());
    if (!digest) {
      digestFrames.add(1, { outcome: 'malformed' });
      this.log.warn('digest frame malformed; dropped');
      return;
    }
    this.reports.publishDigest(digest).then(
      () => digestFrames.add(1, { outcome: 'stored' }),
      (err: unknown) => {
        digestFrames.add(1, { outcome: 'not_stored' });
        this.log.warn({ err }, 'digest not stored; the phone sends another in a few minutes');
      },
    );
  }
}

const isTime = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value));
const count = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 255 ? value : -1);

/** The digest a frame holds, or undefined when it is not one; entries that cannot be read are left out. */
export function digestOf(frame: Record<string, unknown>, deviceId: string, receivedAt: string): DeviceDigest | undefined {
  const { digest_id: digestId, chunk, chunks, at, covers_from: from, covers_to: to, entries } = frame;
  if (typeof digestId !== 'string' || digestId.length === 0 || digestId.length > 64) return undefined;
  if (typeof chunk !== 'number' || typeof chunks !== 'number' || !Number.isInteger(chunk) || chunk < 1 || chunk > chunks) return undefined;
  if (!isTime(at) || !isTime(from) || !isTime(to) || Date.parse(from) > Date.parse(to)) return undefined;
  if (!Array.isArray(entries) || entries.length > MAX_ENTRIES) return undefined;
  const read: DigestEntry[] = [];
  for (const value of entries as unknown[]) {
    const entry = entryOf(value);
    if (entry) read.push(entry);
  }
  // An entry left out would read as "never handed over": a frame with one is not trusted at all.
  if (read.length !== entries.length) return undefined;
  const iso = (value: string) => new Date(value).toISOString();
  return {
    device_id: deviceId,
    digest_id: digestId,
    chunk,
    chunks,
    at: iso(at),
    received_at: receivedAt,
    covers_from: iso(from),
    covers_to: iso(to),
    entries: read,
  };
}

function entryOf(value: unknown): DigestEntry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const e = value as Record<string, unknown>;
  if (!isMessageId(e.message_id) || !STATES.includes(e.state as never) || !isTime(e.accepted_at)) return undefined;
  const parts = count(e.parts);
  const sent = count(e.parts_sent);
  const failed = count(e.parts_failed);
  const delivered = count(e.parts_delivered);
  if (parts < 1 || sent < 0 || failed < 0 || delivered < 0) return undefined;
  const entry: DigestEntry = {
    message_id: e.message_id,
    state: e.state as DigestEntry['state'],
    parts,
    parts_sent: sent,
    parts_failed: failed,
    parts_delivered: delivered,
    accepted_at: new Date(e.accepted_at).toISOString(),
  };
  for (const key of ['sent_at', 'delivered_at', 'failed_at'] as const) {
    if (isTime(e[key])) entry[key] = new Date(e[key]).toISOString();
  }
  if (entry.state === 'failed') {
    const error = (e.error ?? {}) as { code?: unknown; message?: unknown };
    const code = FAILURE_CODES.includes(error.code as never) ? (error.code as FailureCode) : 'DEVICE_ERROR';
    entry.error = { code, message: typeof error.message === 'string' ? error.message.slice(0, 200) : '' };
    if (e.not_sent === true) entry.not_sent = true;
  }
  if (isSimSlot(e.sim)) entry.sim = e.sim;
  return entry;
}
