import { createClient, type TickPipeline } from '@smsgw/platform';
import { accountProto, deviceHubProto, messageProto, otpProto, type account, type devicehub, type message, type otp } from '@smsgw/proto';
import type { GatewayConfig } from './config';
import { DeviceDirectory } from './device-directory';
import { SendCoalescer } from './send-coalescer';
import type { Upstreams } from './use-cases';

/** The gRPC channels of the gateway, built once at start-up. */
export function createUpstreams(config: GatewayConfig, redis: TickPipeline): Upstreams & { close(): void } {
  const options = { deadlineMs: config.grpcDeadlineMs };
  const up = {
    accounts: createClient<account.AccountServiceClient>(accountProto().AccountService, config.accountAddress, options),
    devices: createClient<devicehub.DeviceHubServiceClient>(deviceHubProto().DeviceHubService, config.deviceHubAddress, options),
    messages: createClient<message.MessageServiceClient>(messageProto().MessageService, config.messageAddress, options),
    otp: createClient<otp.OtpServiceClient>(otpProto().OtpService, config.otpAddress, options),
  };
  return {
    ...up,
    directory: new DeviceDirectory(up.devices, redis, config.deviceCacheTtlMs),
    // A send waits for a call at most as long as a call may take.
    sends: new SendCoalescer((request) => up.messages.sendMany(request), { ...config.sendGather, maxWaitMs: config.grpcDeadlineMs }),
    close() {
      up.accounts.close();
      up.devices.close();
      up.messages.close();
      up.otp.close();
    },
  };
}
