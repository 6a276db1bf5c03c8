import './instrumentation';
import path from 'node:path';
import {
  connectNats,
  createClient,
  createLogger,
  createPool,
  createRedis,
  ensureStream,
  FirstStatistics,
  migrate,
  streamConfigs,
  runMain,
  startGrpcService,
  timerLoop,
  type Logger,
} from '@smsgw/platform';
import { stopTelemetry } from '@smsgw/platform/telemetry';
import { messageProto, otpProto, type message } from '@smsgw/proto';
import { loadOtpConfig, type OtpConfig } from './config';
import { EndUserLimit } from './data/end-user-limit.store';
import { GuardSettingsRepository } from './data/guard-settings.repository';
import { GuardStore } from './data/guard.store';
import { HoldRepository } from './data/hold.repository';
import { OtpRepository } from './data/otp.repository';
import { OtpRateLimit } from './data/rate-limit.store';
import { FraudEventPublisher } from './events/fraud-event.publisher';
import { otpHandlers, otpCallers } from './grpc/otp.handlers';

const MIGRATIONS = path.resolve(__dirname, '../migrations');
/** The specification's limit: 10 OTPs an hour for one number. */
const PER_NUMBER = { limit: 10, windowMs: 3_600_000 };
const PURGE_INTERVAL_MS = 3_600_000;
/** The sealed text of an OTP whose answer was lost outlives its expiry by at most this long. */
const SEAL_SWEEP_INTERVAL_MS = 60_000;

export async function start(config: OtpConfig = loadOtpConfig(), log: Logger = createLogger('otp')) {
  const pool = createPool({
    url: config.database.url,
    log,
    schema: config.database.schema,
    max: config.database.poolMax,
    applicationName: 'otp',
  });
  const redis = createRedis({ url: config.redis.url, keyPrefix: config.redis.keyPrefix, name: 'otp' });
  await redis.connect();
  // For the pumping guard's otp.fraud_suspected events only: an OTP never waits for NATS.
  const nats = await connectNats({ ...config.nats, name: 'otp', log });
  const messages = createClient<message.MessageServiceClient>(messageProto().MessageService, config.messageAddress, {
    deadlineMs: config.grpcDeadlineMs,
    tls: config.grpcTls,
  });
  const repo = new OtpRepository(pool);
  const server = await startGrpcService({
    listen: config.grpc,
    tls: config.grpcTls,
    callers: otpCallers,
    name: 'smsgw.otp.v1.OtpService',
    definition: otpProto().OtpService.service,
    handlers: otpHandlers({
      repo,
      rateLimit: new OtpRateLimit(redis, PER_NUMBER),
      messages,
      hashKey: config.hashKey,
      sealKey: config.sealKey,
      idempotencyTtlSeconds: config.idempotencyTtlSeconds,
      guard: {
        store: new GuardStore(redis),
        settings: new GuardSettingsRepository(pool),
        defaults: Object.freeze(config.guard),
        holds: new HoldRepository(pool),
        events: new FraudEventPublisher(nats),
      },
      endUserLimit: new EndUserLimit(redis),
      keepExpiredHours: config.keepExpiredHours,
      log,
    }),
    log,
  });
  await migrate(pool, { schema: config.database.schema, dir: MIGRATIONS, log });
  // A verify finds its OTP by key only once `otps` has statistics.
  const firstStatistics = new FirstStatistics(pool, ['otps'], log);
  firstStatistics.start();
  await ensureStream(nats.jsm, streamConfigs(nats.names, config.nats.streamReplicas).events);
  const purge = timerLoop({
    name: 'otp-purge',
    intervalMs: PURGE_INTERVAL_MS,
    tick: () =>
      repo.purgeExpired(config.keepExpiredHours).then(
        (deleted) => deleted > 0 && log.info({ deleted }, 'old OTPs purged, folded into the daily statistics'),
        (err: unknown) => log.error({ err }, 'purging old OTPs failed'),
      ),
    log,
  });
  const sealSweep = timerLoop({
    name: 'otp-seal-sweep',
    intervalMs: SEAL_SWEEP_INTERVAL_MS,
    tick: () => repo.eraseExpiredSeals().catch((err: unknown) => log.error({ err }, 'erasing the sealed texts of expired OTPs failed')),
    log,
  });
  purge.start();
  sealSweep.start();
  // From now on, readiness follows the Redis connection.
  server.ready({ redis });
  log.info({ port: server.port }, 'otp service ready');
  return {
    port: server.port,
    healthPort: server.healthPort,
    async stop() {
      await server.stop();
      await Promise.all([purge.stop(), sealSweep.stop(), firstStatistics.stop()]);
      messages.close();
      await nats.nc.drain();
      await pool.end();
      redis.disconnect();
      await stopTelemetry();
    },
  };
}

if (require.main === module) {
  const log = createLogger('otp');
  runMain(log, () => start(loadOtpConfig(), log));
}
