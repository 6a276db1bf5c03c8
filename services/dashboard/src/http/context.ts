import type Router from '@koa/router';
import type Koa from 'koa';
import { AppError, type Logger, type Redis, type TrustedProxies } from '@smsgw/platform';
import type { DeviceEvents } from '../live/device-events';
import type { Mailer } from '../mail/mailer';
import type { EmailLimits } from '../use-cases/email-links.use-case';
import type { Upstreams } from '../use-cases/upstreams';
import { layout, type PageContext } from '../views/layout';
import type { SafeHtml } from '../views/html';
import { sectionsOf, type Role } from './access';
import type { Session, SessionStore } from './session';
import type { UploadedCsv } from './upload-form';

/**
 * What the app and its route files share: the request state, the dependencies,
 * the session cookie and the helpers that answer a page. Its own module so that
 * the routes need not import app.ts, which imports them.
 */
export interface DashState {
  session?: Session;
  token?: string;
  form?: URLSearchParams;
  /** The anonymous forms' token (its cookie may be set by this very response). */
  formToken?: string;
  /** The caller's address, for limits per address; undefined when a trusted proxy hid it (such limits then do not apply). */
  clientAddress?: string;
  /** The campaign upload form's file, read as it came (readUploadForm). */
  csv?: UploadedCsv;
  /** The signed-in member as the account service knows it on this very request (its role, its second factor). */
  member?: Member;
}

export interface Member {
  role: Role;
  twoFactor: boolean;
  /** The account requires a second factor this member has not enrolled yet: only its own pages open. */
  mustEnrol: boolean;
}

export type DashContext = Koa.ParameterizedContext<DashState>;
export type DashRouter = Router<DashState>;

export interface AppDeps {
  up: Upstreams;
  sessions: SessionStore;
  redis: Redis;
  deviceEvents: DeviceEvents;
  signIn: { maxFailures: number; windowMs: number };
  /** Sign-ups allowed per address in the window. */
  signUpLimit: { maxPerAddress: number; windowMs: number };
  /** Live phone-state streams one account may hold open on this replica (DeviceEvents refuses more). */
  liveStreamsPerAccount: number;
  /** Test events an account may send in the window. */
  testEventLimit: { maxPerAccount: number; windowMs: number };
  /** Verification and password reset e-mails. */
  mailer: Mailer;
  /** The dashboard's own address, for the links mailed. */
  publicUrl(): string;
  /** Where SMPP clients connect (host:port of the SMPP server over TLS), shown on the SMPP page. */
  smppAddress?: string;
  emailLimits: EmailLimits;
  log: Logger;
  /** Behind a TLS-terminating proxy: its addresses, whose `X-Forwarded-*` headers are believed; what it did not receive over HTTPS is refused. */
  trustedProxies?: TrustedProxies;
  /** The dependencies that are down (none: ready), for GET /readyz. */
  unready(): Promise<string[]>;
  /** The phone app's APK offered on the Phones page (absent: not built here). */
  apkFile?: string;
}

export const SESSION_COOKIE = '__Host-smsgw_session';

export const cookieOptions = (maxAgeMs?: number) => ({
  httpOnly: true,
  secure: true,
  sameSite: 'strict' as const,
  path: '/',
  overwrite: true,
  maxAge: maxAgeMs,
});

/** The page for the signed-in user, with the navigation and the session's CSRF token. */
export function page(ctx: DashContext, title: string, section: string, body: SafeHtml): void {
  const s = ctx.state.session;
  const member = ctx.state.member;
  const pc: PageContext = {
    user: s && { email: s.email, clientId: s.clientId, role: member?.role },
    csrf: s?.csrf,
    section,
    sections: member && (member.mustEnrol ? ['profile'] : sectionsOf(member.role)),
  };
  ctx.type = 'html';
  ctx.body = layout(title, pc, body);
}

export const pageContext = (ctx: DashContext): PageContext => ({ csrf: ctx.state.session?.csrf ?? ctx.state.formToken ?? '' });

/** The signed-in member acting, and the address it acts from: the audit log's who and where. */
export const actorOf = (ctx: DashContext) => ({
  userId: ctx.state.session!.userId,
  clientId: ctx.state.session!.clientId,
  address: ctx.state.clientAddress,
});

/** A form field, trimmed ('' when absent). */
export const field = (ctx: DashContext, name: string) => (ctx.state.form?.get(name) ?? '').trim();

/** What a failed call says to a person: the service's message, and the fields' own when it has them. */
export function explain(err: unknown): string {
  if (!(err instanceof AppError)) return 'Something went wrong on our side. Please try again.';
  const details = (err.details ?? []).map((d) => d.message).filter(Boolean);
  return details.length > 0 ? details.join(' ') : err.message;
}
