import { keyModeToProto, modeFromProto, type Callers } from '@smsgw/platform';
import type { AsyncHandlers } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { AccountRepository } from '../data/account.repository';
import type { AuditRepository } from '../data/audit.repository';
import type { MembersRepository } from '../data/members.repository';
import type { TwoFactorRepository } from '../data/two-factor.repository';
import { listAuditEvents, recordAuditEvent } from '../use-cases/audit.use-case';
import {
  acceptInvitation,
  changeMemberRole,
  getInvitation,
  inviteMember,
  listMembers,
  removeMember,
  withdrawInvitation,
} from '../use-cases/members.use-case';
import {
  beginTotpEnrolment,
  confirmTotpEnrolment,
  disableTwoFactor,
  setTwoFactorRequired,
  verifySecondFactor,
} from '../use-cases/two-factor.use-case';
import { createApiKey, listApiKeys, revokeApiKey, revokeApiKeyById, verifyApiKey } from '../use-cases/api-keys.use-case';
import { createClient, getClient, markAccountVerified, rotateSigningSecret, signUp, updateClient } from '../use-cases/clients.use-case';
import { changePassword, getUser, signIn } from '../use-cases/users.use-case';
import {
  issueEmailVerification,
  issuePasswordReset,
  resetPassword,
  verifyEmail,
  type EmailLinkSettings,
} from '../use-cases/email-links.use-case';
import { auditEventOut, clientOut, invitationOut, keyOut, NO_USER, userOut } from './account.mapper';
import type { SmppCredentialRepository } from '../data/smpp-credential.repository';
import { smppCredentialCallers, smppCredentialHandlers } from './smpp.handlers';

/**
 * Who may call each method, by the identity of its client certificate (docs/operators/security.md lists them all).
 * A new method must be listed here; startGrpcService refuses any other caller with PERMISSION_DENIED.
 */
export const accountCallers: Callers<account.AccountServiceHandlers> = {
  CreateClient: ['admin'],
  GetClient: ['dashboard', 'webhook', 'admin', 'device-hub'],
  CreateApiKey: ['dashboard', 'admin'],
  VerifyApiKey: ['gateway'],
  RevokeApiKey: ['admin'],
  GetSigningSecret: ['dashboard', 'webhook', 'admin'],
  SignUp: ['dashboard', 'admin'],
  SignIn: ['dashboard'],
  GetUser: ['dashboard'],
  ChangePassword: ['dashboard'],
  UpdateClient: ['dashboard', 'admin'],
  ListApiKeys: ['dashboard'],
  RevokeApiKeyById: ['dashboard'],
  RotateSigningSecret: ['dashboard'],
  IssueEmailVerification: ['dashboard'],
  VerifyEmail: ['dashboard'],
  IssuePasswordReset: ['dashboard'],
  ResetPassword: ['dashboard'],
  MarkAccountVerified: ['admin'],
  ListAuditEvents: ['dashboard'],
  RecordAuditEvent: ['dashboard'],
  InviteMember: ['dashboard'],
  GetInvitation: ['dashboard'],
  AcceptInvitation: ['dashboard'],
  ListMembers: ['dashboard'],
  ChangeMemberRole: ['dashboard'],
  RemoveMember: ['dashboard'],
  WithdrawInvitation: ['dashboard'],
  BeginTotpEnrolment: ['dashboard'],
  ConfirmTotpEnrolment: ['dashboard'],
  VerifySecondFactor: ['dashboard'],
  DisableTwoFactor: ['dashboard'],
  SetTwoFactorRequired: ['dashboard'],
  ...smppCredentialCallers,
};

/** The gRPC methods of `smsgw.account.v1.AccountService`: each reads its request, runs one use case, maps the answer. */
export function accountHandlers(
  repo: AccountRepository,
  links: EmailLinkSettings,
  audit: AuditRepository,
  members: MembersRepository,
  twoFactor: TwoFactorRepository,
  smpp: SmppCredentialRepository,
): AsyncHandlers<account.AccountServiceHandlers> {
  const repos = { repo, audit };
  const memberRepos = { repo, members };
  const factorRepos = { repo, audit, twoFactor };
  return {
    ...smppCredentialHandlers({ repo, audit, smpp }),
    async CreateClient(req) {
      return createClient(repo, req.email.trim(), req.name.trim());
    },

    async GetClient(req) {
      return clientOut(await getClient(repo, req.clientId));
    },

    async CreateApiKey(req) {
      const limits = { scopes: req.scopes ?? [], ipRanges: req.ipRanges ?? [], dailyQuota: req.dailyQuota };
      return createApiKey(repos, req.clientId, modeFromProto(req.mode), req.label, limits, {
        userId: req.createdByUserId || undefined,
        address: req.actorAddress,
      });
    },

    async VerifyApiKey(req) {
      const key = await verifyApiKey(repo, req.apiKey, req.clientId);
      return {
        clientId: key.client_id,
        mode: keyModeToProto(key.mode),
        keyId: key.key_id,
        defaultTtlSeconds: key.default_ttl_seconds,
        smsCountries: key.sms_countries,
        otpCountries: key.otp_countries,
        otpNumberTypes: key.otp_number_types,
        scopes: key.scopes,
        ipRanges: key.ip_ranges,
        dailyQuota: key.daily_quota,
      };
    },

    async RevokeApiKey(req) {
      const { keyId, revokedAt } = await revokeApiKey(repos, req.apiKey);
      return { keyId, revokedAt: revokedAt.toISOString() };
    },

    async GetSigningSecret(req) {
      const client = await getClient(repo, req.clientId);
      return { clientId: client.client_id, secret: client.signing_secret };
    },

    async SignUp(req) {
      const { user, liveApiKey, testApiKey } = await signUp(repo, req.email.trim(), req.name.trim(), req.password);
      return { user: userOut(user), liveApiKey, testApiKey };
    },

    async SignIn(req) {
      const user = await signIn(repos, req.email.trim(), req.password, { address: req.actorAddress, confirm: req.confirm });
      return user ? userOut(user) : NO_USER;
    },

    async GetUser(req) {
      return userOut(await getUser(repo, req.userId));
    },

    async ChangePassword(req) {
      return { changed: await changePassword(repos, req.userId, req.currentPassword, req.newPassword, req.actorAddress) };
    },

    async UpdateClient(req) {
      const fleet = req.setFleet ? { defaultTtlSeconds: req.defaultTtlSeconds, failoverDelaySeconds: req.failoverDelaySeconds } : undefined;
      const sims = req.setSimRule ? { simRule: req.simRule.trim(), defaultSim: req.defaultSim } : undefined;
      const destinations = req.setDestinations
        ? { smsCountries: req.smsCountries, otpCountries: req.otpCountries, otpNumberTypes: req.otpNumberTypes }
        : undefined;
      return clientOut(
        await updateClient(repo, req.clientId, { email: req.email.trim(), name: req.name.trim(), fleet, sims, destinations }),
      );
    },

    async ListApiKeys(req) {
      return { keys: (await listApiKeys(repo, req.clientId)).map(keyOut) };
    },

    async RevokeApiKeyById(req) {
      const by = { userId: req.userId || undefined, address: req.actorAddress };
      return { keyId: req.keyId, revokedAt: (await revokeApiKeyById(repos, req.clientId, req.keyId, by)).toISOString() };
    },

    async RotateSigningSecret(req) {
      return { clientId: req.clientId, secret: await rotateSigningSecret(repo, req.clientId) };
    },

    async IssueEmailVerification(req) {
      return issueEmailVerification(repo, links, req.clientId);
    },

    async VerifyEmail(req) {
      return verifyEmail(repo, req.token);
    },

    async IssuePasswordReset(req) {
      return issuePasswordReset(repo, links, req.email.trim());
    },

    async ResetPassword(req) {
      const reset = await resetPassword(repo, req.token, req.newPassword);
      return reset ? { user: userOut(reset.user), firstProof: reset.firstProof, revokedKeys: reset.revokedKeys } : { user: NO_USER };
    },

    async ListAuditEvents(req) {
      const events = await listAuditEvents(audit, req.clientId, {
        action: req.action,
        actor: req.actor,
        from: req.from,
        to: req.to,
        limit: req.limit,
        beforeEventId: req.beforeEventId,
      });
      return { events: events.map(auditEventOut) };
    },

    async MarkAccountVerified(req) {
      return clientOut(await markAccountVerified(repo, req.clientId));
    },

    async RecordAuditEvent(req) {
      await recordAuditEvent(repos, { ...req, address: req.actorAddress });
      return {};
    },

    async InviteMember(req) {
      return inviteMember(memberRepos, { ...req, email: req.email.trim(), address: req.actorAddress });
    },

    async GetInvitation(req) {
      return invitationOut(await getInvitation(members, req.token));
    },

    async AcceptInvitation(req) {
      const user = await acceptInvitation(members, { token: req.token, password: req.password, address: req.actorAddress });
      return user ? userOut(user) : NO_USER;
    },

    async ListMembers(req) {
      const listed = await listMembers(memberRepos, req.clientId);
      return { members: listed.members.map(userOut), invitations: listed.invitations.map(invitationOut) };
    },

    async ChangeMemberRole(req) {
      return userOut(await changeMemberRole(memberRepos, { ...req, address: req.actorAddress }));
    },

    async RemoveMember(req) {
      return userOut(await removeMember(memberRepos, { ...req, address: req.actorAddress }));
    },

    async WithdrawInvitation(req) {
      return invitationOut(await withdrawInvitation(memberRepos, { ...req, address: req.actorAddress }));
    },

    async BeginTotpEnrolment(req) {
      return beginTotpEnrolment(factorRepos, req.userId);
    },

    async ConfirmTotpEnrolment(req) {
      return { recoveryCodes: await confirmTotpEnrolment(factorRepos, { ...req, address: req.actorAddress }) };
    },

    async VerifySecondFactor(req) {
      return { valid: await verifySecondFactor(factorRepos, { ...req, address: req.actorAddress }) };
    },

    async DisableTwoFactor(req) {
      await disableTwoFactor(factorRepos, { userId: req.userId, address: req.actorAddress });
      return { valid: true };
    },

    async SetTwoFactorRequired(req) {
      await setTwoFactorRequired(factorRepos, { ...req, address: req.actorAddress });
      return clientOut(await getClient(repo, req.clientId));
    },
  };
}
