import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { createClient, createPool, type Nats, type Pool, type PromiseClient, type Redis } from '@smsgw/platform';
import { messageProto, otpProto, type message, type otp } from '@smsgw/proto';
import {
  clientOfAllowedCallers,
  createSandbox,
  DATABASE_URL,
  NATS_URL,
  REDIS_URL,
  grpcTlsFor,
  startDeviceOwners,
  startServiceProcess,
  startServiceUnderTest,
} from '@smsgw/testing';
import { loadOtpConfig } from '../../src/config';
import { otpCallers } from '../../src/grpc/otp.handlers';
import { start } from '../../src/main';

export { DATABASE_URL, NATS_URL, REDIS_URL };
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export interface OtpSystem {
  otp: PromiseClient<otp.OtpServiceClient>;
  /** The same service as each of its callers (the dashboard's and the operator's methods too). */
  anyCaller: PromiseClient<otp.OtpServiceClient>;
  /** A NATS connection under the sandbox's prefix, to see the public events. */
  nats: Nats;
  messages: PromiseClient<message.MessageServiceClient>;
  /** Pools on the otp and message schemas, to look at what is stored. */
  otpPool: Pool;
  messagePool: Pool;
  redis: Redis;
  hashKey: Buffer;
  /** Starts one more otp replica on the same database and Redis (`env` overrides its settings). */
  addReplica(env?: Record<string, string>): Promise<PromiseClient<otp.OtpServiceClient>>;
  /**
   * A TCP proxy in front of the message service. While `holdAnswers` is on it
   * passes requests through but keeps the answers: the message service does
   * the work and the caller times out (a lost answer).
   */
  proxy: { address: string; holdAnswers: boolean };
  stop(): Promise<void>;
}

/**
 * The real otp service on port 0 (in this process) and the real message
 * service (its built dist, as a process), each with a schema of its own,
 * on the shared Postgres, Redis and NATS under prefixes of their own.
 */
export async function startOtpSystem(overrides: Record<string, string> = {}): Promise<OtpSystem> {
  const sandbox = await createSandbox({ name: 'otp', redis: true, nats: true });
  const hashKey = randomBytes(32);
  // Every device is its client's here: the OTP tests are not about the device.
  const owners = await startDeviceOwners();
  const messageService = await startServiceProcess({
    service: 'message',
    natsPrefix: sandbox.natsPrefix,
    env: { OTP_SEAL_KEY: hex(32), RETENTION_INTERVAL_MS: '0', DEVICE_HUB_GRPC_ADDR: owners.address },
    logFolder: 'otp-tests',
  }).catch(async (err: unknown) => {
    await owners.stop(100);
    await sandbox.cleanUp();
    throw err;
  });
  const messagePort = messageService.port;
  const env = {
    MESSAGE_GRPC_ADDR: messageService.address,
    OTP_HASH_KEY: hashKey.toString('base64'),
    OTP_SEAL_KEY: hex(32),
    // These suites send many codes to one prefix and verify few: the pumping guard is otp-guard.test.ts's subject.
    OTP_GUARD_ENABLED: 'false',
    ...overrides,
  };
  const held: { socket: net.Socket; data: Buffer }[] = [];
  const proxy = {
    address: '',
    get holdAnswers() {
      return holding;
    },
    set holdAnswers(on: boolean) {
      holding = on;
      if (!on) for (const { socket, data } of held.splice(0)) if (!socket.destroyed) socket.write(data);
    },
  };
  let holding = false;
  const sockets = new Set<net.Socket>();
  const proxyServer = net.createServer((downstream) => {
    const upstream = net.connect(messagePort, '127.0.0.1');
    sockets.add(downstream).add(upstream);
    downstream.pipe(upstream);
    upstream.on('data', (data: Buffer) => (holding ? held.push({ socket: downstream, data }) : downstream.write(data)));
    const close = () => {
      downstream.destroy();
      upstream.destroy();
    };
    upstream.on('error', close).on('close', close);
    downstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
  proxy.address = `127.0.0.1:${(proxyServer.address() as net.AddressInfo).port}`;
  const startOtp = (overrides: Record<string, string> = {}) =>
    startServiceUnderTest({ name: 'otp', loadConfig: loadOtpConfig, start, env: { ...env, ...overrides }, on: sandbox });
  const apps = [await startOtp()];
  const clients = [createClient<otp.OtpServiceClient>(otpProto().OtpService, `127.0.0.1:${apps[0]!.port}`, { tls: grpcTlsFor('gateway') })];
  // The tests claim as the hub would and read as any reader of messages may.
  const messages = createClient<message.MessageServiceClient>(messageProto().MessageService, `127.0.0.1:${messagePort}`, {
    tls: grpcTlsFor('device-hub'),
  });
  const messagePool = createPool({ url: DATABASE_URL, schema: messageService.schema, max: 2 });
  const anyCaller = clientOfAllowedCallers<otp.OtpServiceClient>(otpProto().OtpService, `127.0.0.1:${apps[0]!.port}`, otpCallers);
  return {
    otp: clients[0]!,
    anyCaller,
    nats: sandbox.nats!,
    messages,
    otpPool: sandbox.pool,
    messagePool,
    redis: sandbox.redis!,
    hashKey,
    proxy,
    async addReplica(overrides = {}) {
      const app = await startOtp(overrides);
      apps.push(app);
      const client = createClient<otp.OtpServiceClient>(otpProto().OtpService, `127.0.0.1:${app.port}`, { tls: grpcTlsFor('gateway') });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const c of clients) c.close();
      anyCaller.close();
      messages.close();
      for (const app of apps) await app.stop();
      proxy.holdAnswers = false;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxyServer.close(() => resolve()));
      await messagePool.end();
      await messageService.stop();
      await owners.stop(100);
      await sandbox.cleanUp();
    },
  };
}
