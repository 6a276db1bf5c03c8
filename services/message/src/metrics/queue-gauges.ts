import { gauge, reusedFor } from '@smsgw/platform';
import type { MessageRepository } from '../data/message.repository';

/**
 * What an SRE watches of the queue waiting for phones: its depth and the age of its oldest message
 * due, by mode. Both gauges of one scrape share one query (its result is reused for a second).
 */
export function observeQueue(repo: Pick<MessageRepository, 'queueStats'>): void {
  const queueRead = reusedFor(1000, () => repo.queueStats());
  const byMode = async () => {
    const rows = await queueRead();
    // Both modes always: an empty queue is a 0, not a missing series.
    return (['live', 'test'] as const).map((mode) => rows.find((q) => q.mode === mode) ?? { mode, depth: 0, oldest_seconds: 0 });
  };
  gauge('queue.depth', 'Messages due and waiting for a phone, by mode', async (r) => {
    for (const q of await byMode()) r.observe(q.depth, { mode: q.mode });
  });
  gauge('queue.oldest_age.seconds', 'How long the oldest message due has waited for a phone, by mode', async (r) => {
    for (const q of await byMode()) r.observe(q.oldest_seconds, { mode: q.mode });
  });
}
