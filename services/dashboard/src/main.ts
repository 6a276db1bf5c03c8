import './instrumentation';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { connectNats, createClient, createLogger, createRedis, redisAnswers, runMain, TrustedProxies, type Logger } from '@smsgw/platform';
import { stopTelemetry } from '@smsgw/platform/telemetry';
import {
  accountProto,
  deviceHubProto,
  messageProto,
  otpProto,
  webhookProto,
  type account,
  type devicehub,
  type message,
  type otp,
  type webhook,
} from '@smsgw/proto';
import { loadDashboardConfig, type DashboardConfig } from './config';
import { createApp } from './http/app';
import { SessionStore } from './http/session';
import { DeviceEvents } from './live/device-events';
import { createMailer } from './mail/mailer';

export async function start(config: DashboardConfig = loadDashboardConfig(), log: Logger = createLogger('dashboard')) {
  const options = { deadlineMs: config.grpcDeadlineMs, tls: config.grpcTls };
  const up = {
    accounts: createClient<account.AccountServiceClient>(accountProto().AccountService, config.accountAddress, options),
    devices: createClient<devicehub.DeviceHubServiceClient>(deviceHubProto().DeviceHubService, config.deviceHubAddress, options),
    messages: createClient<message.MessageServiceClient>(messageProto().MessageService, config.messageAddress, options),
    webhooks: createClient<webhook.WebhookServiceClient>(webhookProto().WebhookService, config.webhookAddress, options),
    otps: createClient<otp.OtpServiceClient>(otpProto().OtpService, config.otpAddress, options),
  };
  const redis = createRedis({ url: config.redis.url, keyPrefix: config.redis.keyPrefix, name: 'dashboard' });
  await redis.connect();
  const nats = await connectNats({ ...config.nats, name: 'dashboard', log, jetstream: false });
  const deviceEvents = new DeviceEvents(nats, log, config.liveStreamsPerAccount);
  deviceEvents.start();
  const { tls } = config.http;
  const unready = async () => ((await redisAnswers(redis, 1000)) ? [] : ['redis']);
  const mailer = createMailer(config.mail, log);
  let port = config.http.port;
  const app = createApp({
    up,
    sessions: new SessionStore(redis, config.sessions),
    redis,
    deviceEvents,
    signIn: config.signIn,
    signUpLimit: config.signUpLimit,
    testEventLimit: config.testEventLimit,
    liveStreamsPerAccount: config.liveStreamsPerAccount,
    log,
    trustedProxies: tls.mode === 'proxy' ? new TrustedProxies(tls.trustedProxies) : undefined,
    unready,
    apkFile: config.apkFile,
    mailer,
    publicUrl: () => config.mail.publicUrl ?? `https://127.0.0.1:${port}`,
    smppAddress: config.smppAddress,
    emailLimits: config.emailLimits,
  });
  const server =
    tls.mode === 'proxy'
      ? http.createServer(app.callback())
      : https.createServer({ cert: fs.readFileSync(tls.certFile), key: fs.readFileSync(tls.keyFile) }, app.callback());
  await new Promise<void>((resolve) => server.listen(config.http.port, config.http.host, resolve));
  port = (server.address() as AddressInfo).port;
  log.info({ port }, 'dashboard ready');
  return {
    port,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Live pages (server-sent events) hold their connections open: end them.
        server.closeAllConnections();
      });
      deviceEvents.stop();
      mailer.close();
      await nats.nc.drain();
      redis.disconnect();
      for (const client of Object.values(up)) client.close();
      await stopTelemetry();
    },
  };
}

if (require.main === module) {
  const log = createLogger('dashboard');
  runMain(log, () => start(loadDashboardConfig(), log));
}
