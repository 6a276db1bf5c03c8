import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import loaderOptions from './loader-options.json';
import type { ProtoGrpcType as AccountProto } from './gen/account';
import type { ProtoGrpcType as MessageProto } from './gen/message';
import type { ProtoGrpcType as DeviceHubProto } from './gen/devicehub';
import type { ProtoGrpcType as OtpProto } from './gen/otp';
import type { ProtoGrpcType as SchedulerProto } from './gen/scheduler';
import type { ProtoGrpcType as WebhookProto } from './gen/webhook';

/** Where the .proto files live; images that move the tree set SMSGW_PROTO_ROOT. */
export const PROTO_ROOT = process.env.SMSGW_PROTO_ROOT ?? path.resolve(__dirname, '../../../proto');

const TYPE_NAMES: Record<string, typeof String | typeof Number> = { String, Number };

/**
 * The one set of loader options. The type generator reads the same JSON file,
 * where `longs` and `enums` name the JavaScript type that the loader wants as
 * a constructor.
 */
export const LOADER_OPTIONS: protoLoader.Options = Object.freeze({
  ...loaderOptions,
  longs: TYPE_NAMES[loaderOptions.longs],
  enums: TYPE_NAMES[loaderOptions.enums],
  includeDirs: [PROTO_ROOT],
});

const cache = new Map<string, grpc.GrpcObject>();

function load<T>(file: string): T {
  let loaded = cache.get(file);
  if (!loaded) {
    loaded = grpc.loadPackageDefinition(protoLoader.loadSync(file, LOADER_OPTIONS));
    cache.set(file, loaded);
  }
  return loaded as unknown as T;
}

export const accountProto = (): AccountProto['smsgw']['account']['v1'] =>
  load<AccountProto>('smsgw/account/v1/account.proto').smsgw.account.v1;
export const messageProto = (): MessageProto['smsgw']['message']['v1'] =>
  load<MessageProto>('smsgw/message/v1/message.proto').smsgw.message.v1;
export const deviceHubProto = (): DeviceHubProto['smsgw']['devicehub']['v1'] =>
  load<DeviceHubProto>('smsgw/devicehub/v1/devicehub.proto').smsgw.devicehub.v1;
export const otpProto = (): OtpProto['smsgw']['otp']['v1'] => load<OtpProto>('smsgw/otp/v1/otp.proto').smsgw.otp.v1;
export const schedulerProto = (): SchedulerProto['smsgw']['scheduler']['v1'] =>
  load<SchedulerProto>('smsgw/scheduler/v1/scheduler.proto').smsgw.scheduler.v1;
export const webhookProto = (): WebhookProto['smsgw']['webhook']['v1'] =>
  load<WebhookProto>('smsgw/webhook/v1/webhook.proto').smsgw.webhook.v1;

export * as account from './gen/smsgw/account/v1';
export * as otp from './gen/smsgw/otp/v1';
export * as scheduler from './gen/smsgw/scheduler/v1';
export * as webhook from './gen/smsgw/webhook/v1';
export * as message from './gen/smsgw/message/v1';
export * as devicehub from './gen/smsgw/devicehub/v1';
