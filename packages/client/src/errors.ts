import type { ErrorDetail } from './gen/openapi-types';
import type { WebhookEvent } from './webhook-events';

/** Every error this library throws; `instanceof SmsGatewayError` catches them all. */
export class SmsGatewayError extends Error {
  override name = 'SmsGatewayError';
}

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  details?: ErrorDetail[];
  requestId?: string;
  retryAfter?: number;
  headers?: Record<string, string>;
}

/**
 * The gateway answered with an error envelope. `code` is the envelope's stable code (write your
 * handling against it), `requestId` the answer's X-Request-ID (quote it when you report a problem).
 */
export class ApiError extends SmsGatewayError {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again, from Retry-After (429, 503, 409 IDEMPOTENCY_IN_PROGRESS). */
  readonly retryAfter: number | undefined;
  readonly headers: Record<string, string>;

  constructor(init: ApiErrorInit) {
    super(`${init.code}: ${init.message}${init.requestId ? ` (request ${init.requestId})` : ''}`);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.headers = init.headers ?? {};
  }

  /** The error class of an HTTP status. */
  static of(init: ApiErrorInit): ApiError {
    const s = init.status;
    if (s === 401 || s === 403) return new AuthenticationError(init);
    if (s === 404) return new NotFoundError(init);
    if (s === 409 || s === 410) return new ConflictError(init);
    if (s === 429) return new RateLimitError(init);
    if (s === 503) return new ServiceUnavailableError(init);
    if (s >= 500) return new ServerError(init);
    if (s >= 400) return new InvalidRequestError(init);
    return new ApiError(init);
  }
}

/** 401 or 403: a wrong, revoked or expired key, an unknown client, plain HTTP, a live key of an account whose address is not confirmed yet (ACCOUNT_NOT_VERIFIED), a key used outside its scopes (SCOPE_NOT_ALLOWED) or address ranges (IP_NOT_ALLOWED). */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}

/** 400, 405, 413, 422, 431: the request breaks a rule; `details` names each failing field. */
export class InvalidRequestError extends ApiError {
  override name = 'InvalidRequestError';
}

/** 404: an unknown message, OTP or device. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

/** 409 or 410: the resource's state refuses it (not cancellable, OTP already verified, expired, spent). */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}

/** 429: too many requests (or OTPs for a number), a key past its daily quota (QUOTA_EXCEEDED); `retryAfter` says when to try again. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}

/** 503: no phone online, or the gateway could not reach a service; `retryAfter` when it says. */
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
}

/** Another 5xx: a bug of the gateway; quote `requestId`. */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

/** No answer: the connection failed, was reset, or the answer could not be read. `cause` has the socket error. */
export class ConnectionError extends SmsGatewayError {
  override name = 'ConnectionError';
  /** False when the connection never opened: the gateway cannot have seen the request. */
  connected = true;
}

/** No answer within the timeout. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

/** Why a webhook delivery was refused. */
export type WebhookFailure = 'signature' | 'payload' | 'timestamp' | 'duplicate';

/** A webhook delivery that must not be handled: see `reason`, and the subclasses. */
export class WebhookVerificationError extends SmsGatewayError {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
  }
}

/** The signature does not match the raw body under the secret: answer 401, do not handle it. */
export class WebhookSignatureError extends WebhookVerificationError {
  override name = 'WebhookSignatureError';
  constructor(message = 'the X-Webhook-Signature does not match the body') {
    super('signature', message);
  }
}

/** The signed body is not an event (no JSON, no event_id or timestamp). */
export class WebhookPayloadError extends WebhookVerificationError {
  override name = 'WebhookPayloadError';
  constructor(message: string) {
    super('payload', message);
  }
}

/** The delivery was signed too long ago (a captured request replayed later): refuse it. */
export class WebhookTimestampError extends WebhookVerificationError {
  override name = 'WebhookTimestampError';
  constructor(readonly timestamp: string) {
    super('timestamp', `the delivery was signed at ${timestamp}, outside the tolerance`);
  }
}

/**
 * The event was handled already (delivery is at least once): answer 2xx so that it is not
 * retried, and do not handle it again. `event` is the verified event.
 */
export class WebhookDuplicateError extends WebhookVerificationError {
  override name = 'WebhookDuplicateError';
  constructor(readonly event: WebhookEvent) {
    super('duplicate', `event ${event.event_id} was already received`);
  }
}
