import {
  AGENT_REPORT_STATUSES,
  FAILURE_CODES,
  FAILURE_MESSAGES,
  type AgentReport,
  type BatchedReport,
  type DeviceDigest,
} from '@smsgw/platform';

/** A phone's report as the hub relayed it, checked (undefined when it cannot be used). */
export function parseReport(value: unknown): BatchedReport | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const r = value as Partial<BatchedReport>;
  if (typeof r.message_id !== 'string' || typeof r.device_id !== 'string') return undefined;
  if (!AGENT_REPORT_STATUSES.includes(r.status as never) || typeof r.at !== 'string' || Number.isNaN(Date.parse(r.at))) return undefined;
  if (r.traceparent !== undefined && typeof r.traceparent !== 'string') return undefined;
  return r as BatchedReport;
}

/** The failure a `failed` report stands for (its code when known, else DEVICE_ERROR, with its French sentence); undefined otherwise. */
export function failureOf(report: AgentReport): { code: string; message: string } | undefined {
  if (report.status !== 'failed') return undefined;
  const code = FAILURE_CODES.includes(report.error?.code as never) ? report.error!.code : 'DEVICE_ERROR';
  return { code, message: FAILURE_MESSAGES[code] };
}

/** A phone's digest frame as the hub stored it (protocol 7; the hub checked each entry), or undefined. */
export function parseDigest(value: unknown): DeviceDigest | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const d = value as Partial<DeviceDigest>;
  const times = [d.at, d.received_at, d.covers_from, d.covers_to];
  if (typeof d.device_id !== 'string' || typeof d.digest_id !== 'string' || !Array.isArray(d.entries)) return undefined;
  if (!times.every((t) => typeof t === 'string' && !Number.isNaN(Date.parse(t)))) return undefined;
  const entriesOk = d.entries.every(
    (e) => typeof e?.message_id === 'string' && typeof e.state === 'string' && typeof e.accepted_at === 'string',
  );
  return entriesOk ? (d as DeviceDigest) : undefined;
}
