import { mayHaveBeenStored } from '../clients/send-coalescer';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

/**
 * Runs a send of `messages` SMS counted against its key's day (QUOTA_EXCEEDED, before anything is
 * sent, when it does not fit in a key's daily quota). The count is given back when the send is
 * refused, or was a replay of an Idempotency-Key (counted the first time); it stays when the
 * outcome is unknown (the messages may have been stored). A key without a quota can refuse
 * nothing: its send is counted after it, without waiting, so it leaves at once (one Redis round
 * trip fewer in its time).
 */
export async function countedSend<T>(
  up: Pick<Upstreams, 'keyUsage'>,
  auth: AuthContext,
  messages: number,
  send: () => Promise<T>,
  replayed: (answer: T) => boolean,
): Promise<T> {
  if (auth.dailyQuota <= 0) return countedAfter(up, auth, messages, send, replayed);
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

async function countedAfter<T>(
  up: Pick<Upstreams, 'keyUsage'>,
  auth: AuthContext,
  messages: number,
  send: () => Promise<T>,
  replayed: (answer: T) => boolean,
): Promise<T> {
  let answer: T;
  try {
    answer = await send();
  } catch (err) {
    if (mayHaveBeenStored(err)) up.keyUsage.count(auth, messages);
    throw err;
  }
  if (!replayed(answer)) up.keyUsage.count(auth, messages);
  return answer;
}
