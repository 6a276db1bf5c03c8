import { randomInt } from 'node:crypto';
import { hashSecret, newId, randomAlphanumeric, secretMatches } from '@smsgw/platform';
import type { KeyMode } from './api-key';

export const SMPP_BIND_TYPES = ['transmitter', 'receiver', 'transceiver'] as const;
export type SmppBindType = (typeof SMPP_BIND_TYPES)[number];

/** SMPP 3.4 passwords are C-strings of at most 9 octets: 8 characters. */
export const SMPP_PASSWORD_LENGTH = 8;

export interface NewSmppCredential {
  credentialId: string;
  clientId: string;
  systemId: string;
  hash: Buffer;
  bindType: SmppBindType;
  mode: KeyMode;
  label: string;
  deviceId: string;
  createdBy?: string;
}

/** What is hashed: the system id with the password, so that equal passwords never hash alike. */
const hashed = (systemId: string, password: string) => hashSecret(`${systemId}:${password}`);

/** A new credential: its password (shown once) and what is stored. `smpp` and 11 digits fit SMPP's 15-character system id. */
export function issueSmppCredential(fields: Omit<NewSmppCredential, 'credentialId' | 'systemId' | 'hash'>): {
  password: string;
  row: NewSmppCredential;
} {
  const systemId = `smpp${String(randomInt(0, 1e11)).padStart(11, '0')}`;
  const password = randomAlphanumeric(SMPP_PASSWORD_LENGTH);
  return { password, row: { ...fields, credentialId: newId('smpp'), systemId, hash: hashed(systemId, password) } };
}

export function smppPasswordMatches(systemId: string, password: string, stored: Buffer): boolean {
  return secretMatches(`${systemId}:${password}`, stored);
}

/** Whether a credential of `allowed` may bind as `asked`: a transceiver credential binds as any of the three. */
export const bindAllowed = (allowed: SmppBindType, asked: SmppBindType): boolean => allowed === 'transceiver' || allowed === asked;
