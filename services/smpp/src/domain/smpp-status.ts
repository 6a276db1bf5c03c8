/**
 * SMPP 3.4 command statuses (section 5.1.3) this server answers, and the platform's error codes
 * mapped to them: one table, which docs/api/smpp.md shows to integrators.
 */
export const SMPP_STATUS = {
  ESME_ROK: 0x0000,
  ESME_RINVMSGLEN: 0x0001,
  ESME_RINVCMDID: 0x0003,
  ESME_RINVBNDSTS: 0x0004,
  ESME_RALYBND: 0x0005,
  ESME_RSYSERR: 0x0008,
  ESME_RINVDSTADR: 0x000b,
  ESME_RINVMSGID: 0x000c,
  ESME_RBINDFAIL: 0x000d,
  ESME_RCANCELFAIL: 0x0011,
  ESME_RMSGQFUL: 0x0014,
  ESME_RINVNUMDESTS: 0x0033,
  ESME_RSUBMITFAIL: 0x0045,
  ESME_RTHROTTLED: 0x0058,
  ESME_RINVSCHED: 0x0061,
  ESME_RINVEXPIRY: 0x0062,
  ESME_RQUERYFAIL: 0x0067,
  ESME_RINVDCS: 0x0104,
} as const;
export type SmppStatusName = keyof typeof SMPP_STATUS;

/** A refusal with its SMPP status, thrown by the SMPP layer's own checks. */
export class SmppStatusError extends Error {
  constructor(
    readonly status: SmppStatusName,
    message?: string,
  ) {
    super(message ?? status);
    this.name = 'SmppStatusError';
  }
}

/** The platform's error codes (packages/platform/src/errors.ts) as the status of a submit_sm_resp. */
const SUBMIT_STATUS: Record<string, SmppStatusName> = {
  RATE_LIMIT_EXCEEDED: 'ESME_RTHROTTLED',
  QUOTA_EXCEEDED: 'ESME_RTHROTTLED',
  INVALID_PHONE_NUMBER: 'ESME_RINVDSTADR',
  DESTINATION_NOT_ALLOWED: 'ESME_RINVDSTADR',
  MESSAGE_REQUIRED: 'ESME_RINVMSGLEN',
  MESSAGE_TOO_LONG: 'ESME_RINVMSGLEN',
  INVALID_CHARACTER: 'ESME_RINVDCS',
  INVALID_SCHEDULED_AT: 'ESME_RINVSCHED',
  // No phone can take it (none online, the bind's phone unknown or removed), or an opt-out.
  DEVICE_OFFLINE: 'ESME_RSUBMITFAIL',
  INVALID_DEVICE_ID: 'ESME_RSUBMITFAIL',
  VALIDATION_ERROR: 'ESME_RSUBMITFAIL',
  ACCOUNT_NOT_VERIFIED: 'ESME_RSUBMITFAIL',
};

export type SmppOperation = 'submit' | 'query' | 'cancel';

/** The status of a refused operation: its code's, else the operation's own failure, else a system error. */
export function statusOfError(code: string | undefined, operation: SmppOperation): SmppStatusName {
  if (operation === 'submit') return (code && SUBMIT_STATUS[code]) || 'ESME_RSYSERR';
  if (code === 'MESSAGE_NOT_FOUND' || code === 'NOT_FOUND') return operation === 'query' ? 'ESME_RQUERYFAIL' : 'ESME_RCANCELFAIL';
  if (code === 'MESSAGE_NOT_CANCELLABLE') return 'ESME_RCANCELFAIL';
  if (code === 'RATE_LIMIT_EXCEEDED') return 'ESME_RTHROTTLED';
  return 'ESME_RSYSERR';
}
