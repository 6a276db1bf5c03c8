import {
  ApiError,
  SmsGatewayError,
  type HistoryParams,
  type ListInboxParams,
  type SendBulkPersonalizedRequest,
  type SendBulkRequest,
  type SendOtpRequest,
  type SendRequest,
  type SmsGateway,
  type VerifyOtpRequest,
} from '@smsgw/client';
import { ToolFailure, type ApiInput, type SmsApi } from './tools';

/** The code of a failure to reach the gateway at all (no answer, so no code of the API's). */
export const GATEWAY_UNREACHABLE = 'GATEWAY_UNREACHABLE';

/** The library's errors as the tools report them: the API's code, message and details. */
function toolFailure(err: unknown): unknown {
  if (err instanceof ApiError) {
    // The library's message is "CODE: message (request id)"; the envelope's message alone reads better.
    const message = err.message.replace(/^[A-Z_]+: /, '').replace(/ \(request [^)]*\)$/, '');
    return new ToolFailure(err.code, message, err.details, err.requestId, err.retryAfter);
  }
  if (err instanceof SmsGatewayError) return new ToolFailure(GATEWAY_UNREACHABLE, err.message);
  return err;
}

async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (err) {
    throw toolFailure(err);
  }
}

/**
 * The tools' operations over the public REST API, with the client library holding the caller's
 * key: the same endpoints, rules, rate limit and error codes as any other API caller, and a send
 * retried by the library keeps its Idempotency-Key, so it is sent once.
 */
export function restApi(client: SmsGateway): SmsApi {
  // The bodies are sent as the tools got them: the gateway, not these types, judges their values.
  const as = <T>(input: ApiInput | Record<string, string>) => input as unknown as T;
  const device = (deviceId: string | undefined) => (deviceId === undefined ? {} : { deviceId });
  return {
    sendSms: (body: ApiInput, deviceId?: string) => call(() => client.messages.send(as<SendRequest>(body), device(deviceId))),
    sendBulk: (body: ApiInput, deviceId?: string) => call(() => client.messages.sendBulk(as<SendBulkRequest>(body), device(deviceId))),
    sendPersonalized: (body: ApiInput, deviceId?: string) =>
      call(() => client.messages.sendPersonalized(as<SendBulkPersonalizedRequest>(body), device(deviceId))),
    sendOtp: (body: ApiInput, deviceId?: string) => call(() => client.otp.send(as<SendOtpRequest>(body), device(deviceId))),
    verifyOtp: (body: ApiInput) => call(() => client.otp.verify(as<VerifyOtpRequest>(body))),
    messageStatus: (messageId: string) => call(() => client.messages.get(messageId)),
    history: (query: Record<string, string>) => call(() => client.messages.history(as<HistoryParams>(query))),
    inbox: (query: Record<string, string>) => call(() => client.inbox.page(as<ListInboxParams>(query))),
  };
}
