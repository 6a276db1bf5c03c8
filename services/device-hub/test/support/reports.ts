import { decodeReportBatch, type AgentReport, type Nats } from '@smsgw/platform';

/** The reports of `deviceId` the hubs stored (the report batches stream, a work queue no consumer takes from in these tests), oldest first. */
export async function storedReports(nats: Nats, deviceId: string): Promise<AgentReport[]> {
  const info = await nats.jsm.streams.info(nats.names.reportBatchesStream).catch(() => undefined);
  if (!info) return [];
  const out: AgentReport[] = [];
  for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
    const stored = await nats.jsm.streams.getMessage(nats.names.reportBatchesStream, { seq }).catch(() => undefined);
    for (const report of (stored && (decodeReportBatch(stored.data) as AgentReport[])) ?? []) {
      if (report.device_id === deviceId) {
        const { traceparent: _trace, ...rest } = report as AgentReport & { traceparent?: string };
        out.push(rest);
      }
    }
  }
  return out;
}

/** The last report of `deviceId` the hubs stored, if any. */
export async function lastStoredReport(nats: Nats, deviceId: string): Promise<AgentReport | undefined> {
  return (await storedReports(nats, deviceId)).at(-1);
}

/**
 * Every report the hubs publish from now on, as it goes to JetStream (a core subscription to the
 * report batches' subjects sees each batch as it is published, whoever consumes the stream).
 */
export function publishedReports(nats: Nats): { of(deviceId: string): AgentReport[]; stop(): void } {
  const seen: AgentReport[] = [];
  const sub = nats.nc.subscribe(nats.names.reportBatches, {
    callback: (_err, msg) => {
      seen.push(...((decodeReportBatch(msg.data) as AgentReport[] | undefined) ?? []));
    },
  });
  return { of: (deviceId) => seen.filter((r) => r.device_id === deviceId), stop: () => sub.unsubscribe() };
}
