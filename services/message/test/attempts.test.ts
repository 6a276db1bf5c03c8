import type { MessageRow } from '../src/domain/message-row';
import { attemptsOf, releaseReason, ttlOf } from '../src/domain/fleet';

const base: Parameters<typeof attemptsOf>[0] = {
  device_id: 'device_b',
  status: 'queued',
  error_code: null,
  error_message: null,
  attempts: null,
  queued_at: new Date('2030-01-01T10:00:00.000Z'),
  accepted_at: null,
  sent_at: null,
  delivered_at: null,
  failed_at: null,
  cancelled_at: null,
  sim: 0,
};

describe('the attempts of a message', () => {
  it('when a message never moved, then its one attempt is its device and status at the time of that status', () => {
    expect(attemptsOf(base)).toEqual([
      { deviceId: 'device_b', status: 'queued', errorCode: '', errorMessage: '', at: '2030-01-01T10:00:00.000Z', sim: 0, reconciled: '' },
    ]);
    const accepted = new Date('2030-01-01T10:00:05.000Z');
    expect(attemptsOf({ ...base, accepted_at: accepted })[0]!.at).toBe(accepted.toISOString());
    const failed: Partial<MessageRow> = {
      status: 'failed',
      failed_at: new Date('2030-01-01T10:01:00.000Z'),
      error_code: 'INVALID_NUMBER',
      error_message: 'x',
    };
    expect(attemptsOf({ ...base, ...failed })).toEqual([
      {
        deviceId: 'device_b',
        status: 'failed',
        errorCode: 'INVALID_NUMBER',
        errorMessage: 'x',
        at: '2030-01-01T10:01:00.000Z',
        sim: 0,
        reconciled: '',
      },
    ]);
  });

  it('when a message was queued again after an earlier try, then the earlier tries come first and the current one starts when the last ended', () => {
    const rows = attemptsOf({
      ...base,
      attempts: [
        {
          device_id: 'device_a',
          status: 'failed',
          error_code: 'OUT_OF_NETWORK',
          error_message: 'Hors réseau',
          at: '2030-01-01T10:02:00.000Z',
        },
      ],
    });
    expect(rows).toEqual([
      {
        deviceId: 'device_a',
        status: 'failed',
        errorCode: 'OUT_OF_NETWORK',
        errorMessage: 'Hors réseau',
        at: '2030-01-01T10:02:00.000Z',
        sim: 0,
        reconciled: '',
      },
      { deviceId: 'device_b', status: 'queued', errorCode: '', errorMessage: '', at: '2030-01-01T10:02:00.000Z', sim: 0, reconciled: '' },
    ]);
  });

  it('when the hub names a release reason, or the gateway a ttl, then only the defined values pass', () => {
    expect(releaseReason('RELEASE_REASON_OFFLINE')).toBe('OFFLINE');
    expect(releaseReason(2)).toBe('REMOVED');
    expect(releaseReason('RELEASE_REASON_QUARANTINED')).toBe('QUARANTINED');
    expect(() => releaseReason('RELEASE_REASON_UNSPECIFIED')).toThrow();
    expect(ttlOf(undefined, 'ttl')).toBe(0);
    expect(ttlOf(600, 'ttl')).toBe(600);
    expect(() => ttlOf(-1, 'ttl')).toThrow();
  });
});
