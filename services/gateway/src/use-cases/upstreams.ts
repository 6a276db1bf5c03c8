import type { PromiseClient } from '@smsgw/platform';
import type { account, devicehub, message, otp } from '@smsgw/proto';
import type { DeviceDirectory } from '../clients/device-directory';
import type { KeyUsageStore } from '../clients/key-usage.store';
import type { SendCoalescer } from '../clients/send-coalescer';

/** What the use cases call: the services' gRPC clients (built once in `clients/create-upstreams.ts`), the device directory and the send gatherer. */
export interface Upstreams {
  accounts: PromiseClient<account.AccountServiceClient>;
  devices: PromiseClient<devicehub.DeviceHubServiceClient>;
  messages: PromiseClient<message.MessageServiceClient>;
  otp: PromiseClient<otp.OtpServiceClient>;
  directory: DeviceDirectory;
  /** Single sends, gathered into SendMany calls. */
  sends: Pick<SendCoalescer, 'send'>;
  /** Each key's SMS of the day, and its daily quota (Redis). */
  keyUsage: Pick<KeyUsageStore, 'take' | 'countOnceStored'>;
}
