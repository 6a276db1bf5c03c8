import './instrumentation';
import http from 'node:http';
import path from 'node:path';
import {
  connectNats,
  createLogger,
  createPool,
  createRedis,
  ensureStream,
  FixedWindowCounter,
  migrate,
  redisAnswers,
  runMain,
  SlidingWindowLimiter,
  streamConfigs,
  TickPipeline,
  timerLoop,
  type Logger,
} from '@smsgw/platform';
import { stopTelemetry } from '@smsgw/platform/telemetry';
import { loadSmppConfig, type SmppConfig } from './config';
import { PendingRepository } from './data/pending.repository';
import { SubmitRepository } from './data/submit.repository';
import { SmppEventConsumer } from './events/event.consumer';
import { createUpstreams } from './grpc-clients/upstreams';
import { Deliverer } from './smpp/deliverer';
import { startSmppListeners } from './smpp/server';
import { bind } from './use-cases/bind.use-case';
import { cancelMessage, queryMessage } from './use-cases/query.use-case';
import { submitMessage } from './use-cases/submit.use-case';

const MIGRATIONS = path.resolve(__dirname, '../migrations');

/** `/healthz` (the process answers) and `/readyz` (NATS, Redis and Postgres answer), plain HTTP for the probes. */
function startHealth(port: number, host: string, ready: () => Promise<boolean>): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const send = (ok: boolean) => {
      res.statusCode = ok ? 200 : 503;
      res.end(ok ? 'ok' : 'not ready');
    };
    if (req.url === '/healthz') send(true);
    else if (req.url === '/readyz') ready().then(send, () => send(false));
    else {
      res.statusCode = 404;
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

export async function start(config: SmppConfig = loadSmppConfig(), log: Logger = createLogger('smpp')) {
  const pool = createPool({
    url: config.database.url,
    log,
    schema: config.database.schema,
    max: config.database.poolMax,
    applicationName: 'smpp',
  });
  await migrate(pool, { schema: config.database.schema, dir: MIGRATIONS, log });
  const nats = await connectNats({ ...config.nats, name: 'smpp', log });
  const redis = createRedis({ url: config.redis.url, keyPrefix: config.redis.keyPrefix, name: 'smpp', failFastMs: 2000 });
  await redis.connect();
  const pipeline = new TickPipeline(redis);
  const up = createUpstreams(
    { account: config.accountAddress, message: config.messageAddress, deviceHub: config.deviceHubAddress },
    { deadlineMs: config.grpcDeadlineMs, tls: config.grpcTls },
  );
  const submits = new SubmitRepository(pool);
  const pending = new PendingRepository(pool, config.pending.maxPerClient);
  const limiter = new SlidingWindowLimiter(pipeline, config.rateLimit);
  const failures = new FixedWindowCounter(pipeline, { windowMs: config.bindFailures.windowMs });
  const deliverer = new Deliverer(
    pending,
    { deliverWindow: config.session.deliverWindow, leaseMs: config.session.responseTimeoutMs * 2, pollMs: config.pending.pollMs },
    log,
  );
  const listeners = await startSmppListeners(
    { ...config.listen, maxSessions: config.session.maxSessions },
    {
      bind: (request) => bind({ up, failures, failureLimit: config.bindFailures.limit }, request),
      submit: (binding, submission) => submitMessage({ up, limiter, submits }, binding, submission),
      query: (binding, id) => queryMessage(up, binding, id),
      cancel: (binding, id) => cancelMessage(up, binding, id),
      receiverBound: (session) => deliverer.add(session),
      receiverGone: (session) => deliverer.remove(session),
      options: config.session,
      log,
    },
    log,
  );
  const streams = streamConfigs(nats.names, config.nats.streamReplicas, config.nats.streamMaxBytes);
  await ensureStream(nats.jsm, streams.eventBatches);
  const consumer = new SmppEventConsumer(nats, { submits, pending }, (clientId, mode) => deliverer.kick(clientId, mode), log);
  await consumer.start();
  deliverer.start();
  const cleanup = timerLoop({
    name: 'smpp-cleanup',
    intervalMs: 3600_000,
    tick: async () => {
      await submits.deleteOlderThan(config.pending.keepDays + 30);
      await pending.deleteOlderThan(config.pending.keepDays);
    },
    log,
  });
  cleanup.start();
  let connected = true;
  nats.onConnectionChange((c) => (connected = c));
  const health = await startHealth(config.listen.healthPort, config.listen.host, async () => {
    if (!connected || !(await redisAnswers(redis))) return false;
    await pool.query('SELECT 1');
    return true;
  });
  log.info({ tls_port: listeners.tlsPort, plain_port: listeners.plainPort }, 'smpp service ready');
  return {
    tlsPort: listeners.tlsPort,
    plainPort: listeners.plainPort,
    async stop() {
      await listeners.stop();
      await deliverer.stop();
      await consumer.stop();
      await cleanup.stop();
      await new Promise<void>((r) => health.close(() => r()));
      await nats.nc.drain();
      up.close();
      redis.disconnect();
      await pool.end();
      await stopTelemetry();
    },
  };
}

if (require.main === module) {
  const log = createLogger('smpp');
  runMain(log, () => start(loadSmppConfig(), log));
}
