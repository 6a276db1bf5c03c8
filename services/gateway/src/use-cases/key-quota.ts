import { mayHaveBeenStored } from '../clients/send-coalescer';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

/**
 * Runs a send of `messages` SMS counted against its key's day. A key with a daily quota takes
 * them before anything is sent (QUOTA_EXCEEDED when they do not fit) and gives them back when the
 * send is refused, or was a replay of an Idempotency-Key (counted the first time). A key without a
 * quota can refuse nothing: its send leaves at once (one Redis round trip fewer in its time) and is
 * counted once stored, without waiting. Either way a send whose outcome is unknown (the messages
 * may have been stored) is counted.
 */
export async function countedSend<T>(
  up: Pick<Upstreams, 'keyUsage'>,
  auth: AuthContext,
  messages: number,
  send: () => Promise<T>,
  replayed: (answer: T) => boolean,
): Promise<T> {
  const usage = auth.dailyQuota > 0 ? await up.keyUsage.take(auth, messages) : up.keyUsage.countOnceStored(auth, messages);
  let answer: T;
  try {
    answer = await send();
  } catch (err) {
    if (mayHaveBeenStored(err)) usage.stored();
    else await usage.giveBack();
    throw err;
  }
  if (replayed(answer)) await usage.giveBack();
  else usage.stored();
  return answer;
}
