import * as grpc from '@grpc/grpc-js';
import { AppError, createClient, createHealthChecker, SERVICE_IDENTITIES, type GrpcTls, type ServiceIdentity } from '@smsgw/platform';
import {
  accountProto,
  deviceHubProto,
  messageProto,
  otpProto,
  schedulerProto,
  webhookProto,
  type account,
  type message,
} from '@smsgw/proto';
import { TestSystem } from './support/system';

/** The gRPC status a call ended with: the server's, kept as the AppError's cause. */
async function statusOf(call: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await call;
  } catch (err) {
    return ((err as AppError).cause ?? err) as grpc.ServiceError;
  }
  throw new Error('expected the call to be refused');
}

describe('service identity: mutual TLS and the callers of each RPC', () => {
  let system: TestSystem;
  const clients: { close(): void }[] = [];
  const messagesAs = (identity: ServiceIdentity) => {
    const client = createClient<message.MessageServiceClient>(messageProto().MessageService, system.stack.messageAddress, {
      tls: system.stack.grpcCredentials(identity),
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    system = await TestSystem.start();
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await system?.stop();
  });

  it('when the gateway claims or accepts a message, then the message service refuses it with PERMISSION_DENIED naming the caller', async () => {
    const gateway = messagesAs('gateway');

    const claim = await statusOf(gateway.claimNext({ deviceId: 'dev_1', leaseMs: 1000 }));
    const accept = await statusOf(gateway.acceptMessage({ deviceId: 'dev_1', messageId: 'msg_1', at: new Date().toISOString() }));

    for (const status of [claim, accept]) {
      expect(status.code).toBe(grpc.status.PERMISSION_DENIED);
      expect(status.details).toContain('gateway');
    }
    expect(claim.details).toContain('/smsgw.message.v1.MessageService/ClaimNext');
  });

  it('when the hub claims, then its call gets through', async () => {
    await expect(messagesAs('device-hub').claimNext({ deviceId: 'dev_unknown', leaseMs: 1000 })).resolves.toBeDefined();
  });

  it('when any identity but the scheduler asks for a retention run, then it is refused', async () => {
    for (const identity of SERVICE_IDENTITIES.filter((i) => i !== 'scheduler')) {
      expect((await statusOf(messagesAs(identity).runRetention({ retentionDays: 3650 }))).code).toBe(grpc.status.PERMISSION_DENIED);
    }
    await expect(messagesAs('scheduler').runRetention({ retentionDays: 3650 })).resolves.toBeDefined();
  });

  it('when the gateway asks the account service for a new API key, then it is refused', async () => {
    const gateway = createClient<account.AccountServiceClient>(accountProto().AccountService, system.stack.accountAddress, {
      tls: system.stack.grpcCredentials('gateway'),
    });
    clients.push(gateway);
    const { client_id } = await system.createClient();

    const status = await statusOf(gateway.createApiKey({ clientId: client_id, mode: 'KEY_MODE_LIVE' }));

    expect(status.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(status.details).toContain('gateway');
  });

  it('when anything calls one of the six gRPC services in plaintext, then the call never reaches it', async () => {
    const plaintext: GrpcTls = { mode: 'off' };
    const services = [
      [accountProto().AccountService, system.stack.accountAddress],
      [messageProto().MessageService, system.stack.messageAddress],
      [deviceHubProto().DeviceHubService, system.stack.deviceHubAddress],
      [otpProto().OtpService, system.stack.otpAddress],
      [schedulerProto().SchedulerService, system.stack.schedulerAddress],
      [webhookProto().WebhookService, system.stack.webhookAddress],
    ] as const;
    for (const [Ctor, address] of services) {
      const health = createHealthChecker(address, { tls: plaintext });
      clients.push(health);
      // Health is the one method every service serves: in plaintext it gets no answer.
      expect(await health.serving('', 2000)).toBe(false);
      const mtls = createHealthChecker(address, { tls: system.stack.grpcCredentials('gateway') });
      clients.push(mtls);
      expect(await mtls.serving('', 2000)).toBe(true);
      const client = createClient(Ctor as unknown as grpc.ServiceClientConstructor, address, { tls: plaintext, deadlineMs: 2000 });
      clients.push(client);
      const first = Object.keys((Ctor as unknown as grpc.ServiceClientConstructor).service)[0]!;
      const method = (client as unknown as Record<string, (r: object) => Promise<unknown>>)[
        first.charAt(0).toLowerCase() + first.slice(1)
      ]!;
      expect((await statusOf(method({}))).code).toBe(grpc.status.UNAVAILABLE);
    }
  });

  it('when a probe asks a plaintext health port, then it answers SERVING', async () => {
    for (const address of Object.values(system.stack.healthAddresses)) {
      const probe = createHealthChecker(address);
      clients.push(probe);
      expect(await probe.serving('', 2000)).toBe(true);
    }
  });
});
