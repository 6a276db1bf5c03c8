import type { SimHealth } from '../domain/sim-health';
import type { SimHealthRepository } from './sim-health.repository';

/**
 * The SIMs' health as the sessions keep it, written to Postgres: the results of every phone of
 * the moment in one statement (the hub flushes every few seconds, main.ts), not one write per
 * report; a change of state (quarantine, probe, release) in one statement at once. A crash loses
 * at most the last few seconds of results, never a change of state that was announced.
 */
export class SimHealthWriter {
  private noted = new Map<string, { deviceId: string; health: SimHealth }>();

  constructor(
    private readonly repo: Pick<SimHealthRepository, 'save'>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** New results of a SIM whose state did not change: written at the next flush. */
  note(deviceId: string, health: SimHealth): void {
    this.noted.set(`${deviceId}:${health.slot}`, { deviceId, health });
  }

  /** A change of state: written now (its results with it). */
  changed(deviceId: string, health: SimHealth): void {
    this.noted.delete(`${deviceId}:${health.slot}`);
    this.repo.save([{ deviceId, health }], true).catch(this.onError);
  }

  /** Writes the results noted since the last flush; those a failed write left are written at the next. */
  async flush(): Promise<void> {
    if (this.noted.size === 0) return;
    const entries = this.noted;
    this.noted = new Map();
    try {
      await this.repo.save([...entries.values()], false);
    } catch (err) {
      for (const [key, entry] of entries) if (!this.noted.has(key)) this.noted.set(key, entry);
      throw err;
    }
  }
}
