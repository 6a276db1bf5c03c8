import { AppError, createLogger, startGrpcService, type AsyncHandlers, type GrpcService } from '@smsgw/platform';
import { deviceHubProto, type devicehub } from '@smsgw/proto';
import { anyCaller, grpcTlsFor } from './grpc-tls';

/**
 * A device-hub that answers only OwnedDevices, as the message service asks it before queueing:
 * each pair is the client's when `owns` says so (every pair by default, for the tests of
 * something else); any other method fails. Its address is `127.0.0.1:<port>`.
 */
export async function startDeviceOwners(
  owns: (clientId: string, deviceId: string) => boolean = () => true,
): Promise<GrpcService & { address: string }> {
  const handlers: Record<string, unknown> = {
    OwnedDevices: async (req: devicehub.OwnedDevicesRequest__Output) => ({
      devices: req.devices.filter((d) => owns(d.clientId, d.deviceId)),
    }),
  };
  for (const method of Object.keys(deviceHubProto().DeviceHubService.service)) {
    handlers[method] ??= async () => {
      throw new AppError('INTERNAL_ERROR');
    };
  }
  const server = await startGrpcService({
    listen: { host: '127.0.0.1', port: 0 },
    tls: grpcTlsFor('device-hub'),
    callers: anyCaller(deviceHubProto().DeviceHubService.service),
    name: 'smsgw.devicehub.v1.DeviceHubService',
    definition: deviceHubProto().DeviceHubService.service,
    handlers: handlers as unknown as AsyncHandlers<devicehub.DeviceHubServiceHandlers>,
    log: createLogger('test-device-owners', 'silent'),
  });
  server.ready();
  return Object.assign(server, { address: `127.0.0.1:${server.port}` });
}
