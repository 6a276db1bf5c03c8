import './instrumentation';
import path from 'node:path';
import {
  connectNats,
  createLogger,
  createPool,
  ensureStream,
  migrate,
  observeConsumerLag,
  runMain,
  startGrpcService,
  streamConfigs,
  type Logger,
} from '@smsgw/platform';
import { stopTelemetry } from '@smsgw/platform/telemetry';
import { schedulerProto } from '@smsgw/proto';
import { loadSchedulerConfig, type SchedulerConfig } from './config';
import { TimerRepository } from './data/timer.repository';
import { jobsWithPeriods } from './domain/periodic-jobs';
import { JobConsumer } from './events/job.consumer';
import { TimerFirer } from './events/timer-firer';
import { schedulerHandlers, schedulerCallers } from './grpc/scheduler.handlers';
import { JobTimers } from './jobs/job-timers';

const MIGRATIONS = path.resolve(__dirname, '../migrations');

export async function start(config: SchedulerConfig = loadSchedulerConfig(), log: Logger = createLogger('scheduler')) {
  const jobs = config.jobs.enabled ? jobsWithPeriods(config.jobs.periodsMs) : [];
  const pool = createPool({
    url: config.database.url,
    log,
    schema: config.database.schema,
    max: config.database.poolMax,
    applicationName: 'scheduler',
  });
  const nats = await connectNats({ ...config.nats, name: 'scheduler', log });
  const repo = new TimerRepository(pool);
  const server = await startGrpcService({
    listen: config.grpc,
    tls: config.grpcTls,
    callers: schedulerCallers,
    name: 'smsgw.scheduler.v1.SchedulerService',
    definition: schedulerProto().SchedulerService.service,
    handlers: schedulerHandlers(repo, nats, jobs, config.timers),
    log,
  });
  await migrate(pool, { schema: config.database.schema, dir: MIGRATIONS, log });
  await ensureStream(nats.jsm, streamConfigs(nats.names, config.nats.streamReplicas).timers);
  const jobConsumer = new JobConsumer(
    nats,
    { 'scheduler.cleanup': async () => ({ deleted: await repo.deleteDone(config.timers.keepDays) }) },
    log,
  );
  await jobConsumer.start();
  observeConsumerLag(nats, [{ stream: nats.names.timersStream, durable: 'scheduler-jobs' }]);
  const jobTimers = new JobTimers(repo, jobs, nats.names, log);
  const firer = new TimerFirer(repo, nats, config.timers, () => jobTimers.ensure(), log);
  firer.start();
  // From now on, readiness follows the NATS connection.
  server.ready({ nats });
  log.info({ port: server.port, jobs: jobs.map((j) => ({ name: j.name, period_ms: j.periodMs })) }, 'scheduler ready');
  return {
    port: server.port,
    healthPort: server.healthPort,
    async stop() {
      await server.stop();
      await firer.stop();
      await jobConsumer.stop();
      await nats.nc.drain();
      await pool.end();
      await stopTelemetry();
    },
  };
}

if (require.main === module) {
  const log = createLogger('scheduler');
  runMain(log, () => start(loadSchedulerConfig(), log));
}
