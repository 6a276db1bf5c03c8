// Over 300 lines: the client object and its five groups of calls (messages, otp, inbox, opt-outs,
// auth), each a thin method over one request path, as the Python and Go libraries lay them out.
import fs from 'node:fs';
import net from 'node:net';
import {
  OPERATIONS,
  type AuthTestResponse,
  type BatchResponse,
  type CancelResponse,
  type HistoryItem,
  type HistoryParams,
  type HistoryResponse,
  type AddOptOutRequest,
  type InboxResponse,
  type ListInboxParams,
  type ListOptOutsParams,
  type Message,
  type OptOut,
  type OptOutResponse,
  type OptOutsResponse,
  type ReceivedSms,
  type ReceivedSmsResponse,
  type RemoveOptOutResponse,
  type OperationId,
  type OtpStatsParams,
  type OtpStatsResponse,
  type SendBulkPersonalizedRequest,
  type SendBulkRequest,
  type SendOtpRequest,
  type SendOtpResponse,
  type SendRequest,
  type SendResponse,
  type StatsParams,
  type StatsResponse,
  type VerifyOtpRequest,
  type VerifyOtpResponse,
} from './gen/openapi-types';
import { DEFAULT_BACKOFF, type BackoffSettings } from './retry';
import { Transport, type RequestOptions, type WithResponse } from './transport';
import { VERSION } from './version';

export interface ClientOptions {
  /** `sgw_live_…` or `sgw_test_…`. */
  apiKey: string;
  /** `client_…`, the client the key belongs to. */
  clientId: string;
  /** The gateway, such as `https://sms.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** The phone that sends when a call names none (X-Device-ID); without it the gateway chooses. */
  deviceId?: string;
  /** PEM certificate(s) of the authority that signed a self-hosted gateway's certificate. */
  ca?: string | Buffer;
  /** The same, read from a file. */
  caFile?: string;
  /** Milliseconds each attempt may take (default 30,000). */
  timeoutMs?: number;
  /** Retries after the first attempt, for the failures that may be retried (default 2). */
  maxRetries?: number;
  /** Tuning of the delays between retries (tests); the defaults suit the API's limits. */
  backoff?: Partial<BackoffSettings>;
}

/** Whether a URL's hostname is this machine: `localhost`, 127.0.0.0/8 or `[::1]`. */
function isLoopback(hostname: string): boolean {
  if (hostname.toLowerCase() === 'localhost' || hostname === '[::1]') return true;
  return net.isIPv4(hostname) && hostname.startsWith('127.');
}

/** The parameters of `messages.list`: history's filters, and the page size. */
export type ListParams = Omit<HistoryParams, 'page'> & { page?: number };

const call = (id: OperationId, path?: string) => {
  const op = OPERATIONS[id];
  return {
    method: op.method,
    path: path ?? op.path,
    idempotent: op.idempotencyKey,
    device: op.deviceId,
    // Only verify-otp may count twice when repeated (retry.ts).
    policy: id === 'verifyOtp' ? ('once' as const) : ('safe' as const),
  };
};

const pathWithId = (id: OperationId, messageId: string) => OPERATIONS[id].path.replace('{message_id}', encodeURIComponent(messageId));

/** The operation's path with its one parameter (`{id}`, `{phone_number}`) as one escaped segment (`+` is `%2B`). */
const pathWith = (id: OperationId, value: string) => OPERATIONS[id].path.replace(/\{[a-z_]+\}/, encodeURIComponent(value));

/** Sending, following and cancelling messages. */
export class Messages {
  constructor(private readonly t: Transport) {}

  /** Queues one SMS (POST /v1/sms/send); `scheduled_at` sends it later. */
  send(body: SendRequest, options?: RequestOptions): Promise<WithResponse<SendResponse>> {
    return this.t.request({ ...call('sendSms'), body }, options);
  }

  /** One text to at most 100 recipients, as one batch (POST /v1/sms/send-bulk). */
  sendBulk(body: SendBulkRequest, options?: RequestOptions): Promise<WithResponse<BatchResponse>> {
    return this.t.request({ ...call('sendBulkSms'), body }, options);
  }

  /** At most 100 messages, each with its own text, as one batch (POST /v1/sms/send-bulk-personalized). */
  sendPersonalized(body: SendBulkPersonalizedRequest, options?: RequestOptions): Promise<WithResponse<BatchResponse>> {
    return this.t.request({ ...call('sendBulkPersonalizedSms'), body }, options);
  }

  /** One message's status, text, timestamps, metadata and error (GET /v1/sms/status/:id). */
  get(messageId: string, options?: RequestOptions): Promise<WithResponse<Message>> {
    return this.t.request({ ...call('getMessageStatus', pathWithId('getMessageStatus', messageId)) }, options);
  }

  /** Cancels a message still queued (DELETE /v1/sms/:id); 409 ConflictError otherwise. */
  cancel(messageId: string, options?: RequestOptions): Promise<WithResponse<CancelResponse>> {
    return this.t.request({ ...call('cancelMessage', pathWithId('cancelMessage', messageId)) }, options);
  }

  /** One page of the history, newest first (GET /v1/sms/history). */
  history(params: HistoryParams = {}, options?: RequestOptions): Promise<WithResponse<HistoryResponse>> {
    return this.t.request({ ...call('getHistory'), query: { ...params } }, options);
  }

  /**
   * Every message of the history that matches, newest first, fetching pages as it goes
   * (`limit` per page, 100 by default):
   *
   *     for await (const m of client.messages.list({ status: 'failed' })) console.log(m.message_id);
   *
   * Messages sent while it runs do not shift the pages under it: after the first page, the
   * period ends at the newest message that page saw (a `to_date` of the first message's created_at).
   */
  async *list(params: ListParams = {}, options?: RequestOptions): AsyncGenerator<HistoryItem, void, undefined> {
    yield* pages(
      params,
      (query) => this.history(query, options),
      (m) => m.created_at,
    );
  }

  /** Counts and delivery rate over a period, by day (GET /v1/sms/stats). */
  stats(params: StatsParams = {}, options?: RequestOptions): Promise<WithResponse<StatsResponse>> {
    return this.t.request({ ...call('getStats'), query: { ...params } }, options);
  }
}

/** One-time passwords: the gateway makes the code, sends it, and checks it. */
export class Otp {
  constructor(private readonly t: Transport) {}

  /** Sends a code by SMS (POST /v1/sms/send-otp); keep the `otp_id`, the code is never returned. */
  send(body: SendOtpRequest, options?: RequestOptions): Promise<WithResponse<SendOtpResponse>> {
    return this.t.request({ ...call('sendOtp'), body }, options);
  }

  /**
   * Checks a code (POST /v1/sms/verify-otp): `valid: true`, or `valid: false` with
   * `attempts_remaining`. Not retried once the gateway may have counted it.
   */
  verify(body: VerifyOtpRequest, options?: RequestOptions): Promise<WithResponse<VerifyOtpResponse>> {
    return this.t.request({ ...call('verifyOtp'), body }, options);
  }

  /**
   * Codes sent, verified, expired, wrong codes and the conversion rate over a period, by day and by
   * destination country (GET /v1/otp/stats; the filters of `messages.stats`).
   */
  stats(params: OtpStatsParams = {}, options?: RequestOptions): Promise<WithResponse<OtpStatsResponse>> {
    return this.t.request({ ...call('getOtpStats'), query: { ...params } }, options);
  }
}

/** The SMS the client's phones received (see docs/api/receiving.md). */
export class Inbox {
  constructor(private readonly t: Transport) {}

  /** One page of the received SMS, newest first by `received_at` (GET /v1/sms/inbox). */
  page(params: ListInboxParams = {}, options?: RequestOptions): Promise<WithResponse<InboxResponse>> {
    return this.t.request({ ...call('listInbox'), query: { ...params } }, options);
  }

  /**
   * Every received SMS that matches, newest first, fetching pages as it goes (`limit` per page,
   * 100 by default):
   *
   *     for await (const sms of client.inbox.list({ from: '+33698765432' })) console.log(sms.message);
   *
   * SMS received while it runs do not shift the pages under it: after the first page, the period
   * ends at the newest SMS that page saw (a `to_date` of the first SMS's received_at).
   */
  async *list(params: ListInboxParams = {}, options?: RequestOptions): AsyncGenerator<ReceivedSms, void, undefined> {
    yield* pages(
      params,
      (query) => this.page(query, options),
      (sms) => sms.received_at,
    );
  }

  /** One received SMS (GET /v1/sms/inbox/:id); 404 NotFoundError (RECEIVED_NOT_FOUND) otherwise. */
  get(id: string, options?: RequestOptions): Promise<WithResponse<ReceivedSmsResponse>> {
    return this.t.request({ ...call('getReceived', pathWith('getReceived', id)) }, options);
  }
}

/** The suppression list of the key's mode: numbers that receive nothing (see docs/api/opt-outs.md). */
export class OptOuts {
  constructor(private readonly t: Transport) {}

  /** One page of the list, newest first (GET /v1/opt-outs). */
  page(params: ListOptOutsParams = {}, options?: RequestOptions): Promise<WithResponse<OptOutsResponse>> {
    return this.t.request({ ...call('listOptOuts'), query: { ...params } }, options);
  }

  /**
   * Every number on the list, newest first, fetching pages as it goes (`limit` per page, 100 by
   * default). A number added while it runs shifts the later pages by one: an entry may come twice.
   */
  async *list(params: ListOptOutsParams = {}, options?: RequestOptions): AsyncGenerator<OptOut, void, undefined> {
    yield* pages(params, (query) => this.page(query, options));
  }

  /** Puts a number on the list (POST /v1/opt-outs); one already there answers its first entry. */
  add(body: AddOptOutRequest, options?: RequestOptions): Promise<WithResponse<OptOutResponse>> {
    return this.t.request({ ...call('addOptOut'), body }, options);
  }

  /** Takes a number off the list (DELETE /v1/opt-outs/:phone_number); 404 NotFoundError (OPT_OUT_NOT_FOUND) when absent. */
  remove(phoneNumber: string, options?: RequestOptions): Promise<WithResponse<RemoveOptOutResponse>> {
    return this.t.request({ ...call('removeOptOut', pathWith('removeOptOut', phoneNumber)) }, options);
  }
}

/** The credentials check. */
export class Auth {
  constructor(private readonly t: Transport) {}

  /** Checks the key, the client and the device (GET /v1/auth/test); answers the key's mode. */
  test(options?: RequestOptions): Promise<WithResponse<AuthTestResponse>> {
    return this.t.request({ ...call('testAuth') }, options);
  }
}

/**
 * The SMS gateway's API. One client holds the credentials and its connections; make it once and
 * share it.
 *
 *     const sms = new SmsGateway({ apiKey, clientId, baseUrl: 'https://sms.example.com' });
 *     const { message_id } = await sms.messages.send({ to: '+33612345678', message: 'Bonjour' });
 */
export class SmsGateway {
  readonly messages: Messages;
  readonly otp: Otp;
  readonly auth: Auth;
  readonly inbox: Inbox;
  readonly optOuts: OptOuts;
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new TypeError('SmsGateway: apiKey is required');
    if (!options.clientId) throw new TypeError('SmsGateway: clientId is required');
    if (!options.baseUrl) throw new TypeError('SmsGateway: baseUrl is required');
    const baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    if (baseUrl.protocol !== 'https:' && baseUrl.protocol !== 'http:')
      throw new TypeError(`SmsGateway: baseUrl must be an https URL, not ${options.baseUrl}`);
    // The key would travel in clear: plain http only to this machine (a gateway under development).
    if (baseUrl.protocol === 'http:' && !isLoopback(baseUrl.hostname))
      throw new TypeError(
        `SmsGateway: baseUrl must be an https URL (plain http only to this machine: localhost, 127.0.0.1, [::1]), not ${options.baseUrl}`,
      );
    const ca = options.ca ?? (options.caFile ? fs.readFileSync(options.caFile) : undefined);
    this.transport = new Transport({
      baseUrl,
      apiKey: options.apiKey,
      clientId: options.clientId,
      deviceId: options.deviceId,
      ca,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      userAgent: `smsgw-node/${VERSION} node/${process.version}`,
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
    });
    this.messages = new Messages(this.transport);
    this.otp = new Otp(this.transport);
    this.auth = new Auth(this.transport);
    this.inbox = new Inbox(this.transport);
    this.optOuts = new OptOuts(this.transport);
  }

  /** Closes the idle connections (a process exits without it too). */
  close(): void {
    this.transport.close();
  }
}

/**
 * The items of every page `fetch` answers, from `params.page` (1) on, `params.limit` (100) a page,
 * until the last or an empty one. With `pin` (an item's date), the period then ends at the newest
 * item of the first page (`to_date`), so that items arriving meanwhile do not shift the pages.
 */
async function* pages<P extends { page?: number; limit?: number; to_date?: string }, T>(
  params: P,
  fetch: (query: P) => Promise<{ data: T[]; pagination: { current_page: number; total_pages: number } }>,
  pin?: (item: T) => string,
): AsyncGenerator<T, void, undefined> {
  const first = params.page ?? 1;
  const query: P = { ...params, limit: params.limit ?? 100, page: first };
  for (;;) {
    const page = await fetch(query);
    yield* page.data;
    if (page.data.length === 0 || page.pagination.current_page >= page.pagination.total_pages) return;
    if (pin && query.page === first && page.data[0]) query.to_date = pin(page.data[0]);
    query.page = (query.page ?? 1) + 1;
  }
}
