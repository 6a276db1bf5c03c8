export { SmsGateway, Messages, Otp, Auth, Inbox, OptOuts, type ClientOptions, type ListParams } from './client';
export type { RequestOptions, ResponseInfo, WithResponse } from './transport';
export {
  SmsGatewayError,
  ApiError,
  AuthenticationError,
  InvalidRequestError,
  NotFoundError,
  ConflictError,
  RateLimitError,
  ServiceUnavailableError,
  ServerError,
  ConnectionError,
  TimeoutError,
  WebhookVerificationError,
  WebhookSignatureError,
  WebhookPayloadError,
  WebhookTimestampError,
  WebhookDuplicateError,
  type WebhookFailure,
} from './errors';
export { verifyWebhook, verifyWebhookBatch, signWebhook, MemorySeenEvents, type SeenEvents, type VerifyWebhookOptions } from './webhooks';
export type {
  WebhookEvent,
  MessageEventData,
  DeviceEventData,
  ReceivedEventData,
  FraudSuspectedEventData,
  SimResultCounts,
  SimDegradedEventData,
  SimRecoveredEventData,
  BatteryLowEventData,
  OfflineEventData,
} from './webhook-events';
export type { BackoffSettings } from './retry';
export { VERSION } from './version';
export * from './gen/openapi-types';
export { CsvRecordReader, readCsvRecords, type CsvLimits, type CsvReaderOptions, type CsvRecord } from './csv';
// End-to-end encrypted texts (docs/api/encryption.md): seal before `encrypted: true`, open what comes back encrypted.
export { seal, open as openEnvelope, isEnvelope, DecryptionFailedError } from '@smsgw/e2e-envelope';
