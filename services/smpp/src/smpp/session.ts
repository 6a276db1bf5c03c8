// Over 300 lines: one SMPP connection is one state machine (bind, window, the requests of each
// command, long messages held until complete, deliver_sm awaited), best read in one place.
import { PDU, type Pdu, type Session } from 'smpp';
import { AppError, type Logger } from '@smsgw/platform';
import { Reassembly } from '../domain/concatenation';
import { SMPP_STATUS, SmppStatusError, statusOfError, type SmppOperation, type SmppStatusName } from '../domain/smpp-status';
import { parseSmppTime, SmppTimeError } from '../domain/smpp-time';
import { priorityOf } from '../domain/submit-rules';
import type { OutgoingDeliver } from '../domain/deliver';
import type { Binding, BindType } from '../use-cases/bind.use-case';
import type { Submission } from '../use-cases/submit.use-case';
import { codingFor, submittedPart, type SubmitPdu } from './short-message';

export interface SessionOptions {
  window: number;
  deliverWindow: number;
  responseTimeoutMs: number;
  idleTimeoutMs: number;
  bindTimeoutMs: number;
  concatTimeoutMs: number;
  concatMaxMessages: number;
}

/** What a session calls: the use cases, and where receivers register. */
export interface SessionDeps {
  bind(request: { systemId: string; password: string; type: BindType; address: string | undefined }): Promise<Binding>;
  submit(binding: Binding, submission: Submission): Promise<string>;
  query(binding: Binding, messageId: string): Promise<{ messageId: string; finalDate: string; messageState: number; errorCode: number }>;
  cancel(binding: Binding, messageId: string): Promise<void>;
  /** A receiver (or transceiver) bound, or gone. */
  receiverBound(session: SmppSession): void;
  receiverGone(session: SmppSession): void;
  options: SessionOptions;
  log: Logger;
}

const BIND_COMMANDS: Record<string, BindType> = {
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
  bind_transceiver: 'transceiver',
};

/** The SMPP 3.4 requests this server does not serve: answered ESME_RINVCMDID in their own response. */
const UNSUPPORTED = new Set(['replace_sm', 'data_sm', 'alert_notification', 'broadcast_sm', 'query_broadcast_sm', 'cancel_broadcast_sm']);

const SERVER_SYSTEM_ID = 'smsgw';

/** A PDU's string field ('' when absent). */
const stringField = (value: unknown): string => (typeof value === 'string' ? value : '');

/** One part of a long message waiting for the others: its request, answered when the message is complete. */
interface HeldPart {
  pdu: Pdu & SubmitPdu;
  seq: number;
}

/**
 * One SMPP connection: its bind, then the requests of its bind type, each answered once, at
 * most `window` at a time; a receiver gets deliver_sm, at most `deliverWindow` unanswered.
 */
export class SmppSession {
  binding?: Binding;
  private inFlight = 0;
  private delivering = 0;
  private closed = false;
  private lastSeen = Date.now();
  private readonly parts: Reassembly<HeldPart>;
  private readonly timer: NodeJS.Timeout;
  private readonly bindDeadline: NodeJS.Timeout;
  private readonly pendingDelivers = new Set<(ok: boolean) => void>();

  constructor(
    private readonly session: Session,
    private readonly deps: SessionDeps,
  ) {
    const o = deps.options;
    this.parts = new Reassembly({ timeoutMs: o.concatTimeoutMs, maxMessages: o.concatMaxMessages });
    session.on('pdu', (pdu: Pdu) => {
      this.lastSeen = Date.now();
      if (!pdu.isResponse()) void this.onRequest(pdu);
    });
    session.on('error', (err: Error) => {
      deps.log.info({ err: err.message, system_id: this.binding?.systemId }, 'SMPP connection error');
      this.end();
    });
    session.on('close', () => this.end());
    this.bindDeadline = setTimeout(() => {
      if (!this.binding) this.end();
    }, o.bindTimeoutMs).unref();
    this.timer = setInterval(() => this.tick(), Math.min(1000, o.concatTimeoutMs)).unref();
  }

  get address(): string | undefined {
    return this.session.socket.remoteAddress;
  }

  /** Whether this session takes receipts and received SMS: a bound receiver or transceiver. */
  get receives(): boolean {
    return !this.closed && (this.binding?.type === 'receiver' || this.binding?.type === 'transceiver');
  }

  /** Room for one more deliver_sm. */
  get canDeliver(): boolean {
    return this.receives && this.delivering < this.deps.options.deliverWindow;
  }

  /**
   * Sends a deliver_sm; true once the receiver answered ESME_ROK, false when it refused it, did
   * not answer in time or the session ended first (it then waits for another receiver).
   */
  deliver(d: OutgoingDeliver): Promise<boolean> {
    if (!this.receives) return Promise.resolve(false);
    this.delivering++;
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const finish = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timeout);
        this.pendingDelivers.delete(finish);
        this.delivering--;
        resolve(ok);
      };
      const timeout = setTimeout(() => {
        finish(false);
        this.deps.log.warn({ system_id: this.binding?.systemId }, 'deliver_sm unanswered: session closed');
        this.end();
      }, this.deps.options.responseTimeoutMs);
      this.pendingDelivers.add(finish);
      const sent = this.session.send(new PDU('deliver_sm', deliverFields(d)), (resp: Pdu) => finish(resp.command_status === 0));
      if (!sent) finish(false);
    });
  }

  /** Asks the client to unbind (shutdown), then closes after a moment. */
  async unbind(waitMs = 2000): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      const sent = this.session.send(new PDU('unbind', {}), () => {
        clearTimeout(timer);
        resolve();
      });
      if (!sent) {
        clearTimeout(timer);
        resolve();
      }
    });
    this.end();
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.bindDeadline);
    for (const finish of [...this.pendingDelivers]) finish(false);
    this.parts.drain();
    if (this.binding && this.binding.type !== 'transmitter') this.deps.receiverGone(this);
    this.session.destroy();
  }

  private tick(): void {
    const now = Date.now();
    for (const held of this.parts.expire(now)) this.answer(held.pdu, 'ESME_RSUBMITFAIL');
    if (now - this.lastSeen > this.deps.options.idleTimeoutMs) {
      this.deps.log.info({ system_id: this.binding?.systemId }, 'idle SMPP session closed');
      this.end();
    }
  }

  private answer(pdu: Pdu, status: SmppStatusName, fields: Record<string, unknown> = {}): void {
    if (this.closed) return;
    const code = SMPP_STATUS[status];
    this.session.send(pdu.response(code === 0 ? fields : { command_status: code }));
  }

  private async onRequest(pdu: Pdu): Promise<void> {
    const type = BIND_COMMANDS[pdu.command];
    if (type) return this.onBind(pdu, type);
    switch (pdu.command) {
      case 'enquire_link':
        return this.answer(pdu, 'ESME_ROK');
      case 'unbind':
        this.answer(pdu, 'ESME_ROK');
        setTimeout(() => this.end(), 100).unref();
        return;
      case 'unknown':
        // generic_nack, ESME_RINVCMDID.
        this.session.send(pdu.response());
        return;
      case 'submit_sm':
      case 'submit_multi':
      case 'query_sm':
      case 'cancel_sm':
        return this.onOperation(pdu);
      default:
        if (UNSUPPORTED.has(pdu.command)) this.session.send(pdu.response({ command_status: SMPP_STATUS.ESME_RINVCMDID }));
        else if (pdu.command.endsWith('_resp')) return;
        else this.session.send(pdu.response({ command_status: SMPP_STATUS.ESME_RINVBNDSTS }));
    }
  }

  private async onBind(pdu: Pdu, type: BindType): Promise<void> {
    if (this.binding) return this.answer(pdu, 'ESME_RALYBND');
    // Nothing else is read until the bind is answered.
    this.session.pause();
    try {
      this.binding = await this.deps.bind({
        systemId: stringField(pdu.system_id),
        password: stringField(pdu.password),
        type,
        address: this.address,
      });
      clearTimeout(this.bindDeadline);
      this.answer(pdu, 'ESME_ROK', { system_id: SERVER_SYSTEM_ID });
      this.deps.log.info({ system_id: this.binding.systemId, client_id: this.binding.clientId, bind: type }, 'SMPP bound');
      if (type !== 'transmitter') this.deps.receiverBound(this);
    } catch (err) {
      const refused = err instanceof AppError && err.code !== 'SERVICE_UNAVAILABLE' && err.code !== 'INTERNAL_ERROR';
      if (!refused) this.deps.log.error({ err }, 'bind failed');
      this.answer(pdu, refused ? 'ESME_RBINDFAIL' : 'ESME_RSYSERR');
      // A refused bind ends the connection once its answer has left.
      setTimeout(() => this.end(), 200).unref();
    } finally {
      this.session.resume();
    }
  }

  private async onOperation(pdu: Pdu): Promise<void> {
    const binding = this.binding;
    const submitting = pdu.command === 'submit_sm' || pdu.command === 'submit_multi';
    if (!binding || (submitting && binding.type === 'receiver')) return this.answer(pdu, 'ESME_RINVBNDSTS');
    if (this.inFlight >= this.deps.options.window) return this.answer(pdu, 'ESME_RMSGQFUL');
    this.inFlight++;
    const operation: SmppOperation = submitting ? 'submit' : pdu.command === 'query_sm' ? 'query' : 'cancel';
    try {
      if (pdu.command === 'submit_sm') await this.onSubmit(binding, pdu);
      else if (pdu.command === 'submit_multi') await this.onSubmitMulti(binding, pdu);
      else if (pdu.command === 'query_sm') {
        const q = await this.deps.query(binding, stringField(pdu.message_id));
        this.answer(pdu, 'ESME_ROK', {
          message_id: q.messageId,
          final_date: q.finalDate,
          message_state: q.messageState,
          error_code: q.errorCode,
        });
      } else {
        await this.deps.cancel(binding, stringField(pdu.message_id));
        this.answer(pdu, 'ESME_ROK');
      }
    } catch (err) {
      this.answer(pdu, this.statusOf(err, operation));
    } finally {
      this.inFlight--;
    }
  }

  private statusOf(err: unknown, operation: SmppOperation): SmppStatusName {
    if (err instanceof SmppStatusError) return err.status;
    if (err instanceof AppError) return statusOfError(err.code, operation);
    this.deps.log.error({ err, system_id: this.binding?.systemId }, 'SMPP request failed');
    return 'ESME_RSYSERR';
  }

  /** The submission of a submit's fields (ESME_RINVSCHED, ESME_RINVEXPIRY for a time that cannot be read). */
  private submissionOf(pdu: Pdu & SubmitPdu, text: string, destination: { addr: string; ton: number }): Submission {
    const time = (field: 'schedule_delivery_time' | 'validity_period', status: SmppStatusName) => {
      try {
        return parseSmppTime(stringField(pdu[field]));
      } catch (err) {
        if (err instanceof SmppTimeError) throw new SmppStatusError(status);
        throw err;
      }
    };
    return {
      sourceAddr: stringField(pdu.source_addr),
      destinationAddr: destination.addr,
      destinationTon: destination.ton,
      text,
      priority: priorityOf(Number(pdu.priority_flag ?? 0)),
      scheduledAt: time('schedule_delivery_time', 'ESME_RINVSCHED'),
      validUntil: time('validity_period', 'ESME_RINVEXPIRY'),
      registeredDelivery: Number(pdu.registered_delivery ?? 0),
    };
  }

  private async onSubmit(binding: Binding, pdu: Pdu & SubmitPdu): Promise<void> {
    const { text, part } = submittedPart(pdu);
    const destination = { addr: stringField(pdu.destination_addr), ton: Number(pdu.dest_addr_ton ?? 0) };
    if (!part || part.total === 1) {
      const messageId = await this.deps.submit(binding, this.submissionOf(pdu, text, destination));
      return this.answer(pdu, 'ESME_ROK', { message_id: messageId });
    }
    // Parts of one message share their sender, destination and reference.
    const key = `${stringField(pdu.source_addr)}\n${destination.addr}\n${part.ref}`;
    const added = this.parts.add({ key, total: part.total, seq: part.seq }, text, { pdu, seq: part.seq }, Date.now());
    if (added.kind === 'invalid') return this.answer(pdu, 'ESME_RSUBMITFAIL');
    if (added.kind === 'waiting') return;
    // The whole message: sent with the first part's settings; every part is answered with its id.
    const first = added.waiting.find((h) => h.seq === 1)!.pdu;
    try {
      const messageId = await this.deps.submit(binding, this.submissionOf(first, added.text, destination));
      for (const held of added.waiting) this.answer(held.pdu, 'ESME_ROK', { message_id: messageId });
    } catch (err) {
      const status = this.statusOf(err, 'submit');
      for (const held of added.waiting) this.answer(held.pdu, status);
    }
  }

  /** submit_multi: one message per destination (distribution lists are refused); the first accepted one's id answers. */
  private async onSubmitMulti(binding: Binding, pdu: Pdu & SubmitPdu): Promise<void> {
    const { text, part } = submittedPart(pdu);
    if (part && part.total > 1) throw new SmppStatusError('ESME_RSUBMITFAIL', 'submit_multi of a long message: use message_payload');
    const destinations = (pdu.dest_address as { dest_addr_ton?: number; destination_addr?: string; dl_name?: string }[] | undefined) ?? [];
    if (destinations.length === 0 || destinations.length > 100) throw new SmppStatusError('ESME_RINVNUMDESTS');
    let firstId = '';
    const unsuccess: Record<string, unknown>[] = [];
    for (const d of destinations) {
      if (d.dl_name !== undefined) {
        unsuccess.push({ dest_addr_ton: 0, dest_addr_npi: 0, destination_addr: d.dl_name, error_status_code: SMPP_STATUS.ESME_RINVDSTADR });
        continue;
      }
      const destination = { addr: d.destination_addr ?? '', ton: d.dest_addr_ton ?? 0 };
      try {
        const id = await this.deps.submit(binding, this.submissionOf(pdu, text, destination));
        firstId ||= id;
      } catch (err) {
        const status = this.statusOf(err, 'submit');
        if (status === 'ESME_RTHROTTLED' && !firstId && unsuccess.length === 0) throw err;
        unsuccess.push({
          dest_addr_ton: destination.ton,
          dest_addr_npi: 0,
          destination_addr: destination.addr,
          error_status_code: SMPP_STATUS[status],
        });
      }
    }
    if (!firstId) return this.answer(pdu, 'ESME_RSUBMITFAIL');
    this.answer(pdu, 'ESME_ROK', { message_id: firstId, unsuccess_sme: unsuccess });
  }
}

/** A stored deliver_sm as the library's fields: its text in GSM 7-bit or UCS-2, in message_payload past one SMS. */
function deliverFields(d: OutgoingDeliver): Record<string, unknown> {
  const coding = codingFor(d.text);
  const long = Array.from(d.text).length > (coding === 0 ? 160 : 70);
  const fields: Record<string, unknown> = {
    service_type: '',
    source_addr_ton: d.source_addr.startsWith('+') ? 1 : 0,
    source_addr_npi: 1,
    source_addr: d.source_addr.replace(/^\+/, ''),
    dest_addr_ton: d.destination_addr.startsWith('+') ? 1 : 0,
    dest_addr_npi: 1,
    destination_addr: d.destination_addr.replace(/^\+/, ''),
    esm_class: d.esm_class,
    data_coding: coding,
    short_message: long ? '' : { message: d.text },
  };
  if (long) fields.message_payload = { message: d.text };
  if (d.receipted_message_id) fields.receipted_message_id = d.receipted_message_id;
  if (d.message_state !== undefined) fields.message_state = d.message_state;
  return fields;
}
