import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, PDU, type Pdu, type Session } from 'smpp';
import { AppError, createLogger } from '@smsgw/platform';
import { eventually, grpcTlsFor } from '@smsgw/testing';
import { SMPP_STATUS } from '../src/domain/smpp-status';
import { startSmppListeners, type SmppListeners } from '../src/smpp/server';
import type { SessionDeps } from '../src/smpp/session';
import type { Binding } from '../src/use-cases/bind.use-case';
import type { Submission } from '../src/use-cases/submit.use-case';

// The SMPP layer of the service (listeners and sessions) with a real SMPP client over TLS and plain
// TCP; the use cases behind it are stand-ins that record what reaches them, so that the window,
// submit_multi and cancel_sm can be driven exactly (the e2e test covers the send path behind them).

const WINDOW = 3;
const DELIVER_WINDOW = 2;
const PASSWORD = 'secret12';

const binding = (type: Binding['type']): Binding => ({
  credentialId: 'smpp_1',
  systemId: 'smpp00000000001',
  clientId: 'client_1',
  mode: 'test',
  type,
  defaultTtlSeconds: 3600,
  smsCountries: [],
});

describe('SMPP sessions', () => {
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-smpp-session-'));
  const tls = grpcTlsFor('smpp');
  let listeners: SmppListeners;
  const submitted: Submission[] = [];
  const cancelled: string[] = [];
  /** While set, submits wait for `release()`: they stay in the window. */
  let held: (() => void)[] | undefined;
  const open: Session[] = [];

  const deps: SessionDeps = {
    bind: async ({ password, type }) => {
      if (password !== PASSWORD) throw new AppError('INVALID_API_KEY');
      return binding(type);
    },
    submit: async (_binding, submission) => {
      if (held) await new Promise<void>((resolve) => held!.push(resolve));
      if (submission.destinationAddr === '33600000000') throw new AppError('INVALID_PHONE_NUMBER');
      submitted.push(submission);
      return `msg_${submitted.length}`;
    },
    query: async () => ({ messageId: 'msg_1', finalDate: '', messageState: 1, errorCode: 0 }),
    cancel: async (_binding, messageId) => {
      if (messageId !== 'msg_waiting') throw new AppError('MESSAGE_NOT_CANCELLABLE');
      cancelled.push(messageId);
    },
    receiverBound: () => undefined,
    receiverGone: () => undefined,
    options: {
      window: WINDOW,
      deliverWindow: DELIVER_WINDOW,
      responseTimeoutMs: 5000,
      idleTimeoutMs: 60_000,
      bindTimeoutMs: 5000,
      concatTimeoutMs: 5000,
      concatMaxMessages: 10,
    },
    log: createLogger('smpp-test', 'silent'),
  };

  beforeAll(async () => {
    fs.writeFileSync(path.join(certDir, 'cert.pem'), tls.cert);
    fs.writeFileSync(path.join(certDir, 'key.pem'), tls.key);
    listeners = await startSmppListeners(
      {
        host: '127.0.0.1',
        tlsPort: 0,
        plainPort: 0,
        certFile: path.join(certDir, 'cert.pem'),
        keyFile: path.join(certDir, 'key.pem'),
        maxSessions: 10,
      },
      deps,
      deps.log,
    );
  });

  afterAll(async () => {
    for (const s of open) s.destroy();
    await listeners?.stop();
    fs.rmSync(certDir, { recursive: true, force: true });
  });

  /** A client session over TLS (the test CA's certificate, whose name is the service's identity) or plain TCP. */
  function client(transport: 'tls' | 'plain'): Promise<Session> {
    return new Promise((resolve, reject) => {
      const session =
        transport === 'tls'
          ? connect({ host: '127.0.0.1', port: listeners.tlsPort, tls: true, ca: tls.ca, checkServerIdentity: () => undefined })
          : connect({ host: '127.0.0.1', port: listeners.plainPort });
      open.push(session);
      session.once('error', reject);
      session.once(transport === 'tls' ? 'secureConnect' : 'connect', () => {
        session.off('error', reject);
        session.on('error', () => undefined);
        resolve(session);
      });
    });
  }

  const request = (session: Session, command: string, fields: Record<string, unknown> = {}): Promise<Pdu> =>
    new Promise((resolve, reject) => {
      if (!session.send(new PDU(command, fields), resolve)) reject(new Error(`${command}: closed`));
    });

  async function bound(transport: 'tls' | 'plain'): Promise<Session> {
    const session = await client(transport);
    expect((await request(session, 'bind_transceiver', { system_id: 'smpp00000000001', password: PASSWORD })).command_status).toBe(
      SMPP_STATUS.ESME_ROK,
    );
    return session;
  }

  it('when a client binds over TLS or over the plain TCP port the operator opened, then both are served; a wrong password gets ESME_RBINDFAIL', async () => {
    expect(listeners.plainPort).toBeGreaterThan(0);
    for (const transport of ['tls', 'plain'] as const) {
      const session = await bound(transport);
      expect((await request(session, 'enquire_link')).command_status).toBe(SMPP_STATUS.ESME_ROK);
    }
    const refused = await client('plain');
    expect((await request(refused, 'bind_transmitter', { system_id: 'smpp00000000001', password: 'wrong123' })).command_status).toBe(
      SMPP_STATUS.ESME_RBINDFAIL,
    );
  });

  it('when more requests than the window are under way, then the one past it gets ESME_RMSGQFUL at once and the others are answered once done', async () => {
    const session = await bound('tls');
    held = [];
    const answers = Array.from({ length: WINDOW }, (_, i) =>
      request(session, 'submit_sm', { dest_addr_ton: 1, destination_addr: '33612345678', short_message: `window ${i}` }),
    );
    const past = await request(session, 'submit_sm', { dest_addr_ton: 1, destination_addr: '33612345678', short_message: 'one too many' });
    expect(past.command_status).toBe(SMPP_STATUS.ESME_RMSGQFUL);
    // enquire_link is no request of the window: answered while it is full.
    expect((await request(session, 'enquire_link')).command_status).toBe(SMPP_STATUS.ESME_ROK);
    const waiting = held;
    held = undefined;
    for (const release of waiting) release();
    expect((await Promise.all(answers)).map((a) => a.command_status)).toEqual(new Array<number>(WINDOW).fill(SMPP_STATUS.ESME_ROK));
    // The window is free again.
    const after = await request(session, 'submit_sm', { dest_addr_ton: 1, destination_addr: '33612345678', short_message: 'after' });
    expect(after.command_status).toBe(SMPP_STATUS.ESME_ROK);
  });

  it('when submit_multi names numbers, a bad number and a distribution list, then each number is one send and the others come back in unsuccess_sme', async () => {
    const session = await bound('plain');
    submitted.length = 0;
    const resp = await request(session, 'submit_multi', {
      source_addr: 'SHOP',
      dest_address: [
        { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '33612345671' },
        { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '33600000000' },
        { dl_name: 'customers' },
        { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '33612345672' },
      ],
      short_message: 'Soldes ce week-end',
      registered_delivery: 1,
    });
    expect(resp.command_status).toBe(SMPP_STATUS.ESME_ROK);
    expect(resp.message_id).toBe('msg_1');
    expect(submitted.map((s) => [s.destinationAddr, s.text, s.registeredDelivery])).toEqual([
      ['33612345671', 'Soldes ce week-end', 1],
      ['33612345672', 'Soldes ce week-end', 1],
    ]);
    expect(resp.unsuccess_sme).toEqual([
      { dest_addr_ton: 1, dest_addr_npi: 0, destination_addr: '33600000000', error_status_code: SMPP_STATUS.ESME_RINVDSTADR },
      { dest_addr_ton: 0, dest_addr_npi: 0, destination_addr: 'customers', error_status_code: SMPP_STATUS.ESME_RINVDSTADR },
    ]);
    const none = await request(session, 'submit_multi', { dest_address: [], short_message: 'x' });
    expect(none.command_status).toBe(SMPP_STATUS.ESME_RINVNUMDESTS);
  });

  it('when cancel_sm names a message still waiting, then it is cancelled; one already sent gets ESME_RCANCELFAIL', async () => {
    const session = await bound('tls');
    cancelled.length = 0;
    const ok = await request(session, 'cancel_sm', { message_id: 'msg_waiting', source_addr: 'SHOP', destination_addr: '33612345678' });
    const late = await request(session, 'cancel_sm', { message_id: 'msg_sent', source_addr: 'SHOP', destination_addr: '33612345678' });
    expect(ok.command_status).toBe(SMPP_STATUS.ESME_ROK);
    expect(late.command_status).toBe(SMPP_STATUS.ESME_RCANCELFAIL);
    expect(cancelled).toEqual(['msg_waiting']);
  });

  it('when a receiver leaves deliver_sm unanswered, then no more than the deliver window are sent to it; each answer frees one', async () => {
    const receiver = await client('plain');
    const received: Pdu[] = [];
    receiver.on('deliver_sm', (pdu: Pdu) => received.push(pdu));
    await request(receiver, 'bind_receiver', { system_id: 'smpp00000000001', password: PASSWORD });
    const session = [...listeners.sessions].find((s) => s.binding?.type === 'receiver' && s.canDeliver)!;
    const sent = Array.from({ length: DELIVER_WINDOW }, (_, i) =>
      session.deliver({ source_addr: '+33698765432', destination_addr: 'SHOP', esm_class: 0, text: `Bonjour ${i}` }),
    );
    expect(session.canDeliver).toBe(false);
    await eventually(async () => received.length === DELIVER_WINDOW);
    receiver.send(received[0]!.response());
    expect(await sent[0]).toBe(true);
    expect(session.canDeliver).toBe(true);
    receiver.send(received[1]!.response({ command_status: SMPP_STATUS.ESME_RSYSERR }));
    // Refused: it waits for another bind.
    expect(await sent[1]).toBe(false);
    expect(received.map((p) => (p.short_message as { message: string }).message)).toEqual(['Bonjour 0', 'Bonjour 1']);
  });

  it('when a receiver submits, then ESME_RINVBNDSTS: a receiver bind only takes deliver_sm', async () => {
    const session = await client('plain');
    await request(session, 'bind_receiver', { system_id: 'smpp00000000001', password: PASSWORD });
    const resp = await request(session, 'submit_sm', { dest_addr_ton: 1, destination_addr: '33612345678', short_message: 'x' });
    expect(resp.command_status).toBe(SMPP_STATUS.ESME_RINVBNDSTS);
  });
});
