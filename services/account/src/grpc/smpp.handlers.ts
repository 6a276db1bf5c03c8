import { AppError, keyModeToProto, modeFromProto, type AsyncHandlers, type Callers } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { AccountRepository } from '../data/account.repository';
import type { AuditRepository } from '../data/audit.repository';
import type { SmppCredentialRepository, SmppCredentialRow } from '../data/smpp-credential.repository';
import type { SmppBindType } from '../domain/smpp-credential';
import { createSmppCredential, listSmppCredentials, revokeSmppCredential, verifySmppBind } from '../use-cases/smpp-credentials.use-case';

type SmppMethods = Pick<
  account.AccountServiceHandlers,
  'CreateSmppCredential' | 'ListSmppCredentials' | 'RevokeSmppCredential' | 'VerifySmppBind'
>;

/** The dashboard manages the credentials; the smpp service alone checks binds. */
export const smppCredentialCallers: Callers<SmppMethods> = {
  CreateSmppCredential: ['dashboard', 'admin'],
  ListSmppCredentials: ['dashboard', 'admin'],
  RevokeSmppCredential: ['dashboard', 'admin'],
  VerifySmppBind: ['smpp'],
};

const BIND_TYPES: Record<string, SmppBindType> = {
  SMPP_BIND_TYPE_TRANSMITTER: 'transmitter',
  SMPP_BIND_TYPE_RECEIVER: 'receiver',
  SMPP_BIND_TYPE_TRANSCEIVER: 'transceiver',
};

const BIND_TYPE_OUT: Record<SmppBindType, account.SmppBindType> = {
  transmitter: 'SMPP_BIND_TYPE_TRANSMITTER',
  receiver: 'SMPP_BIND_TYPE_RECEIVER',
  transceiver: 'SMPP_BIND_TYPE_TRANSCEIVER',
};

function bindTypeOf(value: string | number | undefined): SmppBindType {
  const type = BIND_TYPES[String(value)];
  if (!type) {
    const message = 'Le type de connexion doit être transmitter, receiver ou transceiver.';
    throw new AppError('VALIDATION_ERROR', { message, details: [{ field: 'bind_type', code: 'VALIDATION_ERROR', message }] });
  }
  return type;
}

export function smppCredentialOut(c: SmppCredentialRow): account.SmppCredential {
  return {
    credentialId: c.credential_id,
    clientId: c.client_id,
    systemId: c.system_id,
    bindType: BIND_TYPE_OUT[c.bind_type],
    mode: keyModeToProto(c.mode),
    label: c.label,
    deviceId: c.device_id,
    createdAt: c.created_at.toISOString(),
    lastBoundAt: c.last_bound_at?.toISOString() ?? '',
    revokedAt: c.revoked_at?.toISOString() ?? '',
  };
}

/** The SMPP credentials' methods of `smsgw.account.v1.AccountService`. */
export function smppCredentialHandlers(repos: {
  repo: AccountRepository;
  audit: AuditRepository;
  smpp: SmppCredentialRepository;
}): AsyncHandlers<SmppMethods> {
  return {
    async CreateSmppCredential(req) {
      const fields = { bindType: bindTypeOf(req.bindType), mode: modeFromProto(req.mode), label: req.label, deviceId: req.deviceId };
      const by = { userId: req.userId || undefined, address: req.actorAddress };
      const { credential, password } = await createSmppCredential(repos, req.clientId, fields, by);
      return { credential: smppCredentialOut(credential), password };
    },

    async ListSmppCredentials(req) {
      return { credentials: (await listSmppCredentials(repos, req.clientId)).map(smppCredentialOut) };
    },

    async RevokeSmppCredential(req) {
      const by = { userId: req.userId || undefined, address: req.actorAddress };
      return smppCredentialOut(await revokeSmppCredential(repos, req.clientId, req.credentialId, by));
    },

    async VerifySmppBind(req) {
      const row = await verifySmppBind(repos, req.systemId, req.password, bindTypeOf(req.bindType));
      return { credential: smppCredentialOut(row), defaultTtlSeconds: row.default_ttl_seconds, smsCountries: row.sms_countries };
    },
  };
}
