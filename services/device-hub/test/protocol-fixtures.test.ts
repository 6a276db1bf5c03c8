import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { seal } from '@smsgw/e2e-envelope';
import { connectNats, createLogger, type Nats } from '@smsgw/platform';
import { eventually } from '@smsgw/testing';
import { HubCluster, NATS_URL, postPair, randomHex } from './support/hub';
import { Phone, type Frame } from './support/phone';
import { MessageStandIn } from './support/stand-ins';

/**
 * The protocol fixtures (android-agent/fixtures, the executable part of PROTOCOL.md) from the
 * hub's side, against a real hub, Postgres, Redis and NATS (the message service a gRPC stand-in):
 * a phone connects and replays the agent's frames of each fixture, and the hub must send the
 * fixture's frames that do not hang on its clock, SIM rules or budgets: `hello` on each
 * connection, `report_ack` and `received_ack` (for every report and received SMS), and the first
 * offer of an SMS it hands out from its queue, whose ack it records (fixtures/README.md).
 */
const FIXTURES_DIR = path.join(__dirname, '..', '..', '..', 'android-agent', 'fixtures');
/** The frames the hub answers by itself, whatever its queues hold. */
const ANSWERS = ['report_ack', 'received_ack'];
const PLACEHOLDER = /^<([a-z0-9_]+)(?::([a-z0-9_]+))?>$/;

interface Step {
  hub?: Frame;
  phone?: { event: string; text?: string };
  connection?: 'drop' | 'reconnect';
  restart?: true;
  agent: Frame[];
}
interface Fixture {
  file: string;
  behaviour: string;
  agents?: string[];
  phone?: { passphrase?: string };
  steps: Step[];
}

function loadFixtures(): Fixture[] {
  return fs
    .readdirSync(FIXTURES_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, file), 'utf8')) as Omit<Fixture, 'file'>) }))
    .filter((fixture) => fixture.agents === undefined || fixture.agents.includes('hub'));
}

/**
 * A fixture's frame made concrete as a phone would send it, or a hub frame with the values bound
 * so far: `<time>` now, `<string>` a text, `<driver>` android, `<envelope>` the step's received
 * text sealed with the phone's passphrase, `<uuid:name>` a fresh UUID bound to `name`, `<name>`
 * the value bound (fixtures/README.md).
 */
function concrete(value: unknown, bound: Map<string, string>, sealed?: { passphrase: string; text: string }): unknown {
  if (typeof value === 'string') {
    const placeholder = PLACEHOLDER.exec(value);
    if (!placeholder) return value;
    const [, kind, name] = placeholder;
    if (kind === 'time') return new Date().toISOString();
    if (kind === 'string') return 'un texte';
    if (kind === 'driver') return 'android';
    if (kind === 'envelope') {
      if (!sealed) throw new Error("<envelope> needs the phone's passphrase and a received SMS in its step");
      return seal(sealed.text, sealed.passphrase);
    }
    if (kind === 'uuid') {
      const uuid = randomUUID();
      if (name) bound.set(name, uuid);
      return uuid;
    }
    const known = bound.get(kind!);
    if (known === undefined) throw new Error(`${value} is not bound by an earlier <uuid:${kind}>`);
    return known;
  }
  if (Array.isArray(value)) return value.map((item) => concrete(item, bound, sealed));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, concrete(item, bound, sealed)]));
  }
  return value;
}

/**
 * An `sms` of the fixture that the hub hands out from its queue as the fixture has it: the first
 * offer of its message, with no expiry and no SIM (which hang on the hub's clock and SIM rules).
 */
const handedByTheHub = (frame: Frame, offered: Set<string>): boolean =>
  frame.type === 'sms' &&
  typeof frame.to === 'string' &&
  typeof frame.text === 'string' &&
  !offered.has(frame.message_id!) &&
  frame.expires_at === undefined &&
  frame.sim === undefined;

describe('the protocol fixtures, from the hub side', () => {
  const natsPrefix = `t${randomHex(5)}`;
  let messages: MessageStandIn;
  let hub: HubCluster;
  let nats: Nats;
  const phones: Phone[] = [];

  beforeAll(async () => {
    messages = await MessageStandIn.start();
    hub = await HubCluster.start(
      1,
      { MESSAGE_GRPC_ADDR: messages.address, DISPATCH_INTERVAL_MIN_MS: '50', DISPATCH_INTERVAL_MAX_MS: '100' },
      undefined,
      natsPrefix,
    );
    nats = await connectNats({
      url: NATS_URL,
      prefix: natsPrefix,
      name: 'device-hub-test',
      log: createLogger('device-hub-test', 'silent'),
    });
  }, 60_000);

  afterAll(async () => {
    for (const phone of phones) phone.ws.close();
    await nats?.nc.drain();
    await hub?.stop();
    await messages?.stop();
  });

  async function pairedDevice(): Promise<{ clientId: string; deviceId: string; token: string }> {
    const clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const created = await hub.first.client.createDevice({ clientId, name: 'fixture phone' });
    const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
    expect(paired.status).toBe(200);
    return { clientId, deviceId: created.deviceId, token: paired.body.device_token as string };
  }

  async function connect(token: string): Promise<Phone> {
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    phones.push(phone);
    return phone;
  }

  /** Waits for the hub frame `expected` among what the phone got, and takes it. */
  async function expectFrame(phone: Phone, expected: Frame, where: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const index = phone.frames.findIndex((frame) => JSON.stringify(frame) === JSON.stringify(expected));
      if (index >= 0) {
        phone.frames.splice(index, 1);
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`${where}: the hub never sent ${JSON.stringify(expected)}; it sent ${JSON.stringify(phone.frames)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it.each(loadFixtures().map((fixture) => [fixture.file, fixture] as const))('%s', async (_file, fixture) => {
    const { clientId, deviceId, token } = await pairedDevice();
    // The fixture's messages are the device's: its reports on them are recorded, then acknowledged.
    for (const step of fixture.steps) {
      if (step.hub?.type === 'sms') {
        const id = step.hub.message_id as string;
        messages.owners.set(id, { messageId: id, clientId, deviceId });
      }
    }
    const bound = new Map<string, string>();
    /** The messages offered so far, and those the hub handed out itself (whose ack it must record). */
    const offered = new Set<string>();
    const handed = new Set<string>();
    // Every report and received SMS the phone sends is answered, those of the fixture's steps included.
    let owed: Frame[] = [];
    const settle = async (where: string): Promise<void> => {
      for (const answer of owed) await expectFrame(phone, answer, `${where}, the answer to what the phone sent`);
      owed = [];
    };
    let phone = await connect(token);
    for (const [index, step] of fixture.steps.entries()) {
      const where = `${fixture.file}, step ${index + 1}`;
      if (step.hub && handedByTheHub(step.hub, offered)) {
        const id = step.hub.message_id!;
        messages.enqueue({ messageId: id, clientId, deviceId, to: step.hub.to as string, text: step.hub.text });
        nats.nc.publish(nats.names.wake(clientId, deviceId));
        // The stand-in gives no trace context (the hub then sends an empty one): it is left out on both sides.
        const { traceparent: _expected, ...expected } = step.hub;
        const { traceparent: _sent, ...sms } = await phone.next('sms');
        expect({ where, sms }).toEqual({ where, sms: expected });
        handed.add(id);
      } else if (step.hub?.type === 'hello') {
        const hello = await phone.next('hello');
        expect({ where, hello }).toEqual({ where, hello: { ...step.hub, device_id: deviceId } });
      } else if (step.hub && ANSWERS.includes(step.hub.type)) {
        const expected = concrete(step.hub, bound) as Frame;
        await expectFrame(phone, expected, where);
        const paid = owed.findIndex((answer) => JSON.stringify(answer) === JSON.stringify(expected));
        if (paid >= 0) owed.splice(paid, 1);
      } else if (step.connection === 'drop') {
        await settle(where);
        phone.ws.terminate();
        await phone.closed();
      } else if (step.connection === 'reconnect') {
        phone = await connect(token);
      } else if (step.restart) {
        // The agent closes its connection as it stops, and opens one as it starts again.
        await settle(where);
        phone.ws.close(1000);
        await phone.closed();
        phone = await connect(token);
      }
      if (step.hub?.type === 'sms') offered.add(step.hub.message_id!);
      // The agent's frames, as the agent sent them; an ack only of an SMS the hub handed out here.
      const passphrase = fixture.phone?.passphrase;
      const text = step.phone?.event === 'received' ? step.phone.text : undefined;
      const sealed = passphrase !== undefined && text !== undefined ? { passphrase, text } : undefined;
      for (const frame of step.agent) {
        if (frame.type === 'ack' && !handed.has(frame.message_id!)) continue;
        const sent = concrete(frame, bound, sealed) as Frame;
        phone.send(sent);
        if (sent.type === 'report') owed.push({ type: 'report_ack', message_id: sent.message_id, status: sent.status });
        if (sent.type === 'received') owed.push({ type: 'received_ack', received_id: sent.received_id });
      }
    }
    await settle(`${fixture.file}, end`);
    // Each SMS it handed out was acknowledged by the phone: the hub told the message service.
    await eventually(async () => [...handed].every((id) => messages.accepted.includes(id)), 5000, 'the acknowledgements recorded');
  });
});
