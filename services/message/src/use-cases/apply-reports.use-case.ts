import { counter, endSpan, startChildSpan, type AgentReport, type Logger, type Span } from '@smsgw/platform';
import type { FleetRepository } from '../data/fleet.repository';
import type { EventFields } from '../domain/message-row';
import type { MessageRepository } from '../data/message.repository';
import { reportOutcome, type ReportedStatus } from '../domain/message-status';
import { failureOf } from '../domain/report';
import { reportedSim } from '../domain/sim';
import type { SmsEventPublisher } from '../events/sms-event.publisher';
import type { WakeUpPublisher } from '../events/wake-up.publisher';
import { fallBackAfterFailure } from './otp-fallback.use-case';

const retriesElsewhere = counter('message.retries_elsewhere', 'Messages a phone failed without sending them, opened to its fleet');
const reportsSeen = counter('message.reports', 'Phone reports applied (a redelivered one counts again), by status and failure code');

export interface ReportDeps {
  messages: Pick<MessageRepository, 'markAcceptedMany' | 'applyReports' | 'findMany'>;
  fleet: Pick<FleetRepository, 'retryElsewhere' | 'otpFallbackAfterFailure'>;
  events: Pick<SmsEventPublisher, 'publishRows'>;
  wakeUps: Pick<WakeUpPublisher, 'wakeClient'>;
  log: Logger;
}

/** A report to apply, and the span of its processing (in the SMS's trace). */
export interface ReportToApply {
  report: AgentReport;
  span: Span;
}

interface Move {
  report: AgentReport;
  span: Span;
  status: ReportedStatus;
  at: Date;
  error?: { code: string; message: string };
  sim: number;
}

/**
 * Applies the phones' reports of one batch (a hub's batch, in the order the hub stored them) and
 * publishes their public events together, under an id made from `workId`, so that the same batch
 * applied again after a crash publishes nothing twice: the state machine makes a report applied
 * twice change nothing, and a report that finds its message already where it says publishes that
 * state's event again (the same event id).
 *
 * - `accepted` (an acknowledgement the hub could not record at once) marks the message the phone's.
 * - A failure that sent nothing (`not_sent`) while another phone of the client is online
 *   (`retry_elsewhere`), of an unpinned message that never failed before, opens the message to the
 *   fleet instead of failing it (no event).
 * - The others move their messages in one statement per round: a message's first report of the
 *   batch in the first, its second in the second, so that its reports keep their order.
 */
export async function applyReports(deps: ReportDeps, items: readonly ReportToApply[], workId: string): Promise<void> {
  const accepts = items.filter((i) => i.report.status === 'accepted');
  if (accepts.length > 0) {
    for (const { report } of accepts) reportsSeen.add(1, { status: report.status });
    await deps.messages.markAcceptedMany(
      accepts.map(({ report }) => ({
        messageId: report.message_id,
        deviceId: report.device_id,
        at: new Date(report.at),
        sim: reportedSim(report.sim),
      })),
    );
  }
  const moves: Move[] = [];
  for (const { report, span } of items) {
    if (report.status === 'accepted') continue;
    const error = failureOf(report);
    reportsSeen.add(1, { status: report.status, ...(error ? { 'error.code': error.code } : {}) });
    const at = new Date(report.at);
    // The slot the phone says it sent through (protocol 4); 0: the message keeps its own.
    const sim = reportedSim(report.sim);
    if (error && report.not_sent === true && report.retry_elsewhere === true) {
      // Nothing left the phone and another phone of the client is online: try it there once.
      const retried = await deps.fleet.retryElsewhere(report.message_id, report.device_id, { ...error, at: at.toISOString(), sim });
      if (retried) {
        retriesElsewhere.add(1, { 'error.code': error.code });
        deps.wakeUps.wakeClient(retried.client_id, 1);
        continue;
      }
    }
    moves.push({ report, span, status: report.status, at, ...(error ? { error } : {}), sim });
  }

  const published: { row: EventFields; parent: Span }[] = [];
  const unmoved: Move[] = [];
  for (const round of rounds(moves)) {
    const changes = round.map((m) => ({
      move: m,
      span: startChildSpan(m.span, 'message.state_change', { 'smsgw.message_id': m.report.message_id, 'smsgw.status': m.status }),
    }));
    let moved: Map<string, EventFields>;
    try {
      moved = await deps.messages.applyReports(
        round.map((m) => ({
          messageId: m.report.message_id,
          deviceId: m.report.device_id,
          status: m.status,
          at: m.at,
          ...(m.error ? { error: m.error } : {}),
          sim: m.sim,
        })),
      );
    } catch (err) {
      changes.forEach((c) => endSpan(c.span, 'NOT_APPLIED'));
      throw err;
    }
    for (const { move, span } of changes) {
      endSpan(span);
      const row = moved.get(move.report.message_id);
      // An OTP's failed SMS may go once through another phone instead (no query for any other message).
      if (row && !(await fallBackAfterFailure(deps, row))) published.push({ row, parent: move.span });
      else if (!row) unmoved.push(move);
    }
  }

  if (unmoved.length > 0) {
    const current = await deps.messages.findMany([...new Set(unmoved.map((m) => m.report.message_id))]);
    for (const move of unmoved) {
      const row = current.get(move.report.message_id);
      if (!row || row.device_id !== move.report.device_id) {
        deps.log.warn(
          { message_id: move.report.message_id, device_id: move.report.device_id },
          'report for an unknown message or another device',
        );
      } else if (reportOutcome(row.status, move.status) === 'duplicate') {
        if (!(await fallBackAfterFailure(deps, row))) published.push({ row, parent: move.span });
      } else if (move.status === 'sent' && row.sent_at && (row.status === 'delivered' || row.status === 'failed')) {
        // The message went on without this report: its delivered (or failed) report overtook it, or this
        // one is redelivered after a crash that came between its write and its event. Either way its
        // sms.sent may never have been published. Its id comes from sent_at, so one already published
        // is dropped again by its consumers.
        published.push({ row: { ...row, status: 'sent' }, parent: move.span });
      }
    }
  }
  await deps.events.publishRows(published, `events-of-${workId}`);
}

/** The moves in rounds: each message's first report in the first, its second in the second, and so on. */
function rounds(moves: readonly Move[]): Move[][] {
  const out: Move[][] = [];
  const seen = new Map<string, number>();
  for (const move of moves) {
    const k = seen.get(move.report.message_id) ?? 0;
    (out[k] ??= []).push(move);
    seen.set(move.report.message_id, k + 1);
  }
  return out;
}
