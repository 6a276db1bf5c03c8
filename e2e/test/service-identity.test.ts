import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import {
  AppError,
  createCertificateAuthority,
  createClient,
  createHealthChecker,
  issueServiceCertificate,
  SERVICE_IDENTITIES,
  type GrpcTls,
  type ServiceIdentity,
} from '@smsgw/platform';
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

/** The status a call ended with: OK when it was answered. */
async function codeOf(call: Promise<unknown>): Promise<grpc.status> {
  try {
    await call;
    return grpc.status.OK;
  } catch (err) {
    return (((err as AppError).cause ?? err) as grpc.ServiceError).code;
  }
}

type GrpcServer = 'account' | 'message' | 'device-hub' | 'otp' | 'scheduler' | 'webhook';
type ServiceConstructor = (new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => grpc.Client) & {
  service: grpc.ServiceDefinition;
};

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

  /** The six gRPC services: each one's client constructor and address. */
  const servers = (): Record<GrpcServer, [ServiceConstructor, string]> => ({
    account: [accountProto().AccountService, system.stack.accountAddress],
    message: [messageProto().MessageService, system.stack.messageAddress],
    'device-hub': [deviceHubProto().DeviceHubService, system.stack.deviceHubAddress],
    otp: [otpProto().OtpService, system.stack.otpAddress],
    scheduler: [schedulerProto().SchedulerService, system.stack.schedulerAddress],
    webhook: [webhookProto().WebhookService, system.stack.webhookAddress],
  });

  /** Calls `method` (as the proto names it: `CreateDevice`) of `server` with `tls`, and gives its full path. */
  function callAs(tls: GrpcTls, server: GrpcServer, method: string, request: object = {}): { path: string; call: Promise<unknown> } {
    const [Ctor, address] = servers()[server];
    const client = createClient(Ctor, address, { tls, deadlineMs: 3000 });
    clients.push(client);
    const call = (client as unknown as Record<string, (r: object) => Promise<unknown>>)[method.charAt(0).toLowerCase() + method.slice(1)]!;
    return { path: Ctor.service[method]!.path, call: call(request) };
  }

  beforeAll(async () => {
    system = await TestSystem.shared();
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

  // One restricted method of each service, an identity its allowlist does not name, and one it does.
  it.each<[GrpcServer, string, ServiceIdentity, ServiceIdentity]>([
    ['account', 'CreateClient', 'dashboard', 'admin'],
    ['message', 'SendOtpMessage', 'dashboard', 'otp'],
    ['device-hub', 'CreateDevice', 'gateway', 'dashboard'],
    // The operator tool's alone: the dashboard never simulates a received SMS.
    ['device-hub', 'SimulateReceived', 'dashboard', 'admin'],
    ['otp', 'SendOtp', 'dashboard', 'gateway'],
    ['scheduler', 'CreateTimer', 'gateway', 'message'],
    ['webhook', 'CreateEndpoint', 'gateway', 'dashboard'],
  ])(
    'when the %s service gets %s from %s, then it refuses it with PERMISSION_DENIED naming the caller and the method; from %s it gets past the allowlist',
    async (server, method, intruder, allowed) => {
      const refused = callAs(system.stack.grpcCredentials(intruder), server, method);
      const status = await statusOf(refused.call);

      expect(status.code).toBe(grpc.status.PERMISSION_DENIED);
      expect(status.details).toBe(`${intruder} may not call ${refused.path}`);
      // The same empty request from a listed caller is answered or refused for what it holds, never for who sent it.
      expect(await codeOf(callAs(system.stack.grpcCredentials(allowed), server, method).call)).not.toBe(grpc.status.PERMISSION_DENIED);
    },
  );

  describe('a client certificate of another CA', () => {
    let foreign: GrpcTls;

    beforeAll(() => {
      // An `admin` certificate (the identity most methods allow) from a CA the services never trusted;
      // the client itself trusts the services' CA, so only the services' check of the client can stop it.
      const otherCa = createCertificateAuthority({ commonName: 'not the smsgw services CA' });
      const issued = issueServiceCertificate(otherCa, 'admin');
      foreign = {
        mode: 'mtls',
        ca: fs.readFileSync(system.stack.grpcCredentials('admin').caFile),
        cert: issued.certPem,
        key: issued.keyPem,
      };
    });

    it.each<GrpcServer>(['account', 'message', 'device-hub', 'otp', 'scheduler', 'webhook'])(
      "when it calls the %s service, then the TLS handshake fails (UNAVAILABLE) and the service answers nothing; the CA's own admin certificate gets through",
      async (server) => {
        const [Ctor, address] = servers()[server];
        const method = Object.keys(Ctor.service)[0]!;

        expect(await codeOf(callAs(foreign, server, method).call)).toBe(grpc.status.UNAVAILABLE);
        const health = createHealthChecker(address, { tls: foreign });
        clients.push(health);
        expect(await health.serving('', 2000)).toBe(false);
        const genuine = createHealthChecker(address, { tls: system.stack.grpcCredentials('admin') });
        clients.push(genuine);
        expect(await genuine.serving('', 2000)).toBe(true);
      },
    );
  });

  it('when anything calls one of the six gRPC services in plaintext, then the call never reaches it', async () => {
    const plaintext: GrpcTls = { mode: 'off' };
    for (const [server, [Ctor, address]] of Object.entries(servers()) as [GrpcServer, [ServiceConstructor, string]][]) {
      const health = createHealthChecker(address, { tls: plaintext });
      clients.push(health);
      // Health is the one method every service serves: in plaintext it gets no answer.
      expect(await health.serving('', 2000)).toBe(false);
      const mtls = createHealthChecker(address, { tls: system.stack.grpcCredentials('gateway') });
      clients.push(mtls);
      expect(await mtls.serving('', 2000)).toBe(true);
      expect((await statusOf(callAs(plaintext, server, Object.keys(Ctor.service)[0]!).call)).code).toBe(grpc.status.UNAVAILABLE);
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
