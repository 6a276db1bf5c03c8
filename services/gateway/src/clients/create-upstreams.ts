import { createClient, createHealthChecker, type HealthChecker, type Logger, type TickPipeline } from '@smsgw/platform';
import { accountProto, deviceHubProto, messageProto, otpProto, type account, type devicehub, type message, type otp } from '@smsgw/proto';
import type { GatewayConfig } from '../config';
import { DeviceDirectory } from './device-directory';
import { KeyUsageStore } from './key-usage.store';
import { quotaClock } from './offset-clock';
import { SendCoalescer } from './send-coalescer';
import type { Upstreams } from '../use-cases/upstreams';

/** The gRPC channels of the gateway, built once at start-up. */
export function createUpstreams(
  config: GatewayConfig,
  redis: TickPipeline,
  log?: Pick<Logger, 'warn'>,
): Upstreams & { health: Record<string, HealthChecker>; close(): void } {
  const options = { deadlineMs: config.grpcDeadlineMs, tls: config.grpcTls };
  const up = {
    accounts: createClient<account.AccountServiceClient>(accountProto().AccountService, config.accountAddress, options),
    devices: createClient<devicehub.DeviceHubServiceClient>(deviceHubProto().DeviceHubService, config.deviceHubAddress, options),
    messages: createClient<message.MessageServiceClient>(messageProto().MessageService, config.messageAddress, options),
    otp: createClient<otp.OtpServiceClient>(otpProto().OtpService, config.otpAddress, options),
  };
  // Health checks on channels of their own, for readiness.
  const health = {
    account: createHealthChecker(config.accountAddress, { tls: config.grpcTls, serverIdentity: 'account' }),
    message: createHealthChecker(config.messageAddress, { tls: config.grpcTls, serverIdentity: 'message' }),
    'device-hub': createHealthChecker(config.deviceHubAddress, { tls: config.grpcTls, serverIdentity: 'device-hub' }),
    otp: createHealthChecker(config.otpAddress, { tls: config.grpcTls, serverIdentity: 'otp' }),
  };
  return {
    ...up,
    health,
    directory: new DeviceDirectory(up.devices, redis, config.deviceCacheTtlMs),
    // A send takes at most one gRPC deadline in all, its wait for a call included.
    sends: new SendCoalescer((request, deadlineMs) => up.messages.sendMany(request, { deadlineMs }), {
      ...config.sendGather,
      deadlineMs: config.grpcDeadlineMs,
      minCallMs: Math.min(100, Math.floor(config.grpcDeadlineMs / 10)),
    }),
    keyUsage: new KeyUsageStore(redis, quotaClock(config.clockOffsetFile), log),
    close() {
      up.accounts.close();
      up.devices.close();
      up.messages.close();
      up.otp.close();
      Object.values(health).forEach((h) => h.close());
    },
  };
}
