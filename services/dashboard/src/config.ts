import path from 'node:path';
import { commonConfig, loadConfig } from '@smsgw/platform';

/** Where `make apk` writes the phone app, from this file's dist/ in the repository. */
const REPO_APK = path.resolve(__dirname, '../../../android-agent/android/build/smsgw-agent.apk');

export type DashboardConfig = ReturnType<typeof loadDashboardConfig>;

export function loadDashboardConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      http: {
        host: env.str('HTTP_HOST', '0.0.0.0'),
        port: env.int('HTTP_PORT', 8445, { min: 0, max: 65535 }),
        /** Session cookies are `Secure`: pages are served over HTTPS only, by this process or its proxy. */
        tls: commonConfig.tls(env),
      },
      redis: commonConfig.redis(env),
      nats: commonConfig.nats(env),
      grpcTls: commonConfig.grpcTls(env),
      accountAddress: commonConfig.grpcAddress(env, 'ACCOUNT_GRPC_ADDR', '127.0.0.1:50051'),
      deviceHubAddress: commonConfig.grpcAddress(env, 'DEVICE_HUB_GRPC_ADDR', '127.0.0.1:50053'),
      messageAddress: commonConfig.grpcAddress(env, 'MESSAGE_GRPC_ADDR', '127.0.0.1:50052'),
      webhookAddress: commonConfig.grpcAddress(env, 'WEBHOOK_GRPC_ADDR', '127.0.0.1:50056'),
      otpAddress: commonConfig.grpcAddress(env, 'OTP_GRPC_ADDR', '127.0.0.1:50054'),
      grpcDeadlineMs: env.int('GRPC_DEADLINE_MS', 5000, { min: 100 }),
      sessions: {
        /** A session ends this long after its last request. */
        idleMs: env.int('DASHBOARD_SESSION_IDLE_MS', 12 * 3600_000, { min: 60_000 }),
        /** A session ends this long after its sign-in, however busy. */
        lifetimeMs: env.int('DASHBOARD_SESSION_LIFETIME_MS', 12 * 3600_000, { min: 60_000 }),
      },
      /** The phone app's APK that the Phones page offers; the image sets it to the APK it holds. */
      apkFile: env.str('AGENT_APK_FILE', REPO_APK),
      /** Where SMPP clients connect (host:port, TLS), shown on the SMPP page; unset: not shown. */
      smppAddress: env.optional('DASHBOARD_SMPP_ADDRESS'),
      signIn: {
        /** Failed sign-ins allowed per address (and per e-mail) in the window; past them every sign-in is 429. */
        maxFailures: env.int('DASHBOARD_SIGNIN_MAX_FAILURES', 10, { min: 1 }),
        windowMs: env.int('DASHBOARD_SIGNIN_WINDOW_MS', 15 * 60_000, { min: 1000 }),
      },
      signUpLimit: {
        /** Sign-ups allowed per address in the window; past them sign-up is 429. */
        maxPerAddress: env.int('DASHBOARD_SIGNUP_MAX_PER_ADDRESS', 5, { min: 1 }),
        windowMs: env.int('DASHBOARD_SIGNUP_WINDOW_MS', 3600_000, { min: 1000 }),
      },
      mail: {
        /** `smtp://host:port` (or `smtps://`): verification and password reset e-mails. Unset: none is sent (logged). */
        smtpUrl: env.optional('SMTP_URL'),
        from: env.str('DASHBOARD_MAIL_FROM', 'SMS Gateway <no-reply@smsgateway.local>'),
        /** The dashboard's address in the links mailed (never taken from a request's Host); defaults to https://127.0.0.1:<port>. */
        publicUrl: env.optional('DASHBOARD_PUBLIC_URL'),
      },
      emailLimits: {
        /** Verification e-mails an account may ask for ("send again") in the window. */
        verificationMax: env.int('DASHBOARD_VERIFICATION_MAX', 3, { min: 1 }),
        verificationWindowMs: env.int('DASHBOARD_VERIFICATION_WINDOW_MS', 3600_000, { min: 1000 }),
        /** Password reset requests per e-mail address, and per client address, in the window. */
        resetMaxPerEmail: env.int('DASHBOARD_RESET_MAX_PER_EMAIL', 3, { min: 1 }),
        resetMaxPerAddress: env.int('DASHBOARD_RESET_MAX_PER_ADDRESS', 10, { min: 1 }),
        resetWindowMs: env.int('DASHBOARD_RESET_WINDOW_MS', 3600_000, { min: 1000 }),
      },
      /** Live phone-state streams (/phones/events) one account may hold open on one replica. */
      liveStreamsPerAccount: env.int('DASHBOARD_LIVE_STREAMS_MAX', 10, { min: 1, max: 1000 }),
      testEventLimit: {
        /** Webhook test events an account may send in the window; past them the page says so. */
        maxPerAccount: env.int('DASHBOARD_TEST_EVENTS_MAX', 10, { min: 1 }),
        windowMs: env.int('DASHBOARD_TEST_EVENTS_WINDOW_MS', 60_000, { min: 1000 }),
      },
    }),
    source,
  );
}
