import { digestOf } from '../src/sessions/digest-relay';

const RECEIVED_AT = '2030-01-01T10:00:05.000Z';
const frame = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'digest',
  digest_id: 'd1',
  at: '2030-01-01T10:00:00.000Z',
  chunk: 1,
  chunks: 1,
  covers_from: '2030-01-01T04:00:00.000Z',
  covers_to: '2030-01-01T10:00:00.000Z',
  entries: [
    {
      message_id: 'msg_01ABC',
      state: 'failed',
      parts: 2,
      parts_sent: 1,
      parts_failed: 1,
      parts_delivered: 0,
      accepted_at: '2030-01-01T09:00:00+01:00',
      sent_at: '2030-01-01T08:00:01.000Z',
      failed_at: '2030-01-01T08:00:02.000Z',
      error: { code: 'NOT_A_CODE', message: 'x' },
      sim: 2,
    },
  ],
  ...over,
});

describe("a phone's digest frame (protocol 7), as the hub reads it", () => {
  it('when a frame is well formed, then it is kept with the device and the hub’s clock, its times in UTC, an unknown cause read as DEVICE_ERROR', () => {
    expect(digestOf(frame(), 'device_1', RECEIVED_AT)).toEqual({
      device_id: 'device_1',
      digest_id: 'd1',
      chunk: 1,
      chunks: 1,
      at: '2030-01-01T10:00:00.000Z',
      received_at: RECEIVED_AT,
      covers_from: '2030-01-01T04:00:00.000Z',
      covers_to: '2030-01-01T10:00:00.000Z',
      entries: [
        {
          message_id: 'msg_01ABC',
          state: 'failed',
          parts: 2,
          parts_sent: 1,
          parts_failed: 1,
          parts_delivered: 0,
          accepted_at: '2030-01-01T08:00:00.000Z',
          sent_at: '2030-01-01T08:00:01.000Z',
          failed_at: '2030-01-01T08:00:02.000Z',
          error: { code: 'DEVICE_ERROR', message: 'x' },
          sim: 2,
        },
      ],
    });
  });

  it('when a frame has an entry it cannot read, or a span that runs backwards, or too many entries, then the whole frame is dropped: a missing entry would read as never handed over', () => {
    const entries = frame().entries as Record<string, unknown>[];
    expect(digestOf(frame({ entries: [...entries, { message_id: 'bad id', state: 'sent' }] }), 'device_1', RECEIVED_AT)).toBeUndefined();
    expect(digestOf(frame({ covers_from: '2030-01-02T00:00:00.000Z' }), 'device_1', RECEIVED_AT)).toBeUndefined();
    expect(digestOf(frame({ chunk: 2, chunks: 1 }), 'device_1', RECEIVED_AT)).toBeUndefined();
    expect(digestOf(frame({ entries: Array.from({ length: 501 }, () => entries[0]) }), 'device_1', RECEIVED_AT)).toBeUndefined();
    expect(digestOf(frame({ at: 'yesterday' }), 'device_1', RECEIVED_AT)).toBeUndefined();
  });
});
