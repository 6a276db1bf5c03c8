import { MESSAGE_STATUSES, reportOutcome, type MessageStatus, type ReportedStatus } from '../src/domain/message-status';

describe('reportOutcome', () => {
  const table: [MessageStatus, ReportedStatus, ReturnType<typeof reportOutcome>][] = [
    ['queued', 'sent', 'apply'],
    ['queued', 'delivered', 'apply'],
    ['queued', 'failed', 'apply'],
    ['sent', 'sent', 'duplicate'],
    ['sent', 'delivered', 'apply'],
    ['sent', 'failed', 'apply'],
    ['delivered', 'sent', 'stale'],
    ['delivered', 'delivered', 'duplicate'],
    ['delivered', 'failed', 'stale'],
    ['failed', 'sent', 'stale'],
    ['failed', 'delivered', 'stale'],
    ['failed', 'failed', 'duplicate'],
    ['cancelled', 'sent', 'apply'],
    ['cancelled', 'delivered', 'apply'],
    ['cancelled', 'failed', 'apply'],
  ];

  it.each(table)('when a %s message gets a %s report, then the outcome is %s', (current, reported, outcome) => {
    expect(reportOutcome(current, reported)).toBe(outcome);
  });

  it('when the table above is read, then it covers every status and report', () => {
    expect(table).toHaveLength(MESSAGE_STATUSES.length * 3);
  });
});
