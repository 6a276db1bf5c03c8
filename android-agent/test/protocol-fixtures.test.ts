import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { HubConnection } from '../src/connection';
import { sealArrival } from '../src/encrypted-texts';
import { Inbox } from '../src/inbox';
import { Outbox } from '../src/outbox';
import { simOf, type SimulateReceivedFrame } from '../src/protocol';
import { SendLoop } from '../src/send-loop';
import { receivingSim } from '../src/sims';
import FakeWebSocket from './support/fake-ws';
import { framesMismatch, loadFixtures, substitute, type Bindings, type Fixture, type Frame, type Step } from './support/protocol-fixtures';
import { ScriptedPhone } from './support/scripted-phone';

// The agent's connection talks to a FakeWebSocket: the test plays the hub, frame by frame.
jest.mock('ws', () => jest.requireActual('./support/fake-ws'));

/**
 * The protocol fixtures (android-agent/fixtures, the executable part of PROTOCOL.md) run against
 * the Node agent's protocol core: its connection, outbox, inbox and send loop as the agent wires
 * them, on a fake socket and a fake clock, the phone played by the fixture. The Java core runs the
 * same files (ProtocolFixturesTest), and the hub its side of them (device-hub's protocol-fixtures).
 */

const realSleep = (
  (realSetTimeout) => (ms: number) =>
    new Promise<void>((resolve) => realSetTimeout(resolve, ms))
)(setTimeout);
const START = 1_700_000_000_000;
/** How long a step may take to produce its frames, and the quiet time that shows no more come. */
const STEP_TIMEOUT_MS = 3000;
const QUIET_MS = 30;

class CoreUnderTest {
  private constructor(
    private readonly dir: string,
    readonly outbox: Outbox,
    readonly inbox: Inbox,
    readonly phone: ScriptedPhone,
    readonly connection: HubConnection,
    private readonly sendLoop: SendLoop,
  ) {}

  /** Wired as startAgent wires them (src/agent.ts), minus pairing, lock and real socket. */
  static async start(fixture: Fixture, restarted?: { dir: string; handedOver: readonly string[] }): Promise<CoreUnderTest> {
    const dir = restarted?.dir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-fixture-')));
    const logger = pino({ level: 'silent' });
    const outbox = await Outbox.open(dir, { deliveryReports: true });
    const recovery = await outbox.recover();
    const inbox = await Inbox.open(dir);
    const phone = new ScriptedPhone(fixture.phone?.sims ?? [], restarted?.handedOver);
    // eslint-disable-next-line prefer-const -- the loop and the connection call each other
    let connection: HubConnection;
    const sendLoop = new SendLoop({ outbox, driver: phone, logger, onReport: (report) => connection.sendReport(report) });
    const simulateReceived = async ({ from, text, sim }: SimulateReceivedFrame): Promise<void> => {
      const arrival = { from, text, ...simOf(receivingSim(sim, phone.sims)) };
      connection.sendReceived(await inbox.receive(sealArrival(arrival, fixture.phone?.passphrase)));
    };
    connection = new HubConnection({
      target: { wsUrl: 'wss://hub/v1/agent', token: 'dtk_1' },
      outbox,
      inbox,
      driver: phone.name,
      sims: phone.sims,
      onSimulateReceived: (frame) => void simulateReceived(frame),
      logger,
      random: () => 0,
      ...(fixture.phone?.report_resend_ms !== undefined ? { reportResendMs: fixture.phone.report_resend_ms } : {}),
      onAccepted: (sms) => sendLoop.enqueue(sms),
      onUnauthorized: () => Promise.reject(new Error('no 401 in a fixture')),
      onFatal: (error) => {
        throw error;
      },
    });
    for (const sms of recovery.toSend) sendLoop.enqueue(sms);
    sendLoop.resumeDeliveries(outbox.awaitingDelivery());
    connection.start();
    return new CoreUnderTest(dir, outbox, inbox, phone, connection, sendLoop);
  }

  /** Stops as the agent stops (its files stay), then starts again on them, as after a restart. */
  async restart(fixture: Fixture): Promise<CoreUnderTest> {
    await this.halt();
    return CoreUnderTest.start(fixture, { dir: this.dir, handedOver: this.phone.handedOver });
  }

  /** As the agent receives one (src/agent.ts): sealed first when the phone has a passphrase (protocol 8). */
  async receive(from: string, text: string, sim: number | undefined, passphrase: string | undefined): Promise<void> {
    this.connection.sendReceived(await this.inbox.receive(sealArrival({ from, text, ...simOf(sim) }, passphrase)));
  }

  async stop(): Promise<void> {
    await this.halt();
    await fs.rm(this.dir, { recursive: true, force: true });
  }

  private async halt(): Promise<void> {
    await this.sendLoop.stop();
    await this.connection.stop();
    await this.outbox.flush();
    await this.inbox.flush();
  }
}

const sentSoFar = (): Frame[] => FakeWebSocket.sockets.flatMap((socket) => socket.sent as Frame[]);

/** Plays one step's input on the core; a restart gives the core that runs from then on. */
async function play(core: CoreUnderTest, step: Step, bindings: Bindings, fixture: Fixture): Promise<CoreUnderTest> {
  if (step.restart) {
    const restarted = await core.restart(fixture);
    FakeWebSocket.last()!.open();
    return restarted;
  }
  if (step.hub) FakeWebSocket.last()!.hear(substitute(step.hub, bindings));
  else if (step.phone?.event === 'received')
    await core.receive(step.phone.from, step.phone.text, step.phone.sim, fixture.phone?.passphrase);
  else if (step.phone) core.phone.answer(step.phone);
  else if (step.wait_ms !== undefined) await jest.advanceTimersByTimeAsync(step.wait_ms);
  else if (step.connection === 'drop') FakeWebSocket.last()!.drop();
  else if (step.connection === 'reconnect') {
    // The agent waits its backoff (its random draw is 0 here), then opens a new socket.
    const socket = FakeWebSocket.last();
    for (let waited = 0; FakeWebSocket.last() === socket && waited <= 60_000; waited += 100) await jest.advanceTimersByTimeAsync(100);
    if (FakeWebSocket.last() === socket) throw new Error('the agent did not reconnect within 60 s');
    FakeWebSocket.last()!.open();
  } else throw new Error(`a step with nothing to play: ${JSON.stringify(step)}`);
  return core;
}

/** Waits for the step's frames (the disk writes before them are real), then a quiet time for any extra. */
async function framesOf(core: CoreUnderTest, before: number, expected: number): Promise<Frame[]> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (sentSoFar().length - before < expected && Date.now() < deadline) await realSleep(5);
  await realSleep(QUIET_MS);
  await core.outbox.flush();
  await core.inbox.flush();
  return sentSoFar().slice(before);
}

function outboxOf(core: CoreUnderTest, ids: string[]): Record<string, { state: string; unacked_reports: string[] } | null> {
  return Object.fromEntries(
    ids.map((id) => {
      const entry = core.outbox.get(id);
      return [id, entry ? { state: entry.state, unacked_reports: entry.pending_reports.map((report) => report.status) } : null];
    }),
  );
}

describe('the protocol fixtures, run by the Node agent', () => {
  let core: CoreUnderTest | undefined;

  beforeEach(() => {
    FakeWebSocket.sockets.length = 0;
    // Date is faked too: a fixture's times are the core's, not the machine's.
    jest.useFakeTimers({ now: START, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  });

  afterEach(async () => {
    await core?.stop();
    core = undefined;
    jest.useRealTimers();
  });

  it.each(loadFixtures('node').map((fixture) => [fixture.file, fixture] as const))('%s', async (_file, fixture) => {
    core = await CoreUnderTest.start(fixture);
    FakeWebSocket.last()!.open();
    const bindings: Bindings = { driver: 'simulator', values: new Map() };
    for (const [index, step] of fixture.steps.entries()) {
      const where = `${fixture.file}, step ${index + 1}`;
      const before = sentSoFar().length;
      const passphrase = fixture.phone?.passphrase;
      bindings.sealed = passphrase !== undefined && step.phone?.event === 'received' ? { passphrase, text: step.phone.text } : undefined;
      core = await play(core, step, bindings, fixture);
      const frames = await framesOf(core, before, step.agent.length);
      const mismatch = framesMismatch(step.agent, frames, bindings);
      if (mismatch) throw new Error(`${where}: ${mismatch}`);
      if (step.handed_over) expect({ where, handed_over: core.phone.handedOver }).toEqual({ where, handed_over: step.handed_over });
      if (step.outbox) expect({ where, outbox: outboxOf(core, Object.keys(step.outbox)) }).toEqual({ where, outbox: step.outbox });
      if (step.inbox !== undefined) expect({ where, inbox: core.inbox.pending().length }).toEqual({ where, inbox: step.inbox });
    }
  });
});
