import { AppError, modeFromProto, type FixedWindowCounter } from '@smsgw/platform';
import type { Upstreams } from '../grpc-clients/upstreams';

export type BindType = 'transmitter' | 'receiver' | 'transceiver';

/** A bound session's rights: the credential's client, mode and phone, and the client's send settings. */
export interface Binding {
  credentialId: string;
  systemId: string;
  clientId: string;
  mode: 'live' | 'test';
  type: BindType;
  /** The phone named for this credential; undefined: the fleet's choice. */
  deviceId?: string;
  defaultTtlSeconds: number;
  smsCountries: string[];
}

const BIND_TYPE_PROTO = {
  transmitter: 'SMPP_BIND_TYPE_TRANSMITTER',
  receiver: 'SMPP_BIND_TYPE_RECEIVER',
  transceiver: 'SMPP_BIND_TYPE_TRANSCEIVER',
} as const;

/**
 * A bind's credentials, checked by the account service. Every refusal counts against the caller's
 * address (a Redis counter shared by the replicas); past the limit, that address's binds are
 * refused without asking (RATE_LIMIT_EXCEEDED), until its window ends.
 */
export async function bind(
  deps: { up: Pick<Upstreams, 'accounts'>; failures: FixedWindowCounter; failureLimit: number },
  request: { systemId: string; password: string; type: BindType; address: string | undefined },
): Promise<Binding> {
  const key = request.address ? `smpp-bindfail:${request.address}` : undefined;
  if (key && (await deps.failures.read(key)).count >= deps.failureLimit) throw new AppError('RATE_LIMIT_EXCEEDED');
  try {
    const verified = await deps.up.accounts.verifySmppBind({
      systemId: request.systemId,
      password: request.password,
      bindType: BIND_TYPE_PROTO[request.type],
    });
    const c = verified.credential!;
    return {
      credentialId: c.credentialId,
      systemId: c.systemId,
      clientId: c.clientId,
      mode: modeFromProto(c.mode),
      type: request.type,
      deviceId: c.deviceId || undefined,
      defaultTtlSeconds: verified.defaultTtlSeconds,
      smsCountries: verified.smsCountries ?? [],
    };
  } catch (err) {
    if (key && err instanceof AppError && ['INVALID_API_KEY', 'SCOPE_NOT_ALLOWED', 'ACCOUNT_NOT_VERIFIED'].includes(err.code)) {
      await deps.failures.count(key).catch(() => undefined);
    }
    throw err;
  }
}
