import type Router from '@koa/router';
import type { DashContext, DashState } from './context';

/** A member's role in its account (the account service's, read on every request). */
export type Role = 'owner' | 'admin' | 'developer' | 'support';
export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'support'];

/**
 * What a route needs. `self`: every member, even one that must enrol a second factor first (its
 * own profile, signing out); `overview`: every member; `read`: the account's pages but history's;
 * `history`: messages, statistics, campaigns, the inbox and opt-outs read.
 */
export type Permission =
  | 'self'
  | 'overview'
  | 'read'
  | 'history'
  | 'inbox.reply'
  | 'opt-outs.manage'
  | 'keys.read'
  | 'keys.test'
  | 'keys.live'
  | 'phones'
  | 'webhooks'
  | 'campaigns'
  | 'settings'
  | 'secrets'
  | 'audit'
  | 'members';

const EVERY: readonly Permission[] = [
  'self',
  'overview',
  'read',
  'history',
  'inbox.reply',
  'opt-outs.manage',
  'keys.read',
  'keys.test',
  'keys.live',
  'phones',
  'webhooks',
  'campaigns',
  'settings',
  'secrets',
  'audit',
  'members',
];

/** What each role may do (docs/operators/security.md#members-and-roles). */
export const GRANTS: Record<Role, readonly Permission[]> = {
  owner: EVERY,
  admin: EVERY.filter((p) => p !== 'members'),
  developer: ['self', 'overview', 'read', 'history', 'keys.read', 'keys.test'],
  support: ['self', 'overview', 'history', 'inbox.reply', 'opt-outs.manage'],
};

export const may = (role: Role | undefined, permission: Permission): boolean => !!role && GRANTS[role].includes(permission);

/**
 * Every route of the signed-in pages and what it needs: one table, checked before the route runs.
 * A route missing from it cannot start (guardRoutes throws): nothing is open by omission.
 */
export const ROUTE_ACCESS: Record<string, Permission> = {
  'GET /': 'overview',
  'POST /signout': 'self',
  'GET /profile': 'self',
  'POST /profile/password': 'self',
  'POST /profile/two-factor/begin': 'self',
  'POST /profile/two-factor/confirm': 'self',
  'POST /profile/two-factor/disable': 'self',
  'POST /profile/leave': 'self',

  'GET /members': 'members',
  'POST /members/invite': 'members',
  'POST /members/withdraw': 'members',
  'POST /members/:userId/role': 'members',
  'POST /members/:userId/remove': 'members',
  'POST /members/two-factor': 'members',

  'GET /settings': 'read',
  'POST /settings/secret': 'secrets',
  'POST /settings/secret/rotate': 'secrets',
  'POST /settings/alerts': 'settings',
  'POST /settings/fleet': 'settings',
  'POST /settings/destinations': 'settings',
  'POST /settings/verify-email': 'settings',
  'POST /settings/password': 'self',

  // A live key needs keys.live too: the route checks it once it knows the key's mode.
  'GET /keys': 'keys.read',
  'POST /keys': 'keys.test',
  // SMPP credentials bind in live or test mode: the secrets of owners and admins.
  'GET /smpp': 'keys.read',
  'POST /smpp': 'keys.live',
  'POST /smpp/:credentialId/revoke': 'keys.live',
  'POST /keys/:keyId/revoke': 'keys.test',

  'GET /phones': 'read',
  'GET /phones/events': 'read',
  'GET /phones/:deviceId': 'read',
  'POST /phones': 'phones',
  'POST /phones/settings': 'phones',
  'POST /phones/:deviceId/limits': 'phones',
  'POST /phones/:deviceId/rename': 'phones',
  'POST /phones/:deviceId/rotate': 'phones',
  'POST /phones/:deviceId/revoke': 'phones',
  'POST /phones/:deviceId/remove': 'phones',
  'POST /phones/:deviceId/sim-health': 'phones',
  'POST /phones/:deviceId/sims/:slot/release': 'phones',
  'POST /phones/:deviceId/log': 'phones',

  'GET /webhooks': 'read',
  'GET /webhooks/:endpointId': 'read',
  'POST /webhooks': 'webhooks',
  'POST /webhooks/:endpointId/test': 'webhooks',
  'POST /webhooks/:endpointId/enable': 'webhooks',
  'POST /webhooks/:endpointId/disable': 'webhooks',
  'POST /webhooks/:endpointId/batch': 'webhooks',
  'POST /webhooks/:endpointId/single': 'webhooks',
  'POST /webhooks/:endpointId/delete': 'webhooks',
  'POST /webhooks/:endpointId/replay': 'webhooks',

  'GET /messages': 'history',
  'GET /messages/:messageId': 'history',
  'GET /stats': 'history',
  'GET /campaigns': 'history',
  'GET /campaigns/:campaignId': 'history',
  'GET /campaigns/new': 'campaigns',
  'POST /campaigns/new': 'campaigns',
  'GET /campaigns/new/:uploadId': 'campaigns',
  'POST /campaigns/new/:uploadId/preview': 'campaigns',
  'POST /campaigns/new/:uploadId/send': 'campaigns',
  'POST /campaigns/new/:uploadId/discard': 'campaigns',
  'POST /campaigns/:campaignId/pause': 'campaigns',
  'POST /campaigns/:campaignId/resume': 'campaigns',
  'POST /campaigns/:campaignId/cancel': 'campaigns',

  'GET /inbox': 'history',
  'GET /inbox/open': 'history',
  'GET /inbox/:number': 'history',
  'POST /inbox/:number/reply': 'inbox.reply',
  'GET /opt-outs': 'history',
  'POST /opt-outs': 'opt-outs.manage',
  'POST /opt-outs/remove': 'opt-outs.manage',
  'POST /opt-outs/settings': 'opt-outs.manage',

  'GET /otp': 'read',
  'POST /otp/holds/:holdId/release': 'settings',
  'POST /otp/guard': 'settings',

  'GET /audit': 'audit',
  'GET /audit.csv': 'audit',
};

/** What a refused page says: the role, and who can help. */
export const refusalOf = (role: Role | undefined, permission: Permission): string =>
  `Your role in this account (${role ?? 'none'}) does not allow this (it needs "${permission}"). Ask an owner of the account if you need it.`;

/** The navigation's sections and what showing each needs. */
export const SECTION_ACCESS: Record<string, Permission> = {
  overview: 'overview',
  messages: 'history',
  campaigns: 'history',
  inbox: 'history',
  'opt-outs': 'history',
  statistics: 'history',
  otp: 'read',
  phones: 'read',
  keys: 'keys.read',
  smpp: 'keys.read',
  webhooks: 'read',
  settings: 'read',
  audit: 'audit',
  members: 'members',
  profile: 'self',
};

/** The sections a role sees in the navigation. */
export const sectionsOf = (role: Role | undefined): string[] =>
  Object.entries(SECTION_ACCESS)
    .filter(([, permission]) => may(role, permission))
    .map(([section]) => section);

/**
 * Puts each route's check in front of its handlers: the member's role (ctx.state.member, read on
 * this request) must grant the route's permission, else 403. Throws when a route is not in
 * ROUTE_ACCESS. While the account requires a second factor the member has not enrolled, only its
 * own pages open (the others lead to the profile's enrolment).
 */
export function guardRoutes(router: Router<DashState>, refuse: (ctx: DashContext, permission: Permission) => void): void {
  for (const layer of router.stack) {
    for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
      const permission = ROUTE_ACCESS[`${method} ${layer.path}`];
      if (!permission) throw new Error(`dashboard route ${method} ${layer.path} has no entry in ROUTE_ACCESS`);
      layer.stack.unshift(async (ctx: DashContext, next: () => Promise<unknown>) => {
        if (ctx.method !== method && !(method === 'GET' && ctx.method === 'HEAD')) return next();
        const member = ctx.state.member;
        if (member?.mustEnrol && permission !== 'self') return ctx.redirect('/profile?enrol=1');
        if (!may(member?.role, permission)) return refuse(ctx, permission);
        return next();
      });
    }
  }
}
