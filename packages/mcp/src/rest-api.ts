import { ApiError, SmsGatewayError, type SmsGateway } from '@smsgw/client';
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
  const device = (deviceId: string | undefined) => (deviceId === undefined ? {} : { deviceId });
  return {
    sendSms: (body: ApiInput, deviceId?: string) => call(() => client.messages.send(body as never, device(deviceId))),
    sendBulk: (body: ApiInput, deviceId?: string) => call(() => client.messages.sendBulk(body as never, device(deviceId))),
    sendPersonalized: (body: ApiInput, deviceId?: string) => call(() => client.messages.sendPersonalized(body as never, device(deviceId))),
    sendOtp: (body: ApiInput, deviceId?: string) => call(() => client.otp.send(body as never, device(deviceId))),
    verifyOtp: (body: ApiInput) => call(() => client.otp.verify(body as never)),
    messageStatus: (messageId: string) => call(() => client.messages.get(messageId)),
    history: (query: Record<string, string>) => call(() => client.messages.history(query as never)),
    inbox: (query: Record<string, string>) => call(() => client.inbox.page(query as never)),
  };
}
