/**
 * The actions the audit log records (docs/operators/security.md#the-audit-log): the account
 * service checks a filter against them, the dashboard offers them in its filter.
 */
export const AUDIT_ACTIONS = [
  'user.signed_in',
  'user.sign_in_failed',
  'member.invited',
  'member.invitation_withdrawn',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'key.created',
  'key.revoked',
  'secret.shown',
  'secret.rotated',
  'phone.added',
  'phone.credentials_rotated',
  'phone.revoked',
  'phone.removed',
  'webhook.created',
  'webhook.changed',
  'webhook.deleted',
  'settings.changed',
  'password.changed',
  'two_factor.enabled',
  'two_factor.disabled',
  'two_factor.required',
  'smpp.created',
  'smpp.revoked',
] as const;
