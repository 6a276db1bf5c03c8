import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  start: number;
  end: number;
}

interface OtlpJson {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
      }[];
    }[];
  }[];
}

/**
 * A local OTLP/HTTP receiver (JSON encoding) for `make dev`: the services
 * export their spans to it (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and it
 * appends them, one JSON line each, to `file`; `printTrace` draws one trace.
 */
export async function startTraceReceiver(file: string, port = 0): Promise<{ url: string; stop(): Promise<void> }> {
  const out = fs.createWriteStream(file, { flags: 'a' });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpJson;
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const span: StoredSpan = {
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                start: Number(BigInt(s.startTimeUnixNano) / 1000n) / 1000,
                end: Number(BigInt(s.endTimeUnixNano) / 1000n) / 1000,
              };
              out.write(`${JSON.stringify(span)}\n`);
            }
          }
        }
      } catch {
        // not OTLP JSON: ignored
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => out.end(() => resolve()))),
  };
}

/** One trace as an indented tree: service, span name, offset from the trace's start and duration. */
export function printTrace(file: string, traceId: string): string {
  const spans = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as StoredSpan)
    .filter((s) => s.traceId === traceId);
  if (spans.length === 0) return `no span of trace ${traceId} in ${file}`;
  const t0 = Math.min(...spans.map((s) => s.start));
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, StoredSpan[]>();
  for (const s of spans) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => a.start - b.start)) {
      lines.push(
        `${'  '.repeat(depth)}${s.service.padEnd(11)} ${s.name}  +${(s.start - t0).toFixed(1)} ms, ${(s.end - s.start).toFixed(1)} ms`,
      );
      walk(s.spanId, depth + 1);
    }
  };
  walk('', 0);
  return `trace ${traceId}: ${spans.length} spans\n${lines.join('\n')}`;
}
