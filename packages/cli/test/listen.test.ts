import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { signWebhook } from '@smsgw/client';
import { run } from '../src';
import { eventLine, summary } from '../src/listen';

const KEY = `sgw_test_${'a'.repeat(40)}`;

async function listening(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A webhook event of the stream, its body signed with `secret` (or not). */
function webhook(secret: string, kind: string, data: Record<string, unknown>, id = `evt_${Math.random().toString(36).slice(2)}`) {
  const timestamp = new Date().toISOString();
  const body = JSON.stringify({ event: kind, event_id: id, timestamp, data });
  return `event: webhook\nid: ${id}\ndata: ${JSON.stringify({ body, signature: signWebhook(body, secret), timestamp })}\n\n`;
}

const ready = (secret: string) =>
  `event: ready\ndata: ${JSON.stringify({ secret, mode: 'test', events: ['sms.sent', 'sms.delivered'] })}\n\n`;

function io(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  let stop: () => void = () => undefined;
  return {
    io: {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t) },
      stdin: Readable.from([]),
      env,
      onInterrupt: (s: () => void) => {
        stop = s;
      },
    },
    out: () => out.join(''),
    err: () => err.join(''),
    interrupt: () => stop(),
  };
}

async function until(probe: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('smsgw listen', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  it('when events come, then good ones are printed and forwarded with their signature headers, a bad one is reported only; a dropped stream is opened again with a new secret; Ctrl-C ends with 0', async () => {
    const asked: http.IncomingHttpHeaders[] = [];
    const paths: string[] = [];
    let connections = 0;
    const gateway = http.createServer((req, res) => {
      asked.push(req.headers);
      paths.push(req.url!);
      connections++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (connections === 1) {
        res.write(ready('whsec_first'));
        res.write(webhook('whsec_first', 'sms.sent', { message_id: 'msg_1', status: 'sent', to: '+33612345678' }, 'evt_good'));
        res.write(webhook('whsec_wrong', 'sms.sent', { message_id: 'msg_2', status: 'sent' }, 'evt_forged'));
        // The first stream drops after its events: the command connects again.
        setTimeout(() => res.end(), 200);
      } else {
        res.write(ready('whsec_second'));
        res.write(': keepalive\n\n');
        res.write(webhook('whsec_second', 'sms.delivered', { message_id: 'msg_1', status: 'delivered' }, 'evt_after'));
      }
    });
    const forwarded: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        forwarded.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    servers.push(gateway, receiver);
    const base = await listening(gateway);
    const target = `${await listening(receiver)}/hooks`;
    const t = io({ SMSGW_API_KEY: KEY, SMSGW_CLIENT_ID: 'client_1', SMSGW_BASE_URL: base, SMSGW_CONFIG: '/nonexistent/config.json' });

    const exit = run(['listen', '--events', 'sms.sent,sms.delivered', '--forward', target], t.io);
    await until(() => forwarded.length >= 2, 'two forwarded events', 10_000);
    t.interrupt();

    expect(await exit).toBe(0);
    expect(paths[0]).toBe('/v1/events/listen?events=sms.sent%2Csms.delivered');
    expect(asked[0]).toMatchObject({ 'x-api-key': KEY, 'x-client-id': 'client_1', accept: 'text/event-stream' });
    expect(connections).toBe(2);
    expect(t.err()).toContain('Signing secret: whsec_first');
    expect(t.err()).toContain('Signing secret: whsec_second');
    expect(t.err()).toMatch(/Ready: test events sms\.sent, sms\.delivered, forwarded to http:\/\/127\.0\.0\.1:\d+\/hooks/);
    expect(t.err()).toMatch(/failed its check, not forwarded/);
    expect(t.err()).toMatch(/stream lost: the server closed the stream; connecting again in/);
    expect(t.out()).toMatch(/^\d\d:\d\d:\d\d {2}sms\.sent {13}evt_good {2}msg_1 sent$/m);
    expect(t.out()).toMatch(/evt_after {2}msg_1 delivered/);
    expect(t.out()).not.toContain('evt_forged');
    expect(t.out()).toMatch(/ {2}-> http:\/\/127\.0\.0\.1:\d+\/hooks 204/);
    expect(forwarded.map((f) => f.headers['x-webhook-event-id'])).toEqual(['evt_good', 'evt_after']);
    expect(forwarded[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-webhook-event': 'sms.sent',
      'x-webhook-attempt': '1',
    });
    expect(forwarded[0]!.headers['x-webhook-signature']).toBe(signWebhook(forwarded[0]!.body, 'whsec_first'));
    expect(forwarded[1]!.headers['x-webhook-signature']).toBe(signWebhook(forwarded[1]!.body, 'whsec_second'));
  });

  it('when --json is given, then each verified body is printed as it came, one per line', async () => {
    let body = '';
    const gateway = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(ready('whsec_json'));
      const event = webhook('whsec_json', 'sms.received', { id: 'rcv_1', from: '+33698765432' });
      body = (JSON.parse(event.split('data: ')[1]!) as { body: string }).body;
      res.write(event);
    });
    servers.push(gateway);
    const t = io({
      SMSGW_API_KEY: KEY,
      SMSGW_CLIENT_ID: 'client_1',
      SMSGW_BASE_URL: await listening(gateway),
      SMSGW_CONFIG: '/nonexistent/c.json',
    });

    const exit = run(['listen', '--json'], t.io);
    await until(() => t.out().length > 0, 'the event');
    t.interrupt();

    expect(await exit).toBe(0);
    expect(t.out()).toBe(`${body}\n`);
  });

  it('when the API refuses the key or a kind, then the error is printed and the command ends with 1 without trying again', async () => {
    let calls = 0;
    const gateway = http.createServer((_req, res) => {
      calls++;
      res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          success: false,
          error: { code: 'VALIDATION_ERROR', message: 'Plusieurs champs de la requête sont invalides.' },
        }),
      );
    });
    servers.push(gateway);
    const t = io({
      SMSGW_API_KEY: KEY,
      SMSGW_CLIENT_ID: 'client_1',
      SMSGW_BASE_URL: await listening(gateway),
      SMSGW_CONFIG: '/nonexistent/c.json',
    });

    expect(await run(['listen', '--events', 'sms.lost'], t.io)).toBe(1);
    expect(calls).toBe(1);
    expect(t.err()).toContain('smsgw: VALIDATION_ERROR (HTTP 400)');
  });

  it('when --forward is not a URL, then it is a usage error', async () => {
    const t = io({
      SMSGW_API_KEY: KEY,
      SMSGW_CLIENT_ID: 'client_1',
      SMSGW_BASE_URL: 'http://127.0.0.1:9',
      SMSGW_CONFIG: '/nonexistent/c.json',
    });
    expect(await run(['listen', '--forward', 'localhost:3000'], t.io)).toBe(2);
    expect(t.err()).toContain('--forward takes an http:// or https:// URL');
  });

  it('when the stream sends a line that never ends, then the connection is given up past 1 MiB and opened again, its memory bounded', async () => {
    let connections = 0;
    const gateway = http.createServer((_req, res) => {
      connections++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(ready('whsec_long'));
      // 2 MiB of one data line, and no end to it.
      const chunk = `data: ${'x'.repeat(64 * 1024)}`;
      for (let i = 0; i < 32; i++) res.write(i === 0 ? chunk : 'x'.repeat(64 * 1024));
    });
    servers.push(gateway);
    const t = io({
      SMSGW_API_KEY: KEY,
      SMSGW_CLIENT_ID: 'client_1',
      SMSGW_BASE_URL: await listening(gateway),
      SMSGW_CONFIG: '/nonexistent/c.json',
    });

    const exit = run(['listen'], t.io);
    await until(() => t.err().includes('stream lost: a line of the stream is longer than 1048576 characters'), 'the stream given up');
    t.interrupt();

    expect(await exit).toBe(0);
    expect(connections).toBeGreaterThanOrEqual(1);
    expect(t.out()).toBe('');
  });

  it("when an event's fields hold control characters or run long, then its line prints none of them and at most 200 characters", () => {
    const line = eventLine({
      event: 'sms.received',
      event_id: 'evt_1',
      timestamp: '2030-01-01T12:34:56.000Z',
      data: { id: 'rcv_1', from: '\u001b]0;pwned\u0007\u001b[2J' + 'A'.repeat(500) },
    });

    // eslint-disable-next-line no-control-regex -- the control characters the line must not hold
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(line.startsWith('12:34:56  sms.received         evt_1  rcv_1 from ?]0;pwned??[2J')).toBe(true);
    expect([...line]).toHaveLength(200);
    expect(line.endsWith('…')).toBe(true);
  });

  it('when an event is summed up, then a message gives its id and status, a received SMS its sender, a phone its id and name', () => {
    expect(summary('sms.failed', { message_id: 'msg_1', status: 'failed' })).toBe('msg_1 failed');
    expect(summary('sms.received', { id: 'rcv_1', from: 'BANQUE' })).toBe('rcv_1 from BANQUE');
    expect(summary('device.connected', { device_id: 'device_1', name: 'Pixel' })).toBe('device_1 (Pixel)');
  });
});
