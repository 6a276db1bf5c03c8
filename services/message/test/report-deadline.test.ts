import { noReport, reportDeadline } from '../src/domain/report-deadline';

const base = {
  status: 'sent' as const,
  created_at: new Date('2030-01-01T10:00:00.000Z'),
  scheduled_at: null,
  sent_at: new Date('2030-01-01T10:00:10.000Z'),
  expires_at: null,
};

describe('the "sent, no report" rule', () => {
  it('when a sent message has no ttl, then its report is overdue 72 hours and an hour after it was sent', () => {
    expect(reportDeadline(base)).toEqual(new Date('2030-01-04T11:00:10.000Z'));
    expect(noReport(base, new Date('2030-01-04T11:00:09.999Z'))).toBe(false);
    expect(noReport(base, new Date('2030-01-04T11:00:10.000Z'))).toBe(true);
  });

  it('when a sent message has a ttl, then its validity is that ttl, counted from its creation or scheduled time', () => {
    const ttl = { ...base, expires_at: new Date('2030-01-01T10:10:00.000Z') };
    expect(reportDeadline(ttl)).toEqual(new Date('2030-01-01T11:10:10.000Z'));
    const scheduled = { ...ttl, scheduled_at: new Date('2030-01-01T10:05:00.000Z'), expires_at: new Date('2030-01-01T10:15:00.000Z') };
    expect(reportDeadline(scheduled)).toEqual(new Date('2030-01-01T11:10:10.000Z'));
  });

  it('when a message is not sent (queued, delivered, failed), then it is never "sent, no report"', () => {
    for (const status of ['queued', 'delivered', 'failed', 'cancelled'] as const) {
      expect(noReport({ ...base, status }, new Date('2031-01-01T00:00:00.000Z'))).toBe(false);
    }
  });
});
