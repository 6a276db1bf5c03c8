import { AppError, type KeyScope, type Logger } from '@smsgw/platform';
import { ToolFailure, type ApiInput, type SmsApi } from '@smsgw/mcp';
import { checkSmsDestinations } from '../domain/destination-rules';
import { parseSendOtpRequest, parseVerifyOtpRequest } from '../domain/otp-request';
import {
  parseBulkRequest,
  parsePersonalizedRequest,
  parseSendRequest,
  type BatchRequest,
  type WebhookUrlPolicy,
} from '../domain/send-request';
import { inboxBody } from '../mappers/inbox.mapper';
import { sendOtpBody, verifyOtpBody } from '../mappers/otp.mapper';
import { batchBody, historyBody, sendBody, statusBody } from '../mappers/sms.mapper';
import { history } from '../use-cases/history.use-case';
import { inbox } from '../use-cases/inbox.use-case';
import { messageStatus } from '../use-cases/message-status.use-case';
import { sendOtp, verifyOtp } from '../use-cases/otp.use-case';
import { sendBatch } from '../use-cases/send-batch.use-case';
import { sendSms } from '../use-cases/send-sms.use-case';
import type { Upstreams } from '../use-cases/upstreams';
import type { AuthContext } from './context';
import { requireScopes } from './middleware/scopes';
import { historyQuery, inboxQuery, messageIdParam } from './query';

export interface McpCaller {
  auth: AuthContext;
  /** The request's X-Device-ID, for the sends whose tool call names no device. */
  deviceId: string | undefined;
  requestId: string;
}

/**
 * The MCP tools' operations for one authenticated request to /v1/mcp: what the REST routes do,
 * step for step (the same parsers, destination checks, use cases and mappers), so a tool call is
 * the REST call it stands for, with the caller's key (its scopes, its daily quota). Failures keep
 * the API's codes.
 */
export function mcpOperations(up: Upstreams, caller: McpCaller, webhookPolicy: WebhookUrlPolicy, log: Logger): SmsApi {
  const { auth } = caller;
  const options = (deviceId: string | undefined) => ({ deviceId: deviceId ?? caller.deviceId, idempotency: undefined });

  async function batch(request: BatchRequest, deviceId: string | undefined) {
    return batchBody(await sendBatch(up, auth, request, options(deviceId)));
  }

  /** A tool call as the REST call it stands for: the same scopes (a key limited to others is refused SCOPE_NOT_ALLOWED). */
  async function call<T>(scopes: readonly KeyScope[], operation: () => Promise<T>): Promise<T> {
    try {
      requireScopes(auth, scopes);
      return await operation();
    } catch (err) {
      if (err instanceof AppError) throw new ToolFailure(err.code, err.message, err.details ?? [], caller.requestId, err.retryAfterSeconds);
      log.error({ err, request_id: caller.requestId }, 'MCP tool call failed');
      throw new ToolFailure('INTERNAL_ERROR', `Erreur interne du serveur (requête ${caller.requestId}).`, [], caller.requestId);
    }
  }

  return {
    sendSms: (body: ApiInput, deviceId?: string) =>
      call(['send'], async () => {
        const request = parseSendRequest(body, Date.now(), webhookPolicy);
        checkSmsDestinations(auth.destinations, [{ to: request.to, field: 'to' }]);
        const sent = await sendSms(up, auth, request, options(deviceId));
        return sendBody(request.to, sent.deviceId, sent.receipt, sent.expiresAt, request.sim);
      }),
    sendBulk: (body: ApiInput, deviceId?: string) =>
      call(['send'], async () => {
        const request = parseBulkRequest(body, webhookPolicy);
        checkSmsDestinations(
          auth.destinations,
          request.items.map((item, i) => ({ to: item.to, field: `recipients[${i}]` })),
        );
        return batch(request, deviceId);
      }),
    sendPersonalized: (body: ApiInput, deviceId?: string) =>
      call(['send'], async () => {
        const request = parsePersonalizedRequest(body, webhookPolicy);
        checkSmsDestinations(
          auth.destinations,
          request.items.map((item, i) => ({ to: item.to, field: `messages[${i}].to` })),
        );
        return batch(request, deviceId);
      }),
    sendOtp: (body: ApiInput, deviceId?: string) =>
      call(['otp'], async () => sendOtpBody(await sendOtp(up, auth, parseSendOtpRequest(body), options(deviceId)))),
    verifyOtp: (body: ApiInput) => call(['otp'], async () => verifyOtpBody(await verifyOtp(up, auth, parseVerifyOtpRequest(body)))),
    messageStatus: (messageId: string) =>
      call(['read', 'send'], async () => statusBody(await messageStatus(up, auth, messageIdParam({ params: { message_id: messageId } })))),
    history: (query: Record<string, string>) => call(['read'], async () => historyBody(await history(up, auth, historyQuery({ query })))),
    inbox: (query: Record<string, string>) => call(['inbox'], async () => inboxBody(await inbox(up, auth, inboxQuery({ query })))),
  };
}
