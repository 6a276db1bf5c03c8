import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { hashSecret, type Pool, type PromiseClient, type Redis } from '@smsgw/platform';
import { deviceHubProto, type devicehub } from '@smsgw/proto';
import { ensureCerts, type Certs } from '@smsgw/stack';
import {
  clientOfAllowedCallers,
  createSandbox,
  DATABASE_URL,
  NATS_URL,
  randomHex,
  REDIS_URL,
  startServiceUnderTest,
  type Sandbox,
} from '@smsgw/testing';
import { loadDeviceHubConfig } from '../../src/config';
import { DeviceRepository } from '../../src/data/device.repository';
import { PresenceStore } from '../../src/data/presence.store';
import { createDevice, rotateCredentials } from '../../src/use-cases/device-credentials.use-case';
import { authenticateDevice, batchedTokenFinder } from '../../src/use-cases/pairing.use-case';
import { deviceHubCallers } from '../../src/grpc/device-hub.handlers';
import { start } from '../../src/main';

export { DATABASE_URL, NATS_URL, randomHex, REDIS_URL };

export interface HubReplica {
  agentUrl: string;
  client: PromiseClient<devicehub.DeviceHubServiceClient>;
  stop(): Promise<void>;
}

/**
 * Real device-hub replicas on port 0 sharing one schema, one Redis prefix and one NATS prefix of
 * their own; `stop()` stops them and removes all three.
 */
export class HubCluster {
  readonly replicas: HubReplica[] = [];

  private constructor(
    private readonly sandbox: Sandbox,
    readonly certs: Certs,
  ) {}

  get schema(): string {
    return this.sandbox.schema;
  }

  get redisPrefix(): string {
    return this.sandbox.redisPrefix;
  }

  /** A pool on the hub's schema, for seeding and inspecting rows. */
  get pool(): Pool {
    return this.sandbox.pool;
  }

  /** A Redis connection with the hub's key prefix. */
  get redis(): Redis {
    return this.sandbox.redis!;
  }

  static async start(
    replicas: number,
    env: Record<string, string> = {},
    schema = `t_${randomHex()}`,
    natsPrefix = `t${randomHex(5)}`,
  ): Promise<HubCluster> {
    const certs = await ensureCerts(path.join(os.tmpdir(), 'smsgw-device-hub-test-certs'));
    const sandbox = await createSandbox({ name: 'device-hub', schema, natsPrefix, redis: true, poolMax: 10 });
    const cluster = new HubCluster(sandbox, certs);
    // One after the other: the first one runs the migrations.
    for (let i = 0; i < replicas; i++) await cluster.addReplica(env);
    return cluster;
  }

  private async addReplica(env: Record<string, string>): Promise<void> {
    const app = await startServiceUnderTest({
      name: 'device-hub',
      loadConfig: loadDeviceHubConfig,
      start,
      env: {
        DATABASE_POOL_MAX: '4',
        AGENT_HOST: '127.0.0.1',
        AGENT_PORT: '0',
        TLS_CERT_FILE: this.certs.certFile,
        TLS_KEY_FILE: this.certs.keyFile,
        // No message service in these tests: nothing is dispatched.
        MESSAGE_GRPC_ADDR: '127.0.0.1:9',
        ACCOUNT_GRPC_ADDR: '127.0.0.1:9',
        // The failover sweep only where a test asks for it.
        HUB_FAILOVER_SWEEP_MS: '0',
        TEST_MODE_POLL_MS: '600000',
        ...env,
      },
      on: this.sandbox,
    });
    const client = clientOfAllowedCallers<devicehub.DeviceHubServiceClient>(
      deviceHubProto().DeviceHubService,
      `127.0.0.1:${app.port}`,
      deviceHubCallers,
    );
    this.replicas.push({
      agentUrl: `https://127.0.0.1:${app.app.agentPort}`,
      client,
      async stop() {
        client.close();
        await app.stop();
      },
    });
  }

  get first(): HubReplica {
    return this.replicas[0]!;
  }

  async stop(): Promise<void> {
    for (const replica of this.replicas) await replica.stop();
    await this.sandbox.cleanUp();
  }
}

export interface PairAnswer {
  status: number;
  retryAfter: string | undefined;
  body: Record<string, unknown>;
}

/**
 * POST /v1/agent/pair as a phone would, from `fromAddress` (any 127.x.y.z address is this
 * machine on Linux: each test can be a client address of its own).
 */
export function postPair(hubUrl: string, caPem: string, body: unknown, fromAddress = '127.0.0.1'): Promise<PairAnswer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL('/v1/agent/pair', hubUrl),
      {
        method: 'POST',
        ca: caPem,
        localAddress: fromAddress,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * The hub's device use cases on the cluster's schema and Redis, outside any replica, with a fast
 * password hash (what such tests check is the draws and the storage, not scrypt) and `repo` to
 * stand in for the repository where a test needs to.
 */
export function deviceUseCasesOn(hub: HubCluster, repo: DeviceRepository = new DeviceRepository(hub.pool)) {
  const deps = {
    repo,
    presence: new PresenceStore(hub.redis, 60_000),
    passwords: { hash: async (normalized: string) => hashSecret(normalized) },
    settings: { codeTtlMs: 15 * 60_000, maxDevicesPerClient: 0, publicUrl: () => 'https://hub.example' },
    tokens: batchedTokenFinder(repo),
  };
  return {
    create: (clientId: string, name: string) => createDevice(deps, clientId, name),
    rotateCredentials: (clientId: string, deviceId: string) => rotateCredentials(deps, clientId, deviceId),
    authenticate: (token: string) => authenticateDevice(deps, token),
  };
}
