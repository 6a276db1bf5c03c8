import { createClient, type GrpcTls, type PromiseClient } from '@smsgw/platform';
import { accountProto, deviceHubProto, messageProto, type account, type devicehub, type message } from '@smsgw/proto';

/** The services the SMPP server calls: binds (account), sends, queries and cancels (message), the fleet (device-hub). */
export interface Upstreams {
  accounts: PromiseClient<account.AccountServiceClient>;
  messages: PromiseClient<message.MessageServiceClient>;
  devices: PromiseClient<devicehub.DeviceHubServiceClient>;
}

/** The gRPC channels, built once at start-up. */
export function createUpstreams(
  addresses: { account: string; message: string; deviceHub: string },
  options: { deadlineMs: number; tls: GrpcTls },
): Upstreams & { close(): void } {
  const up = {
    accounts: createClient<account.AccountServiceClient>(accountProto().AccountService, addresses.account, options),
    messages: createClient<message.MessageServiceClient>(messageProto().MessageService, addresses.message, options),
    devices: createClient<devicehub.DeviceHubServiceClient>(deviceHubProto().DeviceHubService, addresses.deviceHub, options),
  };
  return {
    ...up,
    close() {
      up.accounts.close();
      up.messages.close();
      up.devices.close();
    },
  };
}
