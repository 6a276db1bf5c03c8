import http from 'node:http';
import https from 'node:https';
import { createClient } from '@smsgw/platform';
import { deviceHubProto } from '@smsgw/proto';
import type { AddressInfo } from 'node:net';
import { eventually, request } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem } from './support/system';

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  /** The spans it links to (a batch's span to each of its items'). */
  links: { traceId: string; spanId: string }[];
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
        attributes?: { key: string; value: Record<string, unknown> }[];
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

/** A real OTLP/HTTP receiver (JSON encoding, as the services export with OTEL_EXPORTER_OTLP_PROTOCOL=http/json). */
async function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpJson;
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const attributes = Object.fromEntries((s.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]]));
              const links = (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId }));
              spans.push({
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                attributes,
                links,
              });
            }
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** POST /v1/agent/pair with `body` to `url` (a pairing URL as its QR code holds it, query and all): the hub's status. */
function postPairing(url: string, ca: string, body: object): Promise<number> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('one trace per SMS, exported over OTLP', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let system: TestSystem;
  let receiver: Receiver;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    system = await TestSystem.start({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    receiver = await Receiver.start(system.stack.certs);
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
    await otlp?.close();
  });

  it('when an SMS with a webhook goes through the phone, then one trace holds the gateway, account, message, JetStream, hub, report, state change and webhook spans, each under its parent', async () => {
    const client = await system.createClient();
    const device = await system.createDevice(client.client_id, 'traced');
    // Online is checked over gRPC, not with the API key: the send below is then the key's first use, which the account service checks.
    await system.startAgent(client, device, { waitOnline: false });
    const hub = createClient(deviceHubProto().DeviceHubService, system.stack.deviceHubAddress, {
      tls: system.stack.grpcCredentials('gateway'),
    });
    await eventually(
      async () =>
        (await hub.getDevice({ clientId: client.client_id, deviceId: device.device_id })).status === 'online' ? true : undefined,
      20_000,
      'the phone online',
    );
    hub.close();
    const res = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33612345678', message: 'Suivi de bout en bout', webhook_url: receiver.url('/traced') },
    });
    expect(res.status).toBe(200);
    const messageId = String(res.body.message_id);
    const hooks = await receiver.waitFor('/traced', 2);

    // The receiver gets the trace too: its traceparent names the SMS's trace.
    const traceIds = hooks.map((h) => String(h.headers.traceparent).split('-')[1]);
    expect(traceIds[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIds[1]).toBe(traceIds[0]);
    const traceId = traceIds[0]!;

    // Messaging span names carry the deployment's subject prefix (a test run's own here).
    const wanted: [string, RegExp][] = [
      ['gateway', /^POST \/v1\/sms\/send$/],
      ['account', /VerifyApiKey$/],
      ['message', /^message\.queue$/],
      ['device-hub', /^device-hub deliver$/],
      ['device-hub', /^device-hub ack$/],
      // The hub gathers the phones' acknowledgements and reports, the message service the events:
      // each SMS keeps its spans (a message's `create` span, its consumer's `process` span), and
      // the batch's own `send` span links to them.
      ['message', /^message\.accept$/],
      ['device-hub', /^device-hub report$/],
      ['device-hub', /^create agent\.reports\.\*$/],
      ['message', /^process agent\.reports\.\*$/],
      ['message', /^message\.state_change$/],
      ['message', /^create events\.sms\.sent$/],
      ['message', /^create events\.sms\.delivered$/],
      ['webhook', /^process (\w+\.)?events\.sms\.sent$/],
      ['webhook', /^process (\w+\.)?events\.sms\.delivered$/],
      ['webhook', /^webhook deliver$/],
    ];
    // Each service exports its spans in batches of its own, so a span may arrive before its parent
    // (another service's, or one still open): wait until every parent is in too, then assert.
    const spansOfTrace = () => otlp.spans.filter((s) => s.traceId === traceId);
    const complete = (spans: typeof otlp.spans) =>
      wanted.every(([service, name]) => spans.some((s) => s.service === service && name.test(s.name))) &&
      spans.every((s) => !s.parentSpanId || spans.some((p) => p.spanId === s.parentSpanId));
    const trace = await eventually(
      async () => (complete(spansOfTrace()) ? spansOfTrace() : undefined),
      20_000,
      `the spans of trace ${traceId}`,
    ).catch(() => spansOfTrace());
    expect(wanted.filter(([service, name]) => !trace.some((s) => s.service === service && name.test(s.name))).map(String)).toEqual([]);
    // Every span but the root hangs under a span of the same trace.
    const ids = new Set(trace.map((s) => s.spanId));
    const roots = trace.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => s.name)).toEqual(['POST /v1/sms/send']);
    expect(trace.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).map((s) => `${s.service} ${s.name}`)).toEqual([]);
    // The hub's delivery and the webhook's attempt name the SMS by its id, never by its number or text.
    expect(trace.find((s) => s.name === 'device-hub deliver')!.attributes['smsgw.message_id']).toBe(messageId);
    const flat = JSON.stringify(trace);
    expect(flat).not.toContain('+33612345678');
    expect(flat).not.toContain('Suivi de bout en bout');
    expect(flat).not.toContain(client.live_api_key);
    // The phone's looks at its queue (ClaimNext), most of them empty, are no traces of their own,
    // on either side: the SMS's trace goes on from the claimed message.
    expect(otlp.spans.filter((s) => s.name.includes('ClaimNext')).map((s) => `${s.service} ${s.name}`)).toEqual([]);
    // With an exporter, Redis commands are spans too (without one they are not instrumented at all).
    expect(otlp.spans.some((s) => s.service === 'gateway' && s.attributes['db.system.name'] === 'redis')).toBe(true);
  });

  it("when an SMS's events go to a batched endpoint, then each keeps its webhook deliver span in the SMS's trace, and the POST is a span of its own linked to them, whose context the receiver gets", async () => {
    const client = await system.createClient();
    const device = await system.createDevice(client.client_id, 'traced batches');
    await system.startAgent(client, device);
    await system.cli(
      ...['create-webhook', '--client', client.client_id, '--url', receiver.url('/traced-batch')],
      ...['--events', 'sms.sent,sms.delivered', '--batch'],
    );
    const res = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33612345678', message: 'Suivi par lots' },
    });
    expect(res.status).toBe(200);
    const eventIds = await eventually(async () => {
      const ids = receiver.at('/traced-batch').flatMap((h) => (JSON.parse(h.raw) as { event_id: string }[]).map((e) => e.event_id));
      return ids.length >= 2 ? ids : undefined;
    }, 20_000);
    const posts = receiver.at('/traced-batch');

    // Each POST: a root span of its own trace (the receiver's traceparent), linked to each event's span.
    const postSpans = await eventually(async () => {
      const found = posts.map((p) =>
        otlp.spans.find((s) => s.name === 'webhook deliver batch' && s.traceId === String(p.headers.traceparent).split('-')[1]),
      );
      return found.every(Boolean) ? (found as ReceivedSpan[]) : undefined;
    }, 20_000);
    const items = await eventually(async () => {
      const found = eventIds.map((id) => otlp.spans.find((s) => s.name === 'webhook deliver' && s.attributes['smsgw.event_id'] === id));
      return found.every(Boolean) ? (found as ReceivedSpan[]) : undefined;
    }, 20_000);
    for (const p of postSpans) {
      expect(p).toMatchObject({ service: 'webhook', parentSpanId: '' });
      expect(Number(p.attributes['http.response.status_code'])).toBe(200);
    }
    const linked = postSpans.flatMap((p) => p.links.map((l) => l.spanId)).sort();
    expect(linked).toEqual(items.map((s) => s.spanId).sort());
    // Both events' spans are in one trace, the SMS's, which starts at its send request.
    expect(new Set(items.map((s) => s.traceId)).size).toBe(1);
    const smsTrace = items[0]!.traceId;
    expect(postSpans.map((p) => p.traceId)).not.toContain(smsTrace);
    for (const item of items) {
      expect(item.service).toBe('webhook');
      expect(postSpans.map((p) => p.attributes['smsgw.webhook.batch_id'])).toContain(item.attributes['smsgw.webhook.batch_id']);
    }
    await eventually(
      async () => (otlp.spans.some((s) => s.traceId === smsTrace && s.name === 'POST /v1/sms/send' && !s.parentSpanId) ? true : undefined),
      20_000,
      "the SMS trace's root",
    );
  });

  it('when URLs carry a phone number or a token in their query, then no exported span holds them', async () => {
    const client = await system.createClient();
    const device = await system.createDevice(client.client_id, 'redacted');
    await system.startAgent(client, device);
    const hookPath = '/redacted?token=url-token-5551';
    const res = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33687654321', message: 'Texte jamais tracé', webhook_url: receiver.url(hookPath) },
    });
    expect(res.status).toBe(200);
    await receiver.waitFor(hookPath, 2);
    // A dashboard search by number: signed out, it is sent to the sign-in page, but its URL was seen by the HTTP instrumentation.
    const search = await request(`${system.stack.dashboardUrl}/messages?q=%2B33687654321`, system.stack.certs.caPem, { method: 'GET' });
    expect(search.status).toBe(302);

    const seen = (service: string, path: string) =>
      otlp.spans.some((s) => s.service === service && Object.values(s.attributes).some((v) => String(v).includes(path)));
    await eventually(
      async () => (seen('dashboard', '/messages') && seen('webhook', '/redacted') ? true : undefined),
      20_000,
      'the dashboard and webhook HTTP spans',
    );
    const flat = JSON.stringify(otlp.spans);
    expect(flat).not.toContain('33687654321');
    expect(flat).not.toContain('url-token-5551');
    expect(flat).not.toContain('Texte jamais tracé');
    expect(flat).toContain('/redacted?REDACTED');
  });

  it('when a phone pairs by code and the inbox and history are searched, then no exported span holds the code, the search term or the number searched', async () => {
    const client = await system.createClient();
    const device = await system.createDevice(client.client_id, 'paired by code');
    const code = new URL(device.pairing_url).searchParams.get('code')!;
    const term = 'Quokka-Zanzibar-7319';
    const number = '+33612340099';

    // The code in the URL's query (as the QR code has it) and in the body (as the phone sends it).
    expect(await postPairing(device.pairing_url, system.stack.certs.caPem, { pairing_code: code })).toBe(200);
    const inbox = await system.api(`/v1/sms/inbox?search=${term}&from=${encodeURIComponent(number)}`, client);
    const history = await system.api(`/v1/sms/history?search=${term}&to=${encodeURIComponent(number)}`, client);
    expect([inbox.status, history.status]).toEqual([200, 200]);

    // The pairing's, the searches' and the message service's spans were exported: what they hold is what is checked.
    const named = (service: string, name: RegExp) => otlp.spans.some((s) => s.service === service && name.test(s.name));
    const seen = (service: string, path: string) =>
      otlp.spans.some((s) => s.service === service && Object.values(s.attributes).some((v) => String(v).includes(path)));
    await eventually(
      async () =>
        seen('device-hub', '/v1/agent/pair') &&
        named('gateway', /^GET \/v1\/sms\/inbox$/) &&
        named('gateway', /^GET \/v1\/sms\/history$/) &&
        named('message', /ListReceived$/) &&
        named('message', /ListMessages$/)
          ? true
          : undefined,
      20_000,
      'the pairing, inbox and history spans',
    );
    // The spans holding `secret` (in any case), by service and name.
    const holding = (secret: string) =>
      otlp.spans.filter((s) => JSON.stringify(s).toUpperCase().includes(secret.toUpperCase())).map((s) => `${s.service} ${s.name}`);
    // The code's first 8 characters find the device and are no secret: the other 26 are.
    expect(holding(code.slice(8))).toEqual([]);
    expect(holding(term)).toEqual([]);
    expect(holding('33612340099')).toEqual([]);
  });
});
