import {
  AppError,
  createClient,
  createLogger,
  startGrpcService,
  type AsyncHandlers,
  type GrpcService,
  type Pool,
  type PromiseClient,
} from '@smsgw/platform';
import { accountProto, webhookProto, type account, type webhook } from '@smsgw/proto';
import { freePort } from '@smsgw/stack';
import { anyCaller, grpcTlsFor, startServiceProcess, startServiceUnderTest, type Sandbox } from '@smsgw/testing';
import { loadWebhookConfig } from '../../src/config';
import { start } from '../../src/main';

/** What the stand-in account service knows of its one client. */
export interface KnownClient {
  clientId: string;
  email?: string;
  name?: string;
  /** The client's signing secret, for the events of messages with their own webhook URL. */
  signingSecret?: string;
  /** Whether the owner confirmed the account's address (endpoints wait for it); true unless said. */
  accountVerified?: boolean;
}

/** An account service that knows one client; any other method fails. */
export function accountKnowing(known: KnownClient): AsyncHandlers<account.AccountServiceHandlers> {
  const handlers: Record<string, unknown> = {
    GetClient: async (req: account.GetClientRequest) => {
      if (req.clientId !== known.clientId) throw new AppError('INVALID_CLIENT_ID');
      return {
        clientId: known.clientId,
        email: known.email ?? 'owner@example.com',
        name: known.name ?? 'Owner',
        createdAt: new Date().toISOString(),
        // Alerts go only to an address its owner confirmed.
        emailVerified: true,
        accountVerified: known.accountVerified ?? true,
      };
    },
    GetSigningSecret: async () => ({ secret: known.signingSecret ?? 'whsec_test' }),
  };
  for (const method of Object.keys(accountProto().AccountService.service)) {
    handlers[method] ??= async () => {
      throw new AppError('INTERNAL_ERROR');
    };
  }
  return handlers as unknown as AsyncHandlers<account.AccountServiceHandlers>;
}

export interface RunningWebhookService {
  client: PromiseClient<webhook.WebhookServiceClient>;
  /** The stand-in account gRPC server. */
  accounts: GrpcService;
  natsPrefix: string;
  /** A pool on the service's schema. */
  pool: Pool;
  schema: string;
  sandbox: Sandbox;
  stop(): Promise<void>;
}

/**
 * The real webhook service on port 0 with a schema and NATS prefix of its
 * own (or `on`'s: another replica), its account service a stand-in that knows `known`; `env`
 * overrides its settings (no scheduler unless `SCHEDULER_GRPC_ADDR` names one).
 */
export async function startWebhookService(
  known: KnownClient,
  env: Record<string, string> = {},
  on?: Sandbox,
): Promise<RunningWebhookService> {
  const accounts = await startGrpcService({
    listen: { host: '127.0.0.1', port: 0 },
    tls: grpcTlsFor('account'),
    callers: anyCaller(accountProto().AccountService.service),
    name: 'smsgw.account.v1.AccountService',
    definition: accountProto().AccountService.service,
    handlers: accountKnowing(known),
    log: createLogger('webhook-test-account', 'silent'),
  });
  accounts.ready();
  const svc = await startServiceUnderTest({
    name: 'webhook',
    loadConfig: loadWebhookConfig,
    start,
    nats: true,
    ...(on ? { on } : {}),
    env: {
      ACCOUNT_GRPC_ADDR: `127.0.0.1:${accounts.port}`,
      SCHEDULER_GRPC_ADDR: '127.0.0.1:9',
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      ...env,
    },
  }).catch(async (err: unknown) => {
    await accounts.stop(100);
    throw err;
  });
  const client = createClient(webhookProto().WebhookService, `127.0.0.1:${svc.port}`, { deadlineMs: 5000, tls: grpcTlsFor('dashboard') });
  return {
    client,
    accounts,
    natsPrefix: svc.natsPrefix,
    pool: svc.pool,
    schema: svc.schema,
    sandbox: svc.sandbox,
    async stop() {
      client.close();
      await svc.stop();
      await accounts.stop(100);
    },
  };
}

/**
 * The webhook service as `startWebhookService` starts it, with a real scheduler that fires its
 * retry timers on the service's NATS prefix, as in production; `stop` stops both.
 */
export async function startWebhookWithScheduler(known: KnownClient, env: Record<string, string> = {}): Promise<RunningWebhookService> {
  const schedulerPort = await freePort();
  const service = await startWebhookService(known, { SCHEDULER_GRPC_ADDR: `127.0.0.1:${schedulerPort}`, ...env });
  const scheduler = await startServiceProcess({
    service: 'scheduler',
    natsPrefix: service.natsPrefix,
    port: schedulerPort,
    env: { PERIODIC_JOBS: 'false' },
    logFolder: 'webhook-tests',
  }).catch(async (err: unknown) => {
    await service.stop();
    throw err;
  });
  return {
    ...service,
    async stop() {
      await scheduler.stop();
      await service.stop();
    },
  };
}
