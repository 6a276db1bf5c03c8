import type { DeviceRepository } from './device.repository';

/** At most this many devices in one statement. */
const CHUNK = 5000;

/**
 * When each phone was last seen connecting or going away (`devices.last_seen_at`, shown by the
 * dashboard and the API): the phones marked since the last flush are written together, one
 * statement per `CHUNK` of them, rather than one UPDATE per phone: a fleet reconnecting after a
 * restart marks thousands of phones a second. The hub flushes every second (main.ts) and at its
 * stop; a crash loses at most that second, and the phone's time in Redis (`presence-last:`), what
 * the failover reads first, is written at once.
 */
export class LastSeenWriter {
  private marked = new Set<string>();

  constructor(private readonly repo: Pick<DeviceRepository, 'touch'>) {}

  mark(deviceId: string): void {
    this.marked.add(deviceId);
  }

  /** Writes the marked phones; those a failed write left are written at the next flush. */
  async flush(): Promise<void> {
    if (this.marked.size === 0) return;
    const ids = [...this.marked];
    this.marked = new Set();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      try {
        await this.repo.touch(chunk);
      } catch (err) {
        for (const id of ids.slice(i)) this.marked.add(id);
        throw err;
      }
    }
  }
}
