import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { randomInt } from 'node:crypto';
import WebSocket from 'ws';
import { Prng } from './support/fuzz';
import { hostileFrame, pairingBody, upgradeRequest, type FrameIds, type HostileFrame } from './support/fuzz-agent';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// FUZZ_AGENT_SEED=<n> replays a run; FUZZ_AGENT_COUNT sizes it (frames, pairing and upgrade requests together).
const SEED = process.env.FUZZ_AGENT_SEED ? Number(process.env.FUZZ_AGENT_SEED) : randomInt(0, 2 ** 31);
const COUNT = Number(process.env.FUZZ_AGENT_COUNT ?? 2000);
const PHONES = 4;
/** The frames the hub closes a connection on (1009 oversized, 1007 not UTF-8). */
const CLOSING = ['oversized', 'not UTF-8'];
const HTTP_CONCURRENCY = 4;

/** The whole stack's start-up, on a busy shared machine: more than the default hook timeout. */
const START_TIMEOUT_MS = 180_000;

interface Answer {
  status: number;
  text: string;
}

/** Pairs a device with its password, as a phone does, and returns its device token. */
async function pairWithPassword(system: TestSystem, clientId: string, devicePassword: string): Promise<string> {
  const body = Buffer.from(JSON.stringify({ client_id: clientId, device_password: devicePassword }));
  const answer = await post(system, body, 'application/json');
  const token = (JSON.parse(answer.text) as { device_token?: string }).device_token;
  if (answer.status !== 200 || !token) throw new Error(`pairing answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  return token;
}

function post(system: TestSystem, body: Buffer, contentType: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-length': body.length };
    if (contentType) headers['content-type'] = contentType;
    const req = https.request(
      new URL('/v1/agent/pair', system.stack.hubUrl),
      { method: 'POST', ca: system.stack.certs.caPem, agent: false, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
    // The hub may answer (413) and close before it read the whole body.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    req.end(body);
  });
}

/** Writes an upgrade request on a fresh TLS socket and reads the answer's head and body (101: the head only). */
function upgrade(system: TestSystem, bytes: Buffer): Promise<Answer> {
  const url = new URL(system.stack.hubUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: system.stack.certs.caPem }, () => socket.write(bytes));
    const deadline = setTimeout(() => socket.destroy(), 10_000);
    const parsed = (): Answer | undefined => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      const body = Buffer.from(text.slice(end + 4), 'latin1');
      if (status !== 101 && body.length < length) return undefined;
      return { status, text: body.subarray(0, length).toString('utf8') };
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (parsed()) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(deadline);
      const answer = parsed();
      if (answer) resolve(answer);
      else reject(new Error(`no complete answer: ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
    });
  });
}

/** The error lines (what a 5xx would be) a service's log holds. */
function errorLines(system: TestSystem, service: string): string[] {
  const file = path.join(system.stack.logDir, `${service}.log`);
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"level":"error"'))
    : [];
}

/** What is wrong with an HTTP answer of the hub: a 5xx other than 503, or a refusal outside the envelope. */
function problemOf(answer: Answer): string | undefined {
  if (answer.status >= 500 && answer.status !== 503) return `answered ${answer.status}: ${answer.text.slice(0, 200)}`;
  if (answer.status < 400) return undefined;
  try {
    const body = JSON.parse(answer.text) as { success?: unknown; error?: { code?: unknown; message?: unknown } };
    if (body.success === false && typeof body.error?.code === 'string' && typeof body.error.message === 'string') return undefined;
  } catch {
    // judged below
  }
  return `${answer.status} not in the error envelope: ${JSON.stringify(answer.text.slice(0, 200))}`;
}

/**
 * A paired phone spoken by hand: it sends what it is given, records the SMS
 * the hub hands it (its own message ids) and how its connections were
 * closed, and connects again when the hub closed the last one.
 */
class HostilePhone {
  readonly own: string[] = [];
  readonly closeCodes = new Map<number, number>();
  private ws?: WebSocket;

  constructor(
    private readonly system: TestSystem,
    private readonly token: string,
  ) {}

  private async connection(): Promise<WebSocket> {
    if (this.ws?.readyState === WebSocket.OPEN) return this.ws;
    if (this.ws && this.ws.readyState !== WebSocket.CLOSED) await new Promise((resolve) => this.ws!.once('close', resolve));
    const ws = new WebSocket(`${this.system.stack.hubUrl.replace('https', 'wss')}/v1/agent`, 'smsgw.agent.v1', {
      ca: this.system.stack.certs.caPem,
      headers: { authorization: `Bearer ${this.token}` },
      maxPayload: 1024 * 1024,
    });
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as { type?: string; message_id?: string };
      if (frame.type === 'sms' && frame.message_id && !this.own.includes(frame.message_id)) this.own.push(frame.message_id);
    });
    ws.on('close', (code: number) => this.closeCodes.set(code, (this.closeCodes.get(code) ?? 0) + 1));
    ws.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
      ws.once('error', reject);
    });
    this.ws = ws;
    return ws;
  }

  /**
   * Sends one frame and waits until it is written (or the connection is gone); after a frame
   * the hub must close on (oversized, not UTF-8), until it closed, so that the next frames reach
   * a connection that reads them.
   */
  async send(frame: HostileFrame): Promise<void> {
    const ws = await this.connection();
    const closed = new Promise((resolve) => ws.once('close', resolve));
    await new Promise<void>((resolve) => ws.send(frame.data, { binary: frame.binary }, () => resolve()));
    if (CLOSING.includes(frame.label)) {
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))]);
    }
  }

  /** Sends the frames back to back without waiting between them. */
  async flood(frames: HostileFrame[]): Promise<void> {
    const ws = await this.connection();
    await Promise.all(frames.map((f) => new Promise<void>((resolve) => ws.send(f.data, { binary: f.binary }, () => resolve()))));
  }

  close(): void {
    this.ws?.close();
  }
}

describe('hostile input to the device hub: frames of paired phones, pairing and upgrade requests', () => {
  let system: TestSystem;
  let victim: DemoClient;
  let victimPhone: DemoDevice;
  let attacker: DemoClient;
  const phones: HostilePhone[] = [];
  /** A paired device's token that upgrade requests carry with a bad handshake. */
  let upgradeToken: string;
  /** The victim's messages, queued for a phone that stays away during the run: never handed to a hostile phone. */
  const foreign: string[] = [];

  beforeAll(async () => {
    console.log(`agent fuzz seed ${SEED} (replay with FUZZ_AGENT_SEED=${SEED}), ${COUNT} frames and requests`);
    system = await TestSystem.start({
      LOG_LEVEL: 'warn',
      // Hostile pairing from this one address is part of the input: the pairing limits have their own tests.
      PAIRING_RATE_LIMIT: '1000000',
      PAIRING_MAX_FAILURES: '1000000',
    });
    victim = await system.createClient();
    victimPhone = await system.createDevice(victim.client_id, 'victim');
    attacker = await system.createClient();
    // The attacker's phones, and one more phone of the victim's (a report from a sibling is forged too).
    const devices: [DemoClient, DemoDevice][] = [];
    for (let i = 0; i < PHONES - 1; i++) devices.push([attacker, await system.createDevice(attacker.client_id, `hostile-${i}`)]);
    devices.push([victim, await system.createDevice(victim.client_id, 'sibling')]);
    const upgradeDevice = await system.createDevice(attacker.client_id, 'upgrades');
    upgradeToken = await pairWithPassword(system, attacker.client_id, upgradeDevice.device_password);
    for (const [client, device] of devices) {
      phones.push(new HostilePhone(system, await pairWithPassword(system, client.client_id, device.device_password)));
    }
    // Scheduled a moment ahead: the API queues an SMS for an offline phone only so.
    const soon = () => new Date(Date.now() + 3000).toISOString();
    for (let i = 0; i < 3; i++) {
      const sent = await system.api('/v1/sms/send', victim, {
        headers: { 'X-Device-ID': victimPhone.device_id },
        body: { to: '+33612345678', message: `Votre code ${i}`, scheduled_at: soon() },
      });
      expect(sent.status).toBe(200);
      foreign.push(String(sent.body.message_id));
    }
    // SMS of the first hostile phone's own, so that its acks and reports may be out of order on messages it was handed.
    for (let i = 0; i < 3; i++) {
      const sent = await system.api('/v1/sms/send', attacker, {
        headers: { 'X-Device-ID': devices[0]![1].device_id },
        body: { to: '+33612345678', message: `Fuzz ${i}`, scheduled_at: soon() },
      });
      expect(sent.status).toBe(200);
    }
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    for (const phone of phones) phone.close();
    await system?.stop();
  });

  it(
    `when ${COUNT} hostile frames, pairing and upgrade requests arrive, then the hub answers each in the envelope without a 5xx, never restarts, stores no forged state, and a well-behaved phone still delivers`,
    async () => {
      const hub = system.stack.services['device-hub'];
      const pid = hub.pid;
      const errorsBefore = ['device-hub', 'message'].map((s) => errorLines(system, s).length);
      const rng = new Prng(SEED);
      const perPhone: HostileFrame[][][] = phones.map(() => []);
      const http: (
        { kind: 'pair'; body: Buffer; contentType: string; label: string } | { kind: 'upgrade'; bytes: Buffer; label: string }
      )[] = [];
      const ids = (phone: number): FrameIds => ({ own: phones[phone]!.own, foreign });
      // Frames are generated as they are sent (a phone's own ids are known only then): here, only their number per phone.
      let frames = 0;
      while (frames + http.length < COUNT) {
        const roll = rng.next();
        if (roll < 0.08) http.push({ kind: 'pair', ...pairingBody(rng, rng.chance(0.5) ? victim.client_id : attacker.client_id) });
        else if (roll < 0.15) http.push({ kind: 'upgrade', ...upgradeRequest(rng, upgradeToken) });
        else {
          const phone = rng.int(0, PHONES - 1);
          // Mostly one frame at a time; sometimes a flood of them back to back.
          const size = rng.chance(0.03) ? Math.min(rng.int(50, 300), Math.max(1, COUNT - frames - http.length)) : 1;
          perPhone[phone]!.push(Array.from({ length: size }, () => ({ data: '', binary: false, label: '' })));
          frames += size;
        }
      }

      const failures: string[] = [];
      const counts = new Map<string, number>();
      const count = (key: string, n = 1) => counts.set(key, (counts.get(key) ?? 0) + n);
      const started = Date.now();

      async function phoneWorker(index: number): Promise<void> {
        const phone = phones[index]!;
        const frameRng = new Prng(SEED + index + 1);
        for (const batch of perPhone[index]!) {
          // A flood is made of frames the hub reads on: one it closes on would drop the rest unread.
          const hostile = batch.map(() => {
            let frame = hostileFrame(frameRng, ids(index));
            while (batch.length > 1 && CLOSING.includes(frame.label)) frame = hostileFrame(frameRng, ids(index));
            return frame;
          });
          for (const f of hostile) count(`frame ${f.label}`);
          try {
            if (hostile.length === 1) await phone.send(hostile[0]!);
            else {
              count('floods');
              await phone.flood(hostile);
            }
          } catch (err) {
            failures.push(`phone ${index} ${hostile[0]!.label}: ${(err as Error).message}`);
          }
        }
      }

      let next = 0;
      async function httpWorker(): Promise<void> {
        while (next < http.length) {
          const req = http[next++]!;
          try {
            const answer = req.kind === 'pair' ? await post(system, req.body, req.contentType) : await upgrade(system, req.bytes);
            let code = '';
            try {
              code = String((JSON.parse(answer.text) as { error?: { code?: string } }).error?.code ?? '');
            } catch {
              // judged by problemOf
            }
            count(`${req.kind} ${answer.status}${code ? ` ${code}` : ''}`);
            const problem = problemOf(answer);
            if (problem) failures.push(`${req.kind} [${req.label}]: ${problem}`);
          } catch (err) {
            failures.push(`${req.kind} [${req.label}]: ${(err as Error).message}`);
          }
        }
      }

      await Promise.all([...phones.map((_, i) => phoneWorker(i)), ...Array.from({ length: HTTP_CONCURRENCY }, () => httpWorker())]);
      for (const phone of phones) for (const [code, n] of phone.closeCodes) count(`closed ${code}`, n);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `agent fuzz seed ${SEED}: ${frames} frames, ${http.length} HTTP requests in ${seconds} s\n${[...counts]
          .sort()
          .map(([k, v]) => `  ${k}: ${v}`)
          .join('\n')}`,
      );
      for (const phone of phones) phone.close();

      expect({ seed: SEED, failures: failures.slice(0, 15), failed: failures.length }).toEqual({ seed: SEED, failures: [], failed: 0 });
      // No frame made a call fail inside: an ack or report the hub relays must not fail at the message service (nor be retried there for ever).
      const errorsAfter = ['device-hub', 'message'].map((s, i) =>
        errorLines(system, s)
          .slice(errorsBefore[i])
          .map((l) => `${s}: ${l.slice(0, 600)}`),
      );
      expect(errorsAfter.flat().slice(0, 5)).toEqual([]);
      // The hub closes a connection for an internal error with 1011: never.
      expect(counts.get('closed 1011') ?? 0).toBe(0);
      // The same process, alive and answering.
      expect(hub.pid).toBe(pid);
      expect(hub.running).toBe(true);
      expect(await upgrade(system, Buffer.from('GET /healthz HTTP/1.1\r\nHost: hub\r\nConnection: close\r\n\r\n'))).toMatchObject({
        status: 200,
      });

      // No forged ack or report moved the victim's messages: they wait for their phone. (A message
      // handed to the victim's other phone, after the failover delay of a long run, is that phone's.)
      const handed = new Set(phones.flatMap((p) => p.own));
      const untouched = foreign.filter((id) => !handed.has(id));
      expect(untouched.length).toBeGreaterThan(0);
      for (const id of untouched)
        expect({ id, status: (await system.api(`/v1/sms/status/${id}`, victim)).body.status }).toEqual({ id, status: 'queued' });

      // A well-behaved phone then sends them, and one more sent now, once each, to delivered.
      const agent = await system.startAgent(victim, victimPhone);
      const sent = await system.api('/v1/sms/send', victim, {
        headers: { 'X-Device-ID': victimPhone.device_id },
        body: { to: '+33612345678', message: 'After the storm' },
      });
      expect(sent.status).toBe(200);
      for (const id of [...untouched, String(sent.body.message_id)]) {
        const status = await system.waitForStatus(victim, id, 'delivered', 30_000);
        expect(status.error_code ?? null).toBeNull();
        expect(agent.sentCount(id)).toBe(1);
      }
      expect(hub.pid).toBe(pid);
    },
    Math.max(240_000, COUNT * 20),
  );
});
