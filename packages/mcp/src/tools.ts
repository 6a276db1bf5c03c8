import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { VERSION } from './version';

/** A request body or query of the REST API, snake_case as the API names its fields. */
export type ApiInput = Record<string, unknown>;

/**
 * What the tools call: the REST API's operations, taking and answering the API's own bodies.
 * The stdio server implements it over HTTPS with the client library (`restApi`); the gateway
 * implements it in its process with the routes' own parsers and use cases. Either way the
 * values are checked by the API's rules, not here: a tool's schema only gives the types.
 */
export interface SmsApi {
  sendSms(body: ApiInput, deviceId?: string): Promise<unknown>;
  sendBulk(body: ApiInput, deviceId?: string): Promise<unknown>;
  sendPersonalized(body: ApiInput, deviceId?: string): Promise<unknown>;
  sendOtp(body: ApiInput, deviceId?: string): Promise<unknown>;
  verifyOtp(body: ApiInput): Promise<unknown>;
  messageStatus(messageId: string): Promise<unknown>;
  history(query: Record<string, string>): Promise<unknown>;
  inbox(query: Record<string, string>): Promise<unknown>;
}

/** A failure as the API's error envelope has it: the catalog's `code`, its French `message`, the fields at fault. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
  constructor(
    readonly code: string,
    message: string,
    readonly details: unknown[] = [],
    readonly requestId?: string,
    /** Seconds to wait before trying again (RATE_LIMIT_EXCEEDED, SERVICE_UNAVAILABLE, …), as Retry-After says. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

const phone = z.string().describe('International number with + and the country code, such as "+33612345678".');
const text = z.string().describe('The SMS text: at most 1600 characters; a long text is sent in several parts.');
const deviceId = z
  .string()
  .optional()
  .describe('The phone that sends (device_…). Leave it out to let the gateway choose among the account’s online phones.');
const priority = z.number().int().optional().describe('1 very high to 5 very low; 3 when left out.');
const ttl = z
  .number()
  .int()
  .optional()
  .describe('Seconds the message may wait for a phone (60 to 604800) before it ends failed / EXPIRED.');
const metadata = z.record(z.unknown()).optional().describe('Your own JSON object, given back in the status and history.');

/** The body without the fields left out (the API treats an absent field as its default). */
function defined(input: Record<string, unknown>): ApiInput {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

/** An answer as the model reads it: the API's JSON body. */
function answer(body: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body, null, 2) }] };
}

/** A failure as the model reads it: the API's error envelope, flagged as a tool error. */
export function failure(err: unknown): CallToolResult {
  const error =
    err instanceof ToolFailure
      ? {
          code: err.code,
          message: err.message,
          ...(err.details.length > 0 ? { details: err.details } : {}),
          ...(err.requestId ? { request_id: err.requestId } : {}),
          ...(err.retryAfterSeconds !== undefined ? { retry_after_seconds: err.retryAfterSeconds } : {}),
        }
      : { code: 'INTERNAL_ERROR', message: 'Erreur interne du serveur.' };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ success: false, error }, null, 2) }] };
}

async function run(call: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return answer(await call());
  } catch (err) {
    return failure(err);
  }
}

/** The tools' names, for the documentation and the tests. */
export const TOOL_NAMES = [
  'send_sms',
  'send_sms_batch',
  'send_otp',
  'verify_otp',
  'get_message_status',
  'search_history',
  'read_inbox',
] as const;

/**
 * An MCP server with the SMS gateway's tools, each calling `api` with the caller's own
 * credentials: what a tool may do is what the API key may do, under its rate limit.
 */
export function createSmsMcpServer(api: SmsApi): McpServer {
  const server = new McpServer(
    { name: 'smsgw', version: VERSION },
    {
      instructions:
        'Sends and reads SMS through the account’s own Android phones. Sends are queued: a message is "queued", then "sent" ' +
        'by a phone, then "delivered" (or "failed" with an error code); read its progress with get_message_status. ' +
        'A test key (sgw_test_…) never reaches a phone: a simulated phone answers, and OTP codes are 123456. ' +
        'Failures are the API’s error envelope, {"success": false, "error": {"code", "message", "details"}}; the message is French, the code stable.',
    },
  );

  server.registerTool(
    'send_sms',
    {
      title: 'Send one SMS',
      description:
        'Queues one SMS to one phone number and answers its message_id and status "queued". The SMS leaves when a phone ' +
        'takes it; use get_message_status with the message_id to follow it. scheduled_at sends it later. ' +
        'Errors: INVALID_PHONE_NUMBER, MESSAGE_TOO_LONG, DEVICE_OFFLINE (no phone online), RATE_LIMIT_EXCEEDED, …',
      inputSchema: {
        to: phone,
        message: text,
        device_id: deviceId,
        scheduled_at: z
          .string()
          .optional()
          .describe('ISO 8601 time to send at, in the future and at most 30 days ahead, such as "2026-12-01T09:00:00Z".'),
        priority,
        ttl,
        metadata,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ device_id, ...body }) => run(() => api.sendSms(defined(body), device_id)),
  );

  server.registerTool(
    'send_sms_batch',
    {
      title: 'Send a batch of SMS',
      description:
        'Queues up to 100 SMS in one call, as one batch with a batch_id, and answers each message_id. Either one text to ' +
        'several numbers (recipients and message), or a text of its own for each number (messages, a list of {to, message}). ' +
        'A batch is refused whole when one entry is invalid; details names the entry (recipients[2], messages[0].to).',
      inputSchema: {
        recipients: z.array(z.string()).optional().describe('The numbers that get the same `message` (with + and the country code).'),
        message: z.string().optional().describe('The text every recipient gets (with `recipients`).'),
        messages: z
          .array(z.object({ to: z.string(), message: z.string() }))
          .optional()
          .describe('One {to, message} per SMS, each with its own text (instead of recipients and message).'),
        device_id: deviceId,
        priority,
        ttl,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ device_id, recipients, message, messages, ...rest }) =>
      run(() =>
        messages !== undefined
          ? api.sendPersonalized(defined({ messages, ...rest }), device_id)
          : api.sendBulk(defined({ recipients, message, ...rest }), device_id),
      ),
  );

  server.registerTool(
    'send_otp',
    {
      title: 'Send a one-time password',
      description:
        'Sends a one-time password by SMS to a number and answers its otp_id and expires_at. The gateway makes the code and ' +
        'never returns it: the person reads it on their phone and gives it to you; check it with verify_otp. ' +
        'With a test key the code is always the first `length` digits of 12345678 (123456 by default).',
      inputSchema: {
        to: phone,
        length: z.number().int().optional().describe('Digits in the code, 4 to 8; 6 when left out.'),
        expiry: z.number().int().optional().describe('Seconds the code stays valid, 30 to 3600; 300 when left out.'),
        template: z.string().optional().describe('The SMS text with {{code}} where the code goes.'),
        device_id: deviceId,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ device_id, ...body }) => run(() => api.sendOtp(defined(body), device_id)),
  );

  server.registerTool(
    'verify_otp',
    {
      title: 'Verify a one-time password',
      description:
        'Checks the code a person typed against an otp_id from send_otp. Answers valid true once; valid false with ' +
        'attempts_remaining for a wrong code. A code is used up once verified; too many wrong codes or an expired OTP ' +
        'are errors (OTP_MAX_ATTEMPTS, OTP_EXPIRED). Do not try codes yourself: each try counts.',
      inputSchema: {
        otp_id: z.string().describe('The otp_… id that send_otp answered.'),
        code: z.string().describe('The code the person read in their SMS.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (body) => run(() => api.verifyOtp(defined(body))),
  );

  server.registerTool(
    'get_message_status',
    {
      title: 'Read a message’s status',
      description:
        'Answers one sent message: status (queued, sent, delivered, failed, cancelled), its text, number, phone, ' +
        'timestamps (created_at, sent_at, delivered_at), metadata, and the error code of a failed one. ' +
        'MESSAGE_NOT_FOUND for an id that is not this account’s (or not of this key’s mode, live or test).',
      inputSchema: { message_id: z.string().describe('The msg_… id that send_sms or send_sms_batch answered.') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ message_id }) => run(() => api.messageStatus(message_id)),
  );

  server.registerTool(
    'search_history',
    {
      title: 'Search sent messages',
      description:
        'Lists the account’s sent messages, newest first, one page at a time (pagination.total_pages tells how many). ' +
        'Filters: status, the number sent to, a period (from_date, to_date as YYYY-MM-DD or ISO 8601), the phone, and ' +
        'words of the text (search).',
      inputSchema: {
        status: z.string().optional().describe('queued, sent, delivered, failed or cancelled.'),
        to: z.string().optional().describe('Only the messages to this number.'),
        search: z.string().optional().describe('Only the messages whose text contains this.'),
        from_date: z.string().optional().describe('From this day or time.'),
        to_date: z.string().optional().describe('Up to this day or time.'),
        device_id: z.string().optional().describe('Only the messages of this phone.'),
        page: z.number().int().optional().describe('The page, from 1.'),
        limit: z.number().int().optional().describe('Messages per page, 1 to 100; 50 when left out.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (query) => run(() => api.history(asQuery(query))),
  );

  server.registerTool(
    'read_inbox',
    {
      title: 'Read received SMS',
      description:
        'Lists the SMS the account’s phones received (replies, incoming messages), newest first, one page at a time: ' +
        'each with its id (rcv_…), from, message, device_id and received_at. Filters: the sender, a period, the phone, ' +
        'words of the text. A test key sees only the SMS received in test mode.',
      inputSchema: {
        from: z.string().optional().describe('Only the SMS of this sender: a number with +, a short code or a sender name.'),
        search: z.string().optional().describe('Only the SMS whose text contains this.'),
        from_date: z.string().optional().describe('From this day or time.'),
        to_date: z.string().optional().describe('Up to this day or time.'),
        device_id: z.string().optional().describe('Only the SMS this phone received.'),
        page: z.number().int().optional().describe('The page, from 1.'),
        limit: z.number().int().optional().describe('SMS per page, 1 to 100; 50 when left out.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (query) => run(() => api.inbox(asQuery(query))),
  );

  return server;
}

/** Filters as the query string has them: text, the absent ones left out. */
function asQuery(input: Record<string, string | number | undefined>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(input)) if (value !== undefined) query[name] = String(value);
  return query;
}
