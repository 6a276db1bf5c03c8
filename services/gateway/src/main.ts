import './instrumentation';
import http from 'node:http';
import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createLogger, createRedis, runMain, TickPipeline, TrustedProxies, type Logger } from '@smsgw/platform';
import { stopTelemetry } from '@smsgw/platform/telemetry';
import { createUpstreams } from './clients/create-upstreams';
import { ListenBus } from './clients/listen-bus';
import { ListenerSlots } from './clients/listener-slots';
import { watchRedis } from './clients/watch-redis';
import { loadGatewayConfig, type GatewayConfig } from './config';
import { createApp } from './http/app';
import { readiness } from './http/readiness';
import { answerClientError, createHttpsOnlyServer } from './http/server';

export async function start(config: GatewayConfig = loadGatewayConfig(), log: Logger = createLogger('gateway')) {
  const redis = createRedis({
    url: config.redis.url,
    keyPrefix: config.redis.keyPrefix,
    name: 'gateway',
    failFastMs: config.redisCommandTimeoutMs,
  });
  watchRedis(redis, log);
  await redis.connect();
  const pipeline = new TickPipeline(redis);
  const upstreams = createUpstreams(config, pipeline, log);
  // GET /v1/events/listen: NATS is optional, connected in the background, never waited for.
  const listenBus = config.listen.nats ? new ListenBus(config.listen.nats, log) : undefined;
  listenBus?.start();
  if (!listenBus) log.info('NATS_URL is not set: GET /v1/events/listen answers 503');
  const { tls } = config.http;
  const app = createApp({
    upstreams,
    redis,
    pipeline,
    log,
    auth: { ttlMs: config.authCacheTtlMs, negativeTtlMs: config.authNegativeCacheTtlMs, failures: config.authFailures },
    readiness: readiness(redis, upstreams.health),
    rateLimit: config.rateLimit,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    idempotencyBudget: config.idempotencyBudget,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    // Three deadlines: longer than a request may run, short enough that a key left by a dead gateway frees soon.
    idempotencyInProgressSeconds: Math.ceil((3 * config.grpcDeadlineMs) / 1000),
    trustedProxies: tls.mode === 'proxy' ? new TrustedProxies(tls.trustedProxies) : undefined,
    listen: listenBus && {
      bus: listenBus,
      // A slot lives three keepalives: an open stream renews it at each, a dead replica's lapses.
      slots: new ListenerSlots(redis, { max: config.listen.maxPerClient, leaseMs: 3 * config.listen.keepaliveMs }),
      maxPerClient: config.listen.maxPerClient,
      keepaliveMs: config.listen.keepaliveMs,
      keyCheckMs: config.listen.keyCheckMs,
      maxBufferedBytes: config.listen.maxBufferedBytes,
    },
  });
  let server: net.Server;
  if (tls.mode === 'proxy') {
    server = http.createServer(app.callback());
    server.on('clientError', answerClientError);
  } else {
    server = createHttpsOnlyServer(app.callback(), { certFile: tls.certFile, keyFile: tls.keyFile });
  }
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(config.http.port, config.http.host, resolve));
  const port = (server.address() as AddressInfo).port;
  log.info({ port, tls_mode: tls.mode }, 'gateway ready');
  return {
    port,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Let requests in flight finish, then cut idle keep-alive connections.
      setTimeout(() => sockets.forEach((s) => s.destroy()), 1000).unref();
      await closed;
      await listenBus?.stop();
      upstreams.close();
      redis.disconnect();
      await stopTelemetry();
    },
  };
}

if (require.main === module) {
  const log = createLogger('gateway');
  runMain(log, () => start(loadGatewayConfig(), log));
}
