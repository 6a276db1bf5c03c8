import { keyModeToProto } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { ClientRow, KeyListRow, UserRow } from '../data/account.repository';
import type { AuditRow } from '../data/audit.repository';
import type { InvitationRow } from '../data/members.repository';
import { KEY_PREFIX } from '../domain/api-key';

export const userOut = (u: UserRow) => ({
  userId: u.user_id,
  email: u.email,
  clientId: u.client_id,
  createdAt: u.created_at.toISOString(),
  role: u.role,
  twoFactor: u.totp_enabled_at !== null,
  twoFactorRequired: u.require_two_factor ?? false,
});

/** The answer to a failed sign-in: no user, whatever was wrong. */
export const NO_USER = { userId: '', email: '', clientId: '', createdAt: '', role: '', twoFactor: false, twoFactorRequired: false };

export const invitationOut = (i: InvitationRow | undefined): account.Invitation =>
  i
    ? { email: i.email, role: i.role, clientId: i.client_id, clientName: i.client_name, expiresAt: i.expires_at.toISOString() }
    : { email: '', role: '', clientId: '', clientName: '', expiresAt: '' };

export const clientOut = (c: ClientRow) => ({
  clientId: c.client_id,
  email: c.email,
  name: c.name,
  createdAt: c.created_at.toISOString(),
  emailVerified: c.email_verified_at !== null,
  defaultTtlSeconds: c.default_ttl_seconds,
  failoverDelaySeconds: c.failover_delay_seconds,
  simRule: c.sim_rule,
  defaultSim: c.default_sim,
  accountVerified: c.account_verified_at !== null,
  smsCountries: c.sms_countries,
  otpCountries: c.otp_countries,
  otpNumberTypes: c.otp_number_types,
  requireTwoFactor: c.require_two_factor,
});

/** A key as the dashboard lists it: its prefix and first characters only. */
export function keyOut(k: KeyListRow): account.ApiKey {
  return {
    keyId: k.key_id,
    mode: keyModeToProto(k.mode),
    label: k.label,
    prefix: `${KEY_PREFIX[k.mode]}${k.lookup.slice(0, 6)}…`,
    createdAt: k.created_at.toISOString(),
    lastUsedAt: k.last_used_at?.toISOString() ?? '',
    revokedAt: k.revoked_at?.toISOString() ?? '',
    scopes: k.scopes,
    ipRanges: k.ip_ranges,
    dailyQuota: k.daily_quota,
    createdBy: k.created_by_email ?? '',
  };
}

/** An audit event as the dashboard reads it. */
export function auditEventOut(e: AuditRow): account.AuditEvent {
  return {
    eventId: e.event_id,
    at: e.at.toISOString(),
    actor: e.actor,
    address: e.address,
    action: e.action,
    target: e.target,
    detailsJson: JSON.stringify(e.details),
  };
}
