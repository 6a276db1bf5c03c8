import type { DeviceDigest, DigestEntry } from '@smsgw/platform';
import { clockOffsetMs, neverHad, repairFor, type ServerMessage } from '../src/domain/reconcile';

const settings = { graceMs: 60_000, clockMarginMs: 30_000 };
const DIGEST_AT = '2026-11-29T12:00:00.000Z';

const entry = (fields: Partial<DigestEntry>): DigestEntry => ({
  message_id: 'msg_A',
  state: 'accepted',
  parts: 1,
  parts_sent: 0,
  parts_failed: 0,
  parts_delivered: 0,
  accepted_at: '2026-11-29T11:00:00.000Z',
  ...fields,
});

const row = (fields: Partial<ServerMessage>): ServerMessage => ({
  message_id: 'msg_A',
  device_id: 'device_1',
  status: 'queued',
  accepted_at: new Date('2026-11-29T11:00:00.000Z'),
  sent_at: null,
  ...fields,
});

const SENT = { state: 'sent' as const, parts_sent: 1, sent_at: '2026-11-29T11:00:01.000Z' };
const DELIVERED = { ...SENT, state: 'delivered' as const, parts_delivered: 1, delivered_at: '2026-11-29T11:00:02.000Z' };

describe('reconciliation: what a digest entry repairs', () => {
  it('when the phone delivered a message the service has as sent, then the delivery report is applied', () => {
    expect(repairFor(entry(DELIVERED), row({ status: 'sent', sent_at: new Date(SENT.sent_at) }), DIGEST_AT, settings)).toEqual({
      kind: 'report_applied',
      reports: [{ status: 'delivered', at: DELIVERED.delivered_at }],
    });
  });

  it('when the phone sent a message the service still has as queued, then it is corrected to sent, and delivered when it was', () => {
    expect(repairFor(entry({ ...SENT, sim: 2 }), row({}), DIGEST_AT, settings)).toEqual({
      kind: 'sent_corrected',
      reports: [{ status: 'sent', at: SENT.sent_at, sim: 2 }],
    });
    expect(repairFor(entry(DELIVERED), row({}), DIGEST_AT, settings)).toEqual({
      kind: 'sent_corrected',
      reports: [
        { status: 'sent', at: SENT.sent_at },
        { status: 'delivered', at: DELIVERED.delivered_at },
      ],
    });
  });

  it('when the phone failed a message the service has as queued, then the failure is applied with its cause', () => {
    const error = { code: 'OUT_OF_NETWORK' as const, message: 'x' };
    const failed = entry({ state: 'failed', parts_failed: 1, failed_at: '2026-11-29T11:00:01.000Z', error });
    expect(repairFor(failed, row({}), DIGEST_AT, settings)).toEqual({
      kind: 'report_applied',
      reports: [{ status: 'failed', at: '2026-11-29T11:00:01.000Z', error }],
    });
  });

  it('when the service already knows what the phone did, or more, then nothing is repaired', () => {
    const delivered = row({ status: 'delivered', sent_at: new Date(SENT.sent_at) });
    expect(repairFor(entry(DELIVERED), delivered, DIGEST_AT, settings)).toBeUndefined();
    expect(repairFor(entry(SENT), row({ status: 'sent', sent_at: new Date(SENT.sent_at) }), DIGEST_AT, settings)).toBeUndefined();
    expect(repairFor(entry(SENT), delivered, DIGEST_AT, settings)).toBeUndefined();
    expect(repairFor(entry({ state: 'sending' }), row({}), DIGEST_AT, settings)).toBeUndefined();
  });

  it('when a delivery report overtook a lost sent report, then the sent report is applied once, so that sms.sent goes out', () => {
    // The delivery's time stands in as sent_at: the phone's own sent_at differs.
    const delivered = row({ status: 'delivered', sent_at: new Date(DELIVERED.delivered_at) });
    expect(repairFor(entry(DELIVERED), delivered, DIGEST_AT, settings)).toEqual({
      kind: 'report_applied',
      reports: [{ status: 'sent', at: SENT.sent_at }],
    });
    expect(repairFor(entry(DELIVERED), { ...delivered, repairs: [{}] }, DIGEST_AT, settings)).toBeUndefined();
  });

  it('when the phone’s last step is more recent than the grace period, then it is left alone: its report may still come', () => {
    const recent = entry({ ...SENT, sent_at: '2026-11-29T11:59:30.000Z' });
    expect(repairFor(recent, row({}), DIGEST_AT, settings)).toBeUndefined();
  });
});

describe('reconciliation: messages the phone never had', () => {
  const digest = (fields: Partial<DeviceDigest>): DeviceDigest => ({
    device_id: 'device_1',
    digest_id: 'd',
    chunk: 1,
    chunks: 1,
    at: DIGEST_AT,
    received_at: DIGEST_AT,
    covers_from: '2026-11-29T10:00:00.000Z',
    covers_to: DIGEST_AT,
    entries: [],
    ...fields,
  });

  it('when a held message was acknowledged well inside the span the digest covers and is not listed, then it goes back to the queue', () => {
    const held = [row({ message_id: 'msg_GONE' }), row({ message_id: 'msg_A' })];
    expect(neverHad(digest({ entries: [entry({})] }), held, settings).map((r) => r.message_id)).toEqual(['msg_GONE']);
  });

  it('when a held message was acknowledged near the edges of the span, before it, or was sent, then it stays: it is not certain', () => {
    const held = [
      row({ message_id: 'msg_EDGE', accepted_at: new Date('2026-11-29T10:00:10.000Z') }),
      row({ message_id: 'msg_BEFORE', accepted_at: new Date('2026-11-29T09:00:00.000Z') }),
      row({ message_id: 'msg_LATE', accepted_at: new Date('2026-11-29T11:59:50.000Z') }),
      row({ message_id: 'msg_SENT', sent_at: new Date('2026-11-29T11:00:01.000Z') }),
      row({ message_id: 'msg_OTHER', device_id: 'device_2' }),
    ];
    expect(neverHad(digest({}), held, settings)).toEqual([]);
  });

  it('when the phone’s clock runs ahead, then its span is set back on the service’s clock before the comparison', () => {
    // The phone is 1 h ahead: its 11:00-13:00 is the service's 10:00-12:00.
    const ahead = digest({
      at: '2026-11-29T13:00:00.000Z',
      covers_from: '2026-11-29T11:00:00.000Z',
      covers_to: '2026-11-29T13:00:00.000Z',
    });
    expect(clockOffsetMs(ahead)).toBe(3600_000);
    const held = [row({ message_id: 'msg_GONE', accepted_at: new Date('2026-11-29T10:30:00.000Z') })];
    expect(neverHad(ahead, held, settings).map((r) => r.message_id)).toEqual(['msg_GONE']);
  });
});
