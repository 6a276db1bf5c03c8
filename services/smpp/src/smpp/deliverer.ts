import { timerLoop, type Logger } from '@smsgw/platform';
import type { PendingRepository } from '../data/pending.repository';
import type { SmppSession } from './session';

const keyOf = (clientId: string, mode: string) => `${clientId}\n${mode}`;

/**
 * Sends what waits (receipts, received SMS) to the receivers bound here, per client and mode, in
 * order: rows are taken under a lease, sent over the client's receivers at most a window each,
 * deleted once answered, given back when not (the next bind, here or on another replica, gets
 * them). Runs when a receiver binds, when the event consumer stored rows, and every `pollMs` (rows
 * stored by another replica's consumer).
 */
export class Deliverer {
  private readonly receivers = new Map<string, Set<SmppSession>>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly loop: ReturnType<typeof timerLoop>;
  private stopped = false;

  constructor(
    private readonly pending: Pick<PendingRepository, 'take' | 'done' | 'giveBack'>,
    private readonly options: { deliverWindow: number; leaseMs: number; pollMs: number },
    private readonly log: Logger,
  ) {
    this.loop = timerLoop({
      name: 'smpp-pending',
      intervalMs: options.pollMs,
      tick: async () => {
        for (const key of this.receivers.keys()) this.kickKey(key);
      },
      log,
    });
  }

  get receiverCount(): number {
    let n = 0;
    for (const set of this.receivers.values()) n += set.size;
    return n;
  }

  add(session: SmppSession): void {
    const b = session.binding!;
    const key = keyOf(b.clientId, b.mode);
    let set = this.receivers.get(key);
    if (!set) this.receivers.set(key, (set = new Set()));
    set.add(session);
    this.kickKey(key);
  }

  remove(session: SmppSession): void {
    const b = session.binding!;
    const key = keyOf(b.clientId, b.mode);
    const set = this.receivers.get(key);
    set?.delete(session);
    if (set?.size === 0) this.receivers.delete(key);
  }

  /** Rows were stored for this client and mode. */
  kick(clientId: string, mode: string): void {
    this.kickKey(keyOf(clientId, mode));
  }

  private kickKey(key: string): void {
    if (this.stopped || !this.receivers.has(key)) return;
    if (this.running.has(key)) {
      this.again.add(key);
      return;
    }
    const run = this.drain(key)
      .catch((err: unknown) => this.log.error({ err }, 'sending waiting deliver_sm failed'))
      .finally(() => {
        this.running.delete(key);
        if (this.again.delete(key)) this.kickKey(key);
      });
    this.running.set(key, run);
  }

  private async drain(key: string): Promise<void> {
    const [clientId, mode] = key.split('\n') as [string, string];
    while (!this.stopped) {
      const sessions = [...(this.receivers.get(key) ?? [])].filter((s) => s.receives);
      if (sessions.length === 0) return;
      const rows = await this.pending.take(clientId, mode, this.options.deliverWindow * sessions.length, this.options.leaseMs);
      if (rows.length === 0) return;
      // In order over the sessions, each up to its window.
      const results = await Promise.all(rows.map((row, i) => sessions[i % sessions.length]!.deliver(row.pdu)));
      const failed: string[] = [];
      await Promise.all(
        rows.map(async (row, i) => {
          if (results[i]) await this.pending.done(row.pending_id);
          else failed.push(row.pending_id);
        }),
      );
      if (failed.length > 0) {
        await this.pending.giveBack(failed);
        return;
      }
    }
  }

  start(): void {
    this.loop.start();
  }

  /** Stops sending: the sends under way finish (answered or given back). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await Promise.all(this.running.values());
  }
}
