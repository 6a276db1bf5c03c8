import { counter, endSpan, startItemConsumerSpan, type AgentReport, type DeviceDigest } from '@smsgw/platform';
import type { ReconcileRepository, RepairRecord } from '../data/reconcile.repository';
import { clockOffsetMs, neverHad, repairFor, type ReconcileSettings, type RepairKind, type ServerMessage } from '../domain/reconcile';
import type { WakeUpPublisher } from '../events/wake-up.publisher';
import { applyReports, type ReportDeps, type ReportToApply } from './apply-reports.use-case';

const repairsMade = counter('message.reconciliation_repairs', "Messages repaired from a phone's digest (protocol 7), by kind");

export interface ReconcileDeps extends ReportDeps {
  reconcile: Pick<ReconcileRepository, 'heldBy' | 'requeue' | 'recordRepairs'>;
  wakeUps: Pick<WakeUpPublisher, 'wakeClient' | 'wakeResumed'>;
  settings: ReconcileSettings;
}

/**
 * Compares one digest frame of a phone with the messages it names, and repairs what lost frames
 * left wrong: the reports the service never got are applied through the reports' own path (so
 * their events, with the ids the lost reports would have given them, reach each webhook once), and
 * the messages the phone was given but provably never had go back to its queue. Each repair is
 * written on its message and counted. The whole frame is a handful of statements, whatever its size.
 */
export async function reconcileDigest(deps: ReconcileDeps, digest: DeviceDigest, workId: string): Promise<Map<string, RepairKind>> {
  const repaired = new Map<string, RepairKind>();
  const rows = await deps.messages.findMany(digest.entries.map((e) => e.message_id));
  const items: ReportToApply[] = [];
  for (const entry of digest.entries) {
    const row = rows.get(entry.message_id);
    if (!row || row.device_id !== digest.device_id) continue;
    const repair = repairFor(entry, row, digest.at, deps.settings);
    if (!repair) continue;
    repaired.set(entry.message_id, repair.kind);
    for (const rebuilt of repair.reports) {
      const report: AgentReport = {
        message_id: entry.message_id,
        device_id: digest.device_id,
        status: rebuilt.status,
        at: rebuilt.at,
        ...(rebuilt.error ? { error: rebuilt.error as AgentReport['error'] } : {}),
        ...(rebuilt.sim !== undefined ? { sim: rebuilt.sim } : {}),
      };
      const span = startItemConsumerSpan('agent.digests', row.traceparent ?? undefined, {
        'smsgw.message_id': entry.message_id,
        'smsgw.report.status': rebuilt.status,
        'smsgw.repair': repair.kind,
      });
      items.push({ report, span });
    }
  }
  if (items.length > 0) {
    try {
      await applyReports(deps, items, workId);
    } finally {
      items.forEach((i) => endSpan(i.span));
    }
  }

  // The span the frame covers, on the service's clock, widened by the margin: only the messages
  // acknowledged within it can be proved absent.
  const offset = clockOffsetMs(digest);
  const from = new Date(Date.parse(digest.covers_from) - offset);
  const to = new Date(Date.parse(digest.covers_to) - offset);
  const held: ServerMessage[] = await deps.reconcile.heldBy(digest.device_id, from, to);
  const absent = neverHad(digest, held, deps.settings);
  const requeued = await deps.reconcile.requeue(digest.device_id, absent);
  for (const row of requeued) repaired.set(row.message_id, 'requeued');
  if (requeued.length > 0) deps.wakeUps.wakeResumed(requeued);

  const records: RepairRecord[] = [...repaired].map(([messageId, kind]) => ({ messageId, kind }));
  await deps.reconcile.recordRepairs(digest.device_id, records);
  for (const { kind } of records) repairsMade.add(1, { kind });
  if (records.length > 0)
    deps.log.info({ device_id: digest.device_id, repairs: records.length }, "repaired messages from a phone's digest");
  return repaired;
}
