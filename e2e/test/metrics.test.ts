import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { REPO_ROOT } from '@smsgw/stack';
import { eventually } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem } from './support/system';

/** One sample of a scrape: metric name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function scrape(url: string): Promise<Sample[]> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${url} answered ${res.statusCode}`));
          const samples: Sample[] = [];
          for (const line of text.split('\n')) {
            if (!line || line.startsWith('#')) continue;
            const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
            if (!m) continue;
            const labels: Record<string, string> = {};
            for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
            samples.push({ name: m[1]!, labels, value: Number(m[3]) });
          }
          resolve(samples);
        });
      })
      .on('error', reject);
  });
}

/** The sum of the samples of `name` whose labels include `labels`. */
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);

const PROMQL_WORDS = new Set([
  'sum',
  'rate',
  'increase',
  'max',
  'min',
  'avg',
  'by',
  'without',
  'histogram_quantile',
  'max_over_time',
  'le',
  'on',
  'ignoring',
  'and',
  'or',
  'unless',
]);

/** Metric names a PromQL expression reads (identifiers followed by `{`, `[` or the end, minus functions and labels). */
function metricNames(expr: string): string[] {
  const withoutLabels = expr.replace(/\{[^}]*\}/g, '{}').replace(/by \([^)]*\)/g, '');
  return [...withoutLabels.matchAll(/\b([a-z_][a-z0-9_]*)\b(?=\s*[{[)]|\s*$|\s*\/)/g)]
    .map((m) => m[1]!)
    .filter((n) => !PROMQL_WORDS.has(n) && n.startsWith('smsgw_'));
}

describe('metrics of every service, as Prometheus scrapes them', () => {
  let system: TestSystem;
  let receiver: Receiver;

  beforeAll(async () => {
    system = await TestSystem.start();
    receiver = await Receiver.start(system.stack.certs);
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
  });

  const scrapeAll = async () =>
    Object.fromEntries(
      await Promise.all(Object.entries(system.stack.metricsUrls).map(async ([name, url]) => [name, await scrape(url)] as const)),
    );

  it('when an SMS with a webhook is delivered and an OTP verified, then each service counts it, and every dashboard query reads metrics that exist', async () => {
    const client = await system.createClient();
    const device = await system.createDevice(client.client_id, 'metered');
    await system.startAgent(client, device);
    const before = await scrapeAll();

    const sent = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33612345678', message: 'Compté', webhook_url: receiver.url('/metered') },
    });
    expect(sent.status).toBe(200);
    await system.waitForStatus(client, String(sent.body.message_id), 'delivered');
    await receiver.waitFor('/metered', 2);
    const otp = await system.api('/v1/sms/send-otp', client, { body: { to: '+33612345679' } }, 'test');
    const verified = await system.api('/v1/sms/verify-otp', client, { body: { otp_id: otp.body.otp_id, code: '123456' } }, 'test');
    expect(verified.body.valid).toBe(true);

    const after = await eventually(
      async () => {
        const now = await scrapeAll();
        return total(now.webhook!, 'smsgw_webhook_attempts_total', { outcome: 'success' }) -
          total(before.webhook!, 'smsgw_webhook_attempts_total', { outcome: 'success' }) >=
          2
          ? now
          : undefined;
      },
      10_000,
      'the webhook attempts counted',
    );
    const delta = (service: string, name: string, labels: Record<string, string> = {}) =>
      total(after[service]!, name, labels) - total(before[service]!, name, labels);
    expect(
      delta('gateway', 'smsgw_http_server_duration_seconds_count', { http_route: '/v1/sms/send', http_response_status_code: '200' }),
    ).toBe(1);
    expect(delta('gateway', 'smsgw_http_server_duration_seconds_count', { http_route: '/v1/sms/verify-otp' })).toBe(1);
    expect(delta('message', 'smsgw_rpc_server_duration_seconds_count', { rpc_method: 'SendMany', smsgw_code: 'OK' })).toBe(1);
    expect(delta('message', 'smsgw_message_claims_total', { claim: 'first', mode: 'live' })).toBe(1);
    expect(delta('message', 'smsgw_message_reports_total', { status: 'delivered' })).toBe(1);
    expect(delta('device-hub', 'smsgw_hub_sms_handed_out_total', { outcome: 'acknowledged' })).toBe(1);
    expect(total(after['device-hub']!, 'smsgw_hub_connected_phones')).toBeGreaterThanOrEqual(1);
    expect(delta('webhook', 'smsgw_webhook_attempts_total', { outcome: 'success', attempt: '1' })).toBe(2);
    expect(delta('otp', 'smsgw_otp_verifications_total', { outcome: 'valid' })).toBe(1);
    // The keys were checked by the account service (the gateway caches them a few seconds, so counted since start).
    expect(
      total(after.account!, 'smsgw_rpc_server_duration_seconds_count', { rpc_method: 'VerifyApiKey', smsgw_code: 'OK' }),
    ).toBeGreaterThanOrEqual(1);
    // The queue is reported for both modes, an empty one as 0.
    for (const name of ['smsgw_queue_depth', 'smsgw_queue_oldest_age_seconds']) {
      expect(
        after
          .message!.filter((s) => s.name === name)
          .map((s) => s.labels.mode)
          .sort(),
      ).toEqual(['live', 'test']);
    }
    expect(after.message!.filter((s) => s.name === 'smsgw_jetstream_consumer_lag').map((s) => s.labels.messaging_consumer_name)).toEqual(
      expect.arrayContaining(['message-reports', 'message-timers']),
    );
    expect(after.webhook!.filter((s) => s.name === 'smsgw_jetstream_consumer_lag').map((s) => s.labels.messaging_consumer_name)).toEqual(
      expect.arrayContaining(['webhook-events']),
    );
    // No label holds an id, a number or a text.
    const labels = JSON.stringify(
      Object.values(after)
        .flat()
        .map((s) => s.labels),
    );
    expect(labels).not.toMatch(/msg_|device_0|client_\d|\+336|Compté/);

    // Every metric a dashboard panel reads is one that some service exports (histograms by their _bucket/_count/_sum).
    const exported = new Set(
      Object.values(after)
        .flat()
        .map((s) => s.name),
    );
    const dashboardsDir = path.join(REPO_ROOT, 'charts/sms-gateway/dashboards');
    const missing: string[] = [];
    for (const file of fs.readdirSync(dashboardsDir)) {
      const dashboard = JSON.parse(fs.readFileSync(path.join(dashboardsDir, file), 'utf8')) as {
        panels: { title: string; targets: { expr: string }[] }[];
      };
      for (const panel of dashboard.panels) {
        for (const target of panel.targets) {
          const names = metricNames(target.expr);
          expect([panel.title, names.length > 0]).toEqual([panel.title, true]);
          for (const name of names) if (!exported.has(name)) missing.push(`${file}: "${panel.title}" reads ${name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
