import { connect, PDU, type Pdu, type Session } from 'smpp';
import { createClient, type PromiseClient } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import type { Stack } from '@smsgw/stack';

// An SMPP client (the `smpp` package, as an ESME uses it) over TLS against the stack's SMPP
// server, and the account calls that make its credentials (as the dashboard does).

export type BindCommand = 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver';

export class SmppClient {
  /** Every deliver_sm received, answered ESME_ROK at once (unless `refuseDelivers`). */
  readonly delivers: Pdu[] = [];
  refuseDelivers = false;
  private closed = false;

  private constructor(private readonly session: Session) {
    session.on('deliver_sm', (pdu: Pdu) => {
      if (this.refuseDelivers) return;
      this.delivers.push(pdu);
      session.send(pdu.response());
    });
    session.on('enquire_link', (pdu: Pdu) => session.send(pdu.response()));
    session.on('unbind', (pdu: Pdu) => session.send(pdu.response()));
    session.on('error', () => undefined);
    session.on('close', () => (this.closed = true));
  }

  static open(stack: Stack): Promise<SmppClient> {
    return new Promise((resolve, reject) => {
      const session = connect({ host: stack.smpp.host, port: stack.smpp.port, tls: true, ca: stack.certs.caPem, servername: 'localhost' });
      session.once('error', reject);
      session.once('secureConnect', () => {
        session.off('error', reject);
        resolve(new SmppClient(session));
      });
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends a request and resolves with its response. */
  request(command: string, fields: Record<string, unknown> = {}): Promise<Pdu> {
    return new Promise((resolve, reject) => {
      const sent = this.session.send(new PDU(command, fields), resolve);
      if (!sent) reject(new Error(`${command}: the connection is closed`));
    });
  }

  bind(command: BindCommand, systemId: string, password: string): Promise<Pdu> {
    return this.request(command, { system_id: systemId, password });
  }

  /** Waits for a deliver_sm that `match` accepts. */
  async waitForDeliver(match: (pdu: Pdu) => boolean, timeoutMs = 30_000): Promise<Pdu> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.delivers.find(match);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no matching deliver_sm within ${timeoutMs} ms; received: ${this.delivers.map(textOf).join(' | ')}`);
  }

  async unbindAndClose(): Promise<void> {
    if (!this.closed) await this.request('unbind').catch(() => undefined);
    this.close();
  }

  close(): void {
    this.session.destroy();
  }
}

/** A deliver_sm's text (short_message, else message_payload). */
export function textOf(pdu: Pdu): string {
  const sm = pdu.short_message as { message?: string } | undefined;
  const payload = pdu.message_payload as { message?: string } | undefined;
  return sm?.message || payload?.message || '';
}

/** The account service as the dashboard calls it for SMPP credentials (here with the operator's identity). */
export function smppCredentials(stack: Stack): PromiseClient<account.AccountServiceClient> {
  return createClient<account.AccountServiceClient>(accountProto().AccountService, stack.accountAddress, {
    deadlineMs: 10_000,
    tls: stack.grpcCredentials('admin'),
  });
}

export async function createCredential(
  accounts: PromiseClient<account.AccountServiceClient>,
  clientId: string,
  bindType: 'SMPP_BIND_TYPE_TRANSMITTER' | 'SMPP_BIND_TYPE_RECEIVER' | 'SMPP_BIND_TYPE_TRANSCEIVER',
  mode: 'KEY_MODE_LIVE' | 'KEY_MODE_TEST' = 'KEY_MODE_LIVE',
): Promise<{ systemId: string; password: string; credentialId: string }> {
  const created = await accounts.createSmppCredential({
    clientId,
    bindType,
    mode,
    label: 'e2e',
    deviceId: '',
    userId: '',
    actorAddress: '',
  });
  return { systemId: created.credential!.systemId, password: created.password, credentialId: created.credential!.credentialId };
}

/** The UDH of part `seq` of `total` (8-bit reference). */
export const concatUdh = (ref: number, total: number, seq: number): Buffer => Buffer.from([0x05, 0x00, 0x03, ref, total, seq]);
