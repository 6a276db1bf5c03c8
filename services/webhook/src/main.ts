import './instrumentation';
import fs from 'node:fs';
import path from 'node:path';
import {
  connectNats,
  createClient,
  createLogger,
  createPool,
  ensureStream,
  gauge,
  migrate,
  observeConsumerLag,
  runMain,
  startGrpcService,
  streamConfigs,
  type Logger,
} from '@smsgw/platform';
import { stopTelemetry } from '@smsgw/platform/telemetry';
import { accountProto, schedulerProto, webhookProto, type account, type scheduler } from '@smsgw/proto';
import nodemailer from 'nodemailer';
import { loadWebhookConfig, type WebhookConfig } from './config';
import { AlertRepository } from './data/alert.repository';
import { OtpAlertRepository } from './data/otp-alert.repository';
import { DeviceAlertRepository } from './data/device-alert.repository';
import { DeliveryLogRepository } from './data/delivery-log.repository';
import { CONNECTION_SETTINGS, DeliveryRepository } from './data/delivery.repository';
import { EndpointRepository } from './data/endpoint.repository';
import { AlertMailer } from './delivery/alerts';
import { AttemptRunner } from './delivery/attempt-runner';
import { Dispatcher } from './delivery/dispatcher';
import { receiverClient } from './delivery/receiver-client';
import { OutcomeWriter } from './delivery/outcome-writer';
import { SigningSecrets } from './delivery/signing-secrets';
import { Sweeper } from './delivery/sweeper';
import { RetryPolicy } from './domain/retry-policy';
import { EVENT_BATCHES_DURABLE, EVENTS_DURABLE, EventConsumer } from './events/event.consumer';
import { OTP_ALERTS_DURABLE, OtpAlertConsumer } from './events/otp-alert.consumer';
import { DEVICE_ALERTS_DURABLE, DeviceAlertConsumer } from './events/device-alert.consumer';
import { OFFLINE_ALERTS_DURABLE, PHONE_ALERTS_DURABLE, PhoneAlertConsumer } from './events/phone-alert.consumer';
import { PhoneAlertRepository } from './data/phone-alert.repository';
import { ListenPublisher } from './events/listen.publisher';
import { batchRetryScheduler, retryScheduler } from './events/retry-scheduler';
import { TimerConsumer } from './events/timer.consumer';
import { webhookHandlers, webhookCallers } from './grpc/webhook.handlers';

const MIGRATIONS = path.resolve(__dirname, '../migrations');

export async function start(config: WebhookConfig = loadWebhookConfig(), log: Logger = createLogger('webhook')) {
  const pool = createPool({
    url: config.database.url,
    log,
    schema: config.database.schema,
    max: config.database.poolMax,
    applicationName: 'webhook',
    settings: CONNECTION_SETTINGS,
  });
  const nats = await connectNats({ ...config.nats, name: 'webhook', log });
  const accounts = createClient<account.AccountServiceClient>(accountProto().AccountService, config.accountAddress, {
    tls: config.grpcTls,
  });
  const timers = createClient<scheduler.SchedulerServiceClient>(schedulerProto().SchedulerService, config.scheduler.address, {
    deadlineMs: config.scheduler.deadlineMs,
    tls: config.grpcTls,
  });
  const endpoints = new EndpointRepository(pool);
  const deliveries = new DeliveryRepository(pool, config.delivery.leaseMs);
  const deliveryLog = new DeliveryLogRepository(pool);
  const receivers = receiverClient({
    timeoutMs: config.delivery.timeoutMs,
    maxResponseBytes: config.delivery.maxResponseBytes,
    allowPrivateAddresses: config.delivery.allowPrivateAddresses,
    extraCa: config.delivery.extraCaFile ? fs.readFileSync(config.delivery.extraCaFile, 'utf8') : undefined,
  });
  const transport = config.alerts.smtpUrl ? nodemailer.createTransport(config.alerts.smtpUrl) : undefined;
  if (!transport) log.warn('SMTP_URL is not set: dropped webhook deliveries are logged, no alert e-mail is sent');
  if (config.delivery.allowPrivateAddresses)
    log.warn('WEBHOOK_ALLOW_PRIVATE_ADDRESSES is on: webhooks may reach private networks (development only)');
  const alerts = new AlertMailer(new AlertRepository(pool), accounts, transport, config.alerts.from, log);
  const outcomes = new OutcomeWriter(deliveries);
  const secrets = new SigningSecrets(accounts);
  const runner = new AttemptRunner({
    post: receivers.post,
    signingSecret: (clientId) => secrets.of(clientId),
    outcomes,
    repo: deliveries,
    policy: new RetryPolicy(config.delivery.retryDelaysMs),
    scheduleRetry: retryScheduler(timers, nats),
    scheduleBatchRetry: batchRetryScheduler(timers, nats),
    alertDropped: alerts.alertDropped,
    alertDroppedBatch: alerts.alertDroppedBatch,
    userAgent: `${config.delivery.userAgentName}-Webhook/1.0`,
    log,
  });
  const dispatcher = new Dispatcher(runner.run, config.delivery, log);
  gauge('webhook.held', 'Webhook attempts queued or in flight on this replica', (r) => r.observe(dispatcher.size));
  observeConsumerLag(nats, [
    { stream: nats.names.eventBatchesStream, durable: EVENT_BATCHES_DURABLE },
    { stream: nats.names.eventsStream, durable: EVENTS_DURABLE },
    { stream: nats.names.timersStream, durable: 'webhook-timers' },
    { stream: nats.names.eventsStream, durable: OTP_ALERTS_DURABLE },
    { stream: nats.names.eventsStream, durable: DEVICE_ALERTS_DURABLE },
    { stream: nats.names.eventsStream, durable: PHONE_ALERTS_DURABLE },
    { stream: nats.names.eventsStream, durable: OFFLINE_ALERTS_DURABLE },
  ]);
  const enqueue = (job: Parameters<Dispatcher['enqueue']>[0]) => dispatcher.enqueue(job);
  const enqueueBatch = (batchId: string, jobs: Parameters<Dispatcher['enqueueBatch']>[1]) => dispatcher.enqueueBatch(batchId, jobs);

  const server = await startGrpcService({
    listen: config.grpc,
    tls: config.grpcTls,
    callers: webhookCallers,
    name: 'smsgw.webhook.v1.WebhookService',
    definition: webhookProto().WebhookService.service,
    handlers: webhookHandlers({
      endpoints,
      deliveries,
      deliveryLog,
      accounts,
      checkUrl: receivers.checkUrl,
      enqueue,
      maxEndpointsPerClient: config.maxEndpointsPerClient,
    }),
    log,
  });
  await migrate(pool, { schema: config.database.schema, dir: MIGRATIONS, log });
  const streams = streamConfigs(nats.names, config.nats.streamReplicas, config.nats.streamMaxBytes);
  await Promise.all([
    ensureStream(nats.jsm, streams.events),
    ensureStream(nats.jsm, streams.eventBatches),
    ensureStream(nats.jsm, streams.timers),
  ]);
  const listeners = new ListenPublisher(nats, log);
  const batchConsumer = new EventConsumer('batches', nats, endpoints, deliveries, enqueue, log, listeners);
  const eventConsumer = new EventConsumer('single', nats, endpoints, deliveries, enqueue, log, listeners);
  const timerConsumer = new TimerConsumer(
    nats,
    deliveries,
    enqueue,
    enqueueBatch,
    { 'webhook.cleanup': async () => ({ deleted_events: await deliveryLog.deleteOlderThan(config.keepDays) }) },
    log,
  );
  const sweeper = new Sweeper(
    deliveries,
    dispatcher,
    alerts,
    { intervalMs: config.delivery.sweepIntervalMs, maxInFlight: config.delivery.maxInFlight, leaseMs: config.delivery.leaseMs },
    log,
  );
  // The owner's e-mail of suspected OTP pumping, through the same SMTP and verified address as the alerts above.
  const otpAlerts = new OtpAlertConsumer(nats, { repo: new OtpAlertRepository(pool), accounts, transport, from: config.alerts.from, log });
  // The owner's e-mail of a quarantined SIM (device.degraded), the same way.
  const deviceAlerts = new DeviceAlertConsumer(nats, {
    repo: new DeviceAlertRepository(pool),
    accounts,
    transport,
    from: config.alerts.from,
    log,
  });
  // The owner's warnings of a phone low on battery and of one offline past the delay, the same way.
  const phoneAlertDeps = { repo: new PhoneAlertRepository(pool), accounts, transport, from: config.alerts.from, log };
  const phoneAlerts = new PhoneAlertConsumer(nats, phoneAlertDeps);
  const offlineAlerts = new PhoneAlertConsumer(nats, phoneAlertDeps, 'device.offline', OFFLINE_ALERTS_DURABLE);
  await batchConsumer.start();
  await eventConsumer.start();
  await timerConsumer.start();
  await otpAlerts.start();
  await deviceAlerts.start();
  await phoneAlerts.start();
  await offlineAlerts.start();
  sweeper.start();
  // From now on, readiness follows the NATS connection.
  server.ready({ nats });
  log.info(
    { port: server.port, retry_delays_ms: config.delivery.retryDelaysMs, batch_window_ms: config.delivery.batchWindowMs },
    'webhook service ready',
  );
  return {
    port: server.port,
    healthPort: server.healthPort,
    async stop() {
      await server.stop();
      await batchConsumer.stop();
      await eventConsumer.stop();
      await timerConsumer.stop();
      await otpAlerts.stop();
      await deviceAlerts.stop();
      await phoneAlerts.stop();
      await offlineAlerts.stop();
      await sweeper.stop();
      // Attempts in flight finish (each is bounded by the receiver timeout); their outcomes are written.
      await dispatcher.stop();
      await outcomes.drain();
      receivers.close();
      transport?.close();
      await nats.nc.drain();
      await pool.end();
      accounts.close();
      timers.close();
      await stopTelemetry();
    },
  };
}

if (require.main === module) {
  const log = createLogger('webhook');
  runMain(log, () => start(loadWebhookConfig(), log));
}
