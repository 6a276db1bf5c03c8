import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { AppError, ERROR_CATALOG, recordHttp, settleForwardedHeaders } from '@smsgw/platform';
import { problemView } from '../views/error.view';
import { cookieOptions, explain, page, SESSION_COOKIE, type AppDeps, type DashContext, type DashState } from './context';
import { currentMember } from '../use-cases/members.use-case';
import { guardRoutes, refusalOf } from './access';
import { accountRoutes } from './routes/account.routes';
import { memberRoutes } from './routes/members.routes';
import { profileRoutes } from './routes/profile.routes';
import { auditRoutes } from './routes/audit.routes';
import { keyRoutes } from './routes/keys.routes';
import { campaignRoutes, UPLOAD_PATH } from './routes/campaign.routes';
import { readUploadForm } from './upload-form';
import { inboxRoutes } from './routes/inbox.routes';
import { messageRoutes } from './routes/message.routes';
import { optOutRoutes } from './routes/opt-out.routes';
import { smppRoutes } from './routes/smpp.routes';
import { otpRoutes } from './routes/otp.routes';
import { downloadRoutes, phoneRoutes } from './routes/phone.routes';
import { webhookRoutes } from './routes/webhook.routes';

const FORM_CSRF_COOKIE = '__Host-smsgw_form';
const PUBLIC_DIR = path.resolve(__dirname, '../../public');

/** The strict policy: only this origin's own script and style, no inline code, no framing. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A form's limit: 64 KiB (a campaign's file is read as it comes, on its own terms: readUploadForm). */
const FORM_LIMIT = 64 * 1024;

async function readForm(ctx: DashContext): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) return new URLSearchParams();
  if (ctx.state.session && ctx.path === UPLOAD_PATH) {
    const { fields, csv } = await readUploadForm(ctx.req);
    ctx.state.csv = csv;
    // A body refused half-way is not read to its end: the connection goes with the answer.
    if ('error' in csv && csv.tooLarge) ctx.set('Connection', 'close');
    return fields;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT) ctx.throw(413, 'Form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export function createApp(deps: AppDeps): Koa<DashState> {
  const app = new Koa<DashState>();
  const trusted = deps.trustedProxies;
  // Koa reads the forwarded headers (ctx.secure, ctx.ip) once settleForwardedHeaders has rewritten them to what a trusted proxy said.
  app.proxy = trusted !== undefined;
  app.maxIpsCount = 1;
  app.use(async (ctx, next) => {
    const origin = trusted ? settleForwardedHeaders(ctx.req, trusted) : { ip: ctx.req.socket.remoteAddress, clientKnown: true };
    ctx.state.clientAddress = origin.clientKnown ? origin.ip : undefined;
    await next();
  });
  const statics = {
    '/static/app.js': { type: 'application/javascript; charset=utf-8', body: fs.readFileSync(path.join(PUBLIC_DIR, 'app.js')) },
    '/static/envelope.js': { type: 'application/javascript; charset=utf-8', body: fs.readFileSync(path.join(PUBLIC_DIR, 'envelope.js')) },
    '/static/app.css': { type: 'text/css; charset=utf-8', body: fs.readFileSync(path.join(PUBLIC_DIR, 'app.css')) },
  } as Record<string, { type: string; body: Buffer }>;

  // RED per page: the route pattern, never the path (it holds ids).
  app.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? (ctx.path.startsWith('/static/') ? ctx.path : 'unmatched');
      recordHttp(route, ctx.method, ctx.status, (performance.now() - started) / 1000);
    }
  });

  // Probes: liveness is the process answering; readiness is Redis (the sessions) answering too.
  app.use(async (ctx, next) => {
    if (ctx.method !== 'GET' || (ctx.path !== '/healthz' && ctx.path !== '/readyz')) return next();
    const down = ctx.path === '/readyz' ? await deps.unready() : [];
    ctx.status = down.length === 0 ? 200 : 503;
    ctx.body =
      down.length === 0
        ? { success: true }
        : {
            success: false,
            error: {
              code: 'SERVICE_UNAVAILABLE',
              message: ERROR_CATALOG.SERVICE_UNAVAILABLE.message,
              details: down.map((field) => ({ field, code: 'SERVICE_UNAVAILABLE' })),
            },
          };
    if (down.length > 0) ctx.set('Retry-After', '5');
  });

  // Errors become a page in words; the details go to the log only.
  app.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && !ctx.body) throw new AppError('NOT_FOUND');
    } catch (err) {
      const status = err instanceof AppError ? ERROR_CATALOG[err.code].http : ((err as { status?: number }).status ?? 500);
      if (status >= 500) deps.log.error({ err, path: ctx.path }, 'dashboard request failed');
      ctx.status = status;
      page(
        ctx,
        status === 404 ? 'Not found' : 'Something went wrong',
        '',
        problemView(status === 404 ? 'This page does not exist, or it is not yours.' : explain(err), true),
      );
    }
  });

  app.use(async (ctx, next) => {
    if (!ctx.secure) {
      // Only behind a proxy that received this request over plain HTTP: its cookies would leak.
      ctx.status = 403;
      page(ctx, 'HTTPS required', '', problemView('The dashboard is served over HTTPS only.'));
      return;
    }
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Strict-Transport-Security', 'max-age=31536000');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    const asset = statics[ctx.path];
    if (asset && ctx.method === 'GET') {
      ctx.type = asset.type;
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = asset.body;
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    await next();
  });

  // The session, from its cookie; forms are read and their CSRF token checked.
  app.use(async (ctx, next) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (token) {
      ctx.state.session = await deps.sessions.get(token);
      if (ctx.state.session) ctx.state.token = token;
    }
    if (ctx.method === 'POST') {
      ctx.state.form = await readForm(ctx);
      const expected = ctx.state.session?.csrf ?? ctx.cookies.get(FORM_CSRF_COOKIE) ?? '';
      if (!sameToken(ctx.state.form.get('_csrf') ?? '', expected)) {
        ctx.status = 403;
        page(
          ctx,
          'Form expired',
          '',
          problemView('This form expired or did not come from this site. Please go back, reload the page and try again.'),
        );
        return;
      }
    }
    if (!ctx.state.session) {
      // Anonymous forms (sign-in, sign-up) carry a token of their own, double-submitted.
      ctx.state.formToken = ctx.cookies.get(FORM_CSRF_COOKIE);
      if (!ctx.state.formToken) {
        ctx.state.formToken = randomBytes(24).toString('base64url');
        ctx.cookies.set(FORM_CSRF_COOKIE, ctx.state.formToken, cookieOptions());
      }
    }
    await next();
  });

  const open = new Router<DashState>();
  accountRoutes(open, deps, 'public');
  memberRoutes(open, deps, 'public');
  profileRoutes(open, deps, 'public');
  downloadRoutes(open, deps);
  app.use(open.routes());

  // Everything else needs a session of a member still in the account: the pages of the signed-in account only.
  app.use(async (ctx, next) => {
    const session = ctx.state.session;
    const member = session && (await currentMember(deps.up, session));
    if (session && !member) {
      // Removed from the account (or moved): this session ends here, on whichever replica it comes to.
      await deps.sessions.end(ctx.state.token!);
      ctx.cookies.set(SESSION_COOKIE, '', cookieOptions(0));
      ctx.state.session = undefined;
    }
    if (!ctx.state.session) {
      if (ctx.method === 'GET' && !ctx.path.endsWith('/events')) return ctx.redirect(`/signin?next=${encodeURIComponent(ctx.path)}`);
      ctx.status = 401;
      return;
    }
    ctx.state.member = member;
    await next();
  });
  const router = new Router<DashState>();
  accountRoutes(router, deps, 'private');
  memberRoutes(router, deps, 'private');
  profileRoutes(router, deps, 'private');
  keyRoutes(router, deps);
  smppRoutes(router, deps);
  phoneRoutes(router, deps);
  messageRoutes(router, deps);
  campaignRoutes(router, deps);
  inboxRoutes(router, deps);
  optOutRoutes(router, deps);
  otpRoutes(router, deps);
  auditRoutes(router, deps);
  webhookRoutes(router, deps);
  // Each route's role check, from the one table of access.ts.
  guardRoutes(router, (ctx, permission) => {
    ctx.status = 403;
    page(ctx, 'Not allowed', '', problemView(refusalOf(ctx.state.member?.role, permission), true));
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
