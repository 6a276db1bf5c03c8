import { randomBytes } from 'node:crypto';
import { createClient, createLogger, startGrpcService, type AsyncHandlers, type GrpcService, type PromiseClient } from '@smsgw/platform';
import { messageProto, otpProto, type message, type otp } from '@smsgw/proto';
import { anyCaller, grpcTlsFor, startServiceUnderTest } from '@smsgw/testing';
import { loadOtpConfig } from '../src/config';
import { start } from '../src/main';

const CLIENT = 'client_1700000000000000027';

/**
 * The otp service (real, on Postgres and Redis) in front of a stand-in
 * message service that records the SendOtpMessage calls it gets.
 */
describe('the SIM of an OTP, passed to the message service', () => {
  const received: message.SendOtpMessageRequest__Output[] = [];
  let messages: GrpcService;
  let service: Awaited<ReturnType<typeof startServiceUnderTest>>;
  let client: PromiseClient<otp.OtpServiceClient>;
  let n = 0;

  beforeAll(async () => {
    const definition = messageProto().MessageService.service;
    const handlers: Record<string, unknown> = {
      SendOtpMessage: async (req: message.SendOtpMessageRequest__Output) => {
        received.push(req);
        return {};
      },
    };
    messages = await startGrpcService({
      listen: { host: '127.0.0.1', port: 0 },
      tls: grpcTlsFor('message'),
      callers: anyCaller(definition),
      name: 'smsgw.message.v1.MessageService',
      definition,
      handlers: handlers as unknown as AsyncHandlers<message.MessageServiceHandlers>,
      log: createLogger('otp-test-message', 'silent'),
    });
    messages.ready();
    service = await startServiceUnderTest({
      name: 'otp',
      loadConfig: loadOtpConfig,
      start,
      redis: true,
      env: {
        MESSAGE_GRPC_ADDR: `127.0.0.1:${messages.port}`,
        OTP_HASH_KEY: randomBytes(32).toString('base64'),
        OTP_SEAL_KEY: randomBytes(32).toString('hex'),
      },
    });
    client = createClient<otp.OtpServiceClient>(otpProto().OtpService, `127.0.0.1:${service.port}`, { tls: grpcTlsFor('gateway') });
  });

  afterAll(async () => {
    client?.close();
    await service?.stop();
    await messages?.stop();
  });

  const send = (over: Partial<otp.SendOtpRequest> = {}) =>
    client.sendOtp({
      clientId: CLIENT,
      mode: 'MODE_LIVE',
      deviceId: 'device_01JOTPSIMDEVICE000000000',
      to: `+336${String(30_000_000 + n++).slice(-8)}`,
      length: 0,
      expirySeconds: 0,
      template: '',
      metadataJson: '',
      ...over,
    });

  it('when send-otp asks for SIM 2, then its SMS is queued with sim 2', async () => {
    const sent = await send({ sim: 2, pinned: true });
    expect(received.at(-1)).toMatchObject({ messageId: sent.messageId, sim: 2, pinned: true });
  });

  it("when send-otp names no SIM, then its SMS is queued with sim 0 (the client's SIM rule)", async () => {
    const sent = await send();
    expect(received.at(-1)).toMatchObject({ messageId: sent.messageId, sim: 0 });
  });
});
