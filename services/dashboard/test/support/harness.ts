import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { AppError, createLogger, startGrpcService, type AsyncHandlers, type GrpcService, type Redis } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import { ensureCerts, freePort } from '@smsgw/stack';
import {
  createSandbox,
  randomHex,
  anyCaller,
  grpcTlsFor,
  startServiceProcess,
  startServiceUnderTest,
  type Sandbox,
  type ServiceProcessOptions,
  type ServiceProcessUnderTest,
} from '@smsgw/testing';
import { loadDashboardConfig } from '../../src/config';
import { start } from '../../src/main';

/** What a TLS-terminating proxy adds: the dashboard (TLS_MODE=proxy) serves pages only to requests that came over HTTPS. */
export const HTTPS = { 'x-forwarded-proto': 'https' };

export interface DashboardUnderTest {
  /** `http://127.0.0.1:<port>`: send `HTTPS` with every page request. */
  base: string;
  /** A connection with the dashboard's key prefix (sessions, throttles). */
  redis: Redis;
  sandbox: Sandbox;
  stop(): Promise<void>;
}

/**
 * The real dashboard in this process, on port 0 behind a (pretend) TLS
 * proxy, with a Redis and NATS prefix of its own. Its upstreams answer
 * nothing unless `env` names them (`ACCOUNT_GRPC_ADDR`, ...: see
 * `stubAccountService` and `startUpstreams`).
 */
export async function startDashboard(env: Record<string, string> = {}, on?: Sandbox): Promise<DashboardUnderTest> {
  const svc = await startServiceUnderTest({
    name: 'dashboard',
    loadConfig: loadDashboardConfig,
    start,
    redis: true,
    database: false,
    on,
    env: {
      TLS_MODE: 'proxy',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '0',
      ACCOUNT_GRPC_ADDR: '127.0.0.1:9',
      DEVICE_HUB_GRPC_ADDR: '127.0.0.1:9',
      MESSAGE_GRPC_ADDR: '127.0.0.1:9',
      WEBHOOK_GRPC_ADDR: '127.0.0.1:9',
      GRPC_DEADLINE_MS: '500',
      ...env,
    },
  });
  return { base: `http://127.0.0.1:${svc.port}`, redis: svc.sandbox.redis!, sandbox: svc.sandbox, stop: () => svc.stop() };
}

/** An account gRPC server answering with `handlers`; every other method fails (INTERNAL_ERROR). */
export async function stubAccountService(handlers: Partial<Record<keyof account.AccountServiceHandlers, unknown>>): Promise<GrpcService> {
  const all: Record<string, unknown> = { ...handlers };
  for (const method of Object.keys(accountProto().AccountService.service)) {
    all[method] ??= async () => {
      throw new AppError('INTERNAL_ERROR');
    };
  }
  const server = await startGrpcService({
    listen: { host: '127.0.0.1', port: 0 },
    tls: grpcTlsFor('account'),
    callers: anyCaller(accountProto().AccountService.service),
    name: 'smsgw.account.v1.AccountService',
    definition: accountProto().AccountService.service,
    handlers: all as unknown as AsyncHandlers<account.AccountServiceHandlers>,
    log: createLogger('dashboard-test-account', 'silent'),
  });
  server.ready();
  return server;
}

/** A fresh form's CSRF token with the cookie it goes with (the anonymous forms' double submit). */
export async function anonymousForm(base: string, page = '/signup'): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${base}${page}`, { headers: HTTPS });
  return { cookie: form.headers.get('set-cookie')!.split(';')[0]!, csrf: csrfOf(await form.text()) };
}

/** The `_csrf` field of a page's first form. */
export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;

/** POSTs a form as a browser does, without following a redirect. */
export function postForm(
  base: string,
  page: string,
  fields: Record<string, string> | URLSearchParams,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}${page}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export interface Upstreams {
  /** The dashboard's settings that point at them. */
  env: Record<string, string>;
  /** The CA of the hub's agent port (its pairing URLs are `https://127.0.0.1:<port>/...`). */
  agentCaPem: string;
  /** The account service's schema (a test makes an account of before there). */
  accountSchema: string;
  stop(): Promise<void>;
}

/**
 * The real account, message, device-hub and webhook services (their built
 * dist, each a process with a schema of its own) on the sandbox's NATS and
 * Redis prefixes, as the dashboard finds them in production.
 */
export async function startUpstreams(sandbox: Sandbox): Promise<Upstreams> {
  const certs = await ensureCerts(path.join(os.tmpdir(), 'smsgw-dashboard-test-certs'));
  const [accountPort, messagePort, hubPort] = [await freePort(), await freePort(), await freePort()];
  const common = {
    ACCOUNT_GRPC_ADDR: `127.0.0.1:${accountPort}`,
    MESSAGE_GRPC_ADDR: `127.0.0.1:${messagePort}`,
    // The message service asks the hub whether a device is its client's.
    DEVICE_HUB_GRPC_ADDR: `127.0.0.1:${hubPort}`,
    // No scheduler: nothing here is scheduled.
    SCHEDULER_GRPC_ADDR: '127.0.0.1:9',
    OTP_SEAL_KEY: randomHex(32),
  };
  const specs: Omit<ServiceProcessOptions, 'natsPrefix' | 'redisPrefix' | 'logFolder'>[] = [
    { service: 'account', port: accountPort, env: common },
    { service: 'message', port: messagePort, env: common },
    {
      service: 'device-hub',
      port: hubPort,
      env: {
        ...common,
        AGENT_HOST: '127.0.0.1',
        AGENT_PORT: String(await freePort()),
        TLS_CERT_FILE: certs.certFile,
        TLS_KEY_FILE: certs.keyFile,
      },
    },
    { service: 'webhook', env: { ...common, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } },
  ];
  const started: ServiceProcessUnderTest[] = [];
  const stop = async () => {
    for (const p of [...started].reverse()) await p.stop();
  };
  try {
    for (const spec of specs) {
      started.push(
        await startServiceProcess({
          ...spec,
          natsPrefix: sandbox.natsPrefix,
          redisPrefix: sandbox.redisPrefix,
          logFolder: 'dashboard-tests',
        }),
      );
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const [account, message, deviceHub, webhook] = started;
  return {
    env: {
      ACCOUNT_GRPC_ADDR: account!.address,
      MESSAGE_GRPC_ADDR: message!.address,
      DEVICE_HUB_GRPC_ADDR: deviceHub!.address,
      WEBHOOK_GRPC_ADDR: webhook!.address,
      GRPC_DEADLINE_MS: '5000',
    },
    agentCaPem: certs.caPem,
    accountSchema: account!.schema,
    stop,
  };
}

/** POST /v1/agent/pair as a phone does with the pairing URL of a phone's card: the hub's status and answer. */
export function pairWith(pairingUrl: string, caPem: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(pairingUrl);
  const text = JSON.stringify({ pairing_code: url.searchParams.get('code') });
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL('/v1/agent/pair', url),
      {
        method: 'POST',
        ca: caPem,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** A sandbox for the dashboard and its upstreams: the Redis and NATS prefixes they share. */
export const dashboardSandbox = () => createSandbox({ name: 'dashboard', redis: true, database: false });

/** What a stream of server-sent events sends when it opens: its chunks until none comes for 300 ms. */
async function opening(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const quiet = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 300)));
    const chunk = await Promise.race([reader.read(), quiet]);
    clearTimeout(timer);
    if (!chunk || chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  await reader.cancel();
  return text;
}

export interface Page {
  status: number;
  /** Where a redirect points (`Location`), or ''. */
  location: string;
  headers: Headers;
  text: string;
}

/**
 * A browser of one person: it keeps its cookies, sends them back, takes the
 * CSRF token of the last page it read for its next form, and comes from an
 * address of its own (the proxy's `X-Forwarded-For`), so that the per-address
 * limits of one test do not reach another.
 */
export class Browser {
  private readonly cookies = new Map<string, string>();
  private csrf = '';
  readonly address = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;

  constructor(private readonly base: string) {}

  get(page: string): Promise<Page> {
    return this.request(page, { method: 'GET' });
  }

  /** Posts `fields` with the CSRF token of the last page read (or `_csrf` when `fields` has one). */
  post(page: string, fields: Record<string, string | string[]> = {}): Promise<Page> {
    const body = new URLSearchParams({ _csrf: this.csrf });
    for (const [name, value] of Object.entries(fields)) {
      body.delete(name);
      for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
    }
    return this.request(page, { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  /**
   * Opens a page that streams (server-sent events) and keeps it open, as a tab does: its status,
   * what it answered at once when it is not a stream, and how to close it.
   */
  async hold(page: string): Promise<{ status: number; text: string; close(): Promise<void> }> {
    const res = await fetch(`${this.base}${page}`, {
      headers: { ...HTTPS, 'x-forwarded-for': this.address, cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      return { status: res.status, text: await res.text(), close: async () => undefined };
    }
    const reader = res.body!.getReader();
    await reader.read();
    return { status: res.status, text: '', close: () => reader.cancel() };
  }

  /** The session cookie's value, or undefined when signed out. */
  get session(): string | undefined {
    return this.cookies.get('__Host-smsgw_session');
  }

  private async request(page: string, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<Page> {
    const res = await fetch(`${this.base}${page}`, {
      ...init,
      redirect: 'manual',
      headers: {
        ...HTTPS,
        'x-forwarded-for': this.address,
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...init.headers,
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      if (value) this.cookies.set(name, value);
      else this.cookies.delete(name);
    }
    // A stream of server-sent events never ends: its opening is read, then the browser leaves.
    const text = (res.headers.get('content-type') ?? '').startsWith('text/event-stream') ? await opening(res) : await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text);
    if (token) this.csrf = token[1]!;
    return { status: res.status, location: res.headers.get('location') ?? '', headers: res.headers, text };
  }
}
