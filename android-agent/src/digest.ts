import { randomUUID } from 'node:crypto';
import type { RecordEntry } from './send-record';

/** At most this many SMS in one `digest` frame: about 300 bytes each, far below the hub's 128 KiB. */
export const DIGEST_CHUNK_ENTRIES = 200;
/** How often a connected agent sends its digest (also at once after each `hello`). */
export const DEFAULT_DIGEST_INTERVAL_MS = 5 * 60_000;

/** One frame of a digest (protocol 7): every SMS handed over between `covers_from` and `covers_to`. */
export interface DigestFrame {
  type: 'digest';
  digest_id: string;
  /** RFC 3339, the phone's clock: when the digest was made. */
  at: string;
  chunk: number;
  chunks: number;
  /** The SMS of this frame are all those handed to the phone in this span of time (inclusive). */
  covers_from: string;
  covers_to: string;
  entries: RecordEntry[];
}

/**
 * Cuts the record into digest frames: entries in hand-over order, `chunkEntries` a frame, each
 * frame's span of time starting where the previous one ended, the first at the record's start
 * (`coversFrom`), the last ending now. An empty record still makes one frame: it says that no SMS
 * was handed over in that span.
 */
export function buildDigest(
  entries: readonly RecordEntry[],
  coversFrom: Date,
  now: Date,
  chunkEntries = DIGEST_CHUNK_ENTRIES,
): DigestFrame[] {
  const sorted = [...entries].sort((a, b) => a.accepted_at.localeCompare(b.accepted_at));
  const groups: RecordEntry[][] = [];
  for (let i = 0; i < sorted.length; i += chunkEntries) groups.push(sorted.slice(i, i + chunkEntries));
  if (groups.length === 0) groups.push([]);
  const digestId = randomUUID();
  const at = now.toISOString();
  let from = coversFrom.toISOString();
  return groups.map((group, index) => {
    const last = index === groups.length - 1;
    const to = last ? at : group[group.length - 1]!.accepted_at;
    const frame: DigestFrame = {
      type: 'digest',
      digest_id: digestId,
      at,
      chunk: index + 1,
      chunks: groups.length,
      covers_from: from,
      covers_to: to,
      entries: group.map(compact),
    };
    from = to;
    return frame;
  });
}

/** The entry without its empty fields. */
function compact(entry: RecordEntry): RecordEntry {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as unknown as RecordEntry;
}
