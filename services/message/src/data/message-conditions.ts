// The SQL conditions of a message no phone has taken and of one a phone may take, and the columns
// of a whole message row.
import { MESSAGE_FIELDS } from '../domain/message-row';

/** A message no phone has taken: queued, not in a phone's outbox, not under a live lease (held or not). */
export const UNTAKEN = `status = 'queued' AND accepted_at IS NULL AND (lease_until IS NULL OR lease_until < now())`;

/**
 * A message a phone may take now: untaken and not held by a paused campaign
 * (the queue indexes leave held messages out: a query of them says `NOT held`).
 */
export const CLAIMABLE = `${UNTAKEN} AND NOT held`;

/** The columns of a whole `MessageRow`, each named (never `*`: see `MESSAGE_FIELDS`), of `alias` if given. */
export function messageColumns(alias?: string): string {
  return MESSAGE_FIELDS.map((f) => (alias ? `${alias}.${f}` : f)).join(', ');
}
