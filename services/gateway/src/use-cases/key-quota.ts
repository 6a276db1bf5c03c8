import { mayHaveBeenStored } from '../clients/send-coalescer';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

/**
 * Runs a send of `messages` SMS counted against its key's day (QUOTA_EXCEEDED, before anything is
 * sent, when it does not fit in a key's daily quota). The count is given back when the send is
 * refused, or was a replay of an Idempotency-Key (counted the first time); it stays when the
 * outcome is unknown (the messages may have been stored).
 */
export async function countedSend<T>(
  up: Pick<Upstreams, 'keyUsage'>,
  auth: AuthContext,
  messages: number,
  send: () => Promise<T>,
  replayed: (answer: T) => boolean,
): Promise<T> {
  const taken = await up.keyUsage.take(auth, messages);
  let answer: T;
  try {
    answer = await send();
  } catch (err) {
    if (!mayHaveBeenStored(err)) await taken.giveBack();
    throw err;
  }
  if (replayed(answer)) await taken.giveBack();
  return answer;
}
