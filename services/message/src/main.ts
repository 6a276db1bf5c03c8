import './instrumentation';
import path from 'node:path';
import {
  connectNats,
  createClient,
  createLogger,
  createPool,
  ensureEventBatchInterest,
  ensureStream,
  EventBatchPublisher,
  FirstStatistics,
  migrate,
  runMain,
  startGrpcService,
  streamConfigs,
  type Logger,
  observeConsumerLag,
} from '@smsgw/platform';
import { stopTelemetry } from '@smsgw/platform/telemetry';
import { deviceHubProto, messageProto, schedulerProto } from '@smsgw/proto';
import { loadMessageConfig, type MessageConfig } from './config';
import { CampaignUploadRepository } from './data/campaign-upload.repository';
import { CampaignRepository } from './data/campaign.repository';
import { FleetRepository } from './data/fleet.repository';
import { HistoryRepository } from './data/history.repository';
import { IdempotencyKeyRepository } from './data/idempotency-key.repository';
import { MessageRepository } from './data/message.repository';
import { QueueRepository } from './data/queue.repository';
import { ReceivedRepository } from './data/received.repository';
import { ReportTimeoutRepository } from './data/report-timeout.repository';
import { ReceivedEventPublisher } from './events/received-event.publisher';
import { RECEIVED_DURABLE, ReceivedConsumer } from './events/received.consumer';
import { OptOutRepository } from './data/opt-out.repository';
import { ReportConsumer } from './events/report.consumer';
import { OtpFallbackTimers } from './events/otp-fallback.timers';
import { ScheduledSends } from './events/scheduled-sends';
import { SmsEventPublisher } from './events/sms-event.publisher';
import { REPORT_BATCHES_DURABLE, ReportBatchConsumer } from './events/report-batch.consumer';
import { ReconcileRepository } from './data/reconcile.repository';
import { TimerConsumer } from './events/timer.consumer';
import { WakeUpPublisher } from './events/wake-up.publisher';
import { DeviceOwnership } from './use-cases/device-ownership';
import { messageHandlers, messageCallers } from './grpc/message.handlers';
import { observeQueue } from './metrics/queue-gauges';
import { failPendingTo } from './use-cases/opt-outs.use-case';
import { ReportTimeoutJob } from './jobs/report-timeout.job';
import { ExpiryJob } from './jobs/expiry.job';
import { RetentionJob } from './jobs/retention.job';

const MIGRATIONS = path.resolve(__dirname, '../migrations');

export async function start(config: MessageConfig = loadMessageConfig(), log: Logger = createLogger('message')) {
  const pool = createPool({
    url: config.database.url,
    log,
    schema: config.database.schema,
    max: config.database.poolMax,
    applicationName: 'message',
  });
  const nats = await connectNats({ ...config.nats, name: 'message', log });
  const repo = new MessageRepository(pool);
  const history = new HistoryRepository(pool);
  const scheduler = createClient(schedulerProto().SchedulerService, config.scheduler.address, {
    deadlineMs: config.scheduler.deadlineMs,
    tls: config.grpcTls,
  });
  const scheduledSends = new ScheduledSends(scheduler, nats, log);
  const deviceHub = createClient(deviceHubProto().DeviceHubService, config.deviceHubAddress, { tls: config.grpcTls });
  const eventBatches = new EventBatchPublisher(nats, 'message');
  const publisher = new SmsEventPublisher(eventBatches);
  const fleet = new FleetRepository(pool);
  const received = new ReceivedRepository(pool);
  const optOuts = new OptOutRepository(pool);
  const reconcile = new ReconcileRepository(pool);
  const messageService = {
    messages: repo,
    reconcile,
    queue: new QueueRepository(pool),
    fleet,
    events: publisher,
    keys: new IdempotencyKeyRepository(pool),
    history,
    received,
    optOuts,
    wakeUps: new WakeUpPublisher(nats),
    campaigns: new CampaignRepository(pool),
    campaignUploads: new CampaignUploadRepository(pool),
    scheduledSends,
    devices: new DeviceOwnership(deviceHub),
    otpFallbackTimers: new OtpFallbackTimers(scheduler, nats, log),
    config,
    log,
  };
  const server = await startGrpcService({
    listen: config.grpc,
    tls: config.grpcTls,
    callers: messageCallers,
    name: 'smsgw.message.v1.MessageService',
    definition: messageProto().MessageService.service,
    handlers: messageHandlers(messageService),
    log,
  });
  await migrate(pool, { schema: config.database.schema, dir: MIGRATIONS, log });
  // The insert's count of a device's queue and the claims need statistics of `messages` from the start.
  const firstStatistics = new FirstStatistics(pool, ['messages'], log);
  firstStatistics.start();
  const streams = streamConfigs(nats.names, config.nats.streamReplicas, config.nats.streamMaxBytes);
  for (const stream of [streams.reports, streams.reportBatches, streams.events, streams.eventBatches, streams.timers]) {
    await ensureStream(nats.jsm, stream);
  }
  await ensureEventBatchInterest(nats.jsm, nats.names);
  const reportDeps = { messages: repo, fleet, events: publisher, wakeUps: messageService.wakeUps, log };
  const reconcileDeps = { ...reportDeps, reconcile, settings: config.reconcile };
  const batchConsumer = new ReportBatchConsumer(nats, reconcileDeps, log);
  const consumer = new ReportConsumer(nats, reportDeps, log);
  const receivedConsumer = new ReceivedConsumer(nats, received, new ReceivedEventPublisher(eventBatches), log, optOuts, (r) =>
    failPendingTo(messageService, r),
  );
  // What an SRE watches: the queue waiting for phones, and the consumers' lag.
  observeQueue(repo);
  observeConsumerLag(nats, [
    { stream: nats.names.reportBatchesStream, durable: REPORT_BATCHES_DURABLE },
    { stream: nats.names.reportsStream, durable: 'message-reports' },
    { stream: nats.names.reportsStream, durable: RECEIVED_DURABLE },
    { stream: nats.names.timersStream, durable: 'message-timers' },
  ]);
  await batchConsumer.start();
  await consumer.start();
  await receivedConsumer.start();
  const retention = new RetentionJob(history, config.retention);
  const reportTimeout = new ReportTimeoutJob(new ReportTimeoutRepository(pool), publisher, config.reportTimeout, log);
  // Timers of scheduled messages, and the periodic jobs the scheduler declares for this service.
  const timers = new TimerConsumer(
    nats,
    {
      'message.retention': () => retention.run(),
      'message.report-timeout': async () => ({ expired: await reportTimeout.runOnce(), timeout_ms: config.reportTimeout.timeoutMs }),
    },
    log,
    fleet,
  );
  await timers.start();
  // Only when set: the scheduler's `message.report-timeout` job runs it otherwise.
  reportTimeout.start();
  const expiry = new ExpiryJob(repo, publisher, config.expiry.sweepMs, log, fleet);
  expiry.start();
  // From now on, readiness follows the NATS connection.
  server.ready({ nats });
  log.info({ port: server.port }, 'message service ready');
  return {
    port: server.port,
    healthPort: server.healthPort,
    async stop() {
      await server.stop();
      await timers.stop();
      await reportTimeout.stop();
      await expiry.stop();
      await firstStatistics.stop();
      await batchConsumer.stop();
      await consumer.stop();
      await receivedConsumer.stop();
      scheduler.close();
      deviceHub.close();
      await nats.nc.drain();
      await pool.end();
      await stopTelemetry();
    },
  };
}

if (require.main === module) {
  const log = createLogger('message');
  runMain(log, () => start(loadMessageConfig(), log));
}
