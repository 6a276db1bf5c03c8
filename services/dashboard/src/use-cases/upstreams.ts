import type { PromiseClient } from '@smsgw/platform';
import type { account, devicehub, message, otp, webhook } from '@smsgw/proto';

/** The gRPC clients the dashboard calls, built once in main.ts. */
export interface Upstreams {
  accounts: PromiseClient<account.AccountServiceClient>;
  devices: PromiseClient<devicehub.DeviceHubServiceClient>;
  messages: PromiseClient<message.MessageServiceClient>;
  webhooks: PromiseClient<webhook.WebhookServiceClient>;
  /** The OTP page: statistics, the pumping guard's settings and holds. */
  otps: PromiseClient<otp.OtpServiceClient>;
}

export type Mode = 'live' | 'test';
