// Protocol 4 in one phone's session: its SIMs for this connection, the SIM of each SMS it is
// handed (the client's rule, the round robin's state), and the SIM of each SMS it acknowledges.
import type { LogSink } from '@smsgw/platform';
import { simsOfRow, type DeviceRow } from '../data/device-row';
import type { UsageStore } from '../data/usage.store';
import { chooseSim, DEFAULT_SIM_RULE, preferredSim, type SimInfo } from '../domain/sims';
import type { SimRules } from './sim-rules';

/** The SIM of each SMS handed out lately, for its (possibly late) acknowledgement. */
const SIMS_KEPT = 100;

export interface SessionSimsDeps {
  usage: Pick<UsageStore, 'lastSim' | 'setLastSim'>;
  simRules: Pick<SimRules, 'of'>;
  /** Stores the SIMs the phone reported on its device (what Device.sims lists). */
  storeSims(deviceId: string, sims: SimInfo[]): Promise<unknown>;
}

/**
 * A phone's SIMs on one connection. The round robin's state (the slot of its last SMS) is kept
 * here and in Redis (`hub-sent:<device>:last-sim`, read at the first choice), so that it goes on
 * after a reconnect, to this replica or another.
 */
export class SessionSims {
  private sims: SimInfo[] = [];
  private lastSim?: number;
  /** The SIM of each SMS handed lately; made at the first (an idle phone's session holds none). */
  private handed?: Map<string, number>;

  constructor(
    private readonly device: DeviceRow,
    private readonly deps: SessionSimsDeps,
    private readonly log: LogSink,
  ) {}

  /** The phone's slots, ascending (empty: unknown). */
  get slots(): number[] {
    return this.sims.map((s) => s.slot);
  }

  /** Takes the SIMs the agent reported (empty: unknown) and stores them on the device when they changed. */
  async learn(sims: SimInfo[]): Promise<void> {
    this.sims = sims;
    if (JSON.stringify(simsOfRow(this.device)) === JSON.stringify(sims)) return;
    await this.deps.storeSims(this.device.device_id, sims).catch((err: unknown) => this.log.warn({ err }, "the phone's SIMs not stored"));
  }

  /**
   * How long to wait before claiming (0: claim now): under the client's `default` rule, while
   * its SIM is only in its pause between two SMS, the phone waits for it rather than send
   * through another SIM (a SIM whose limit is reached gives way to the others, see `chooseSim`).
   */
  async holdMs(withRoom: number[], pauseLeftMs: (slot: number) => number): Promise<number> {
    const slots = this.slots;
    if (slots.length < 2) return 0;
    const rule = await this.deps.simRules.of(this.device.client_id);
    if (rule.rule !== 'default') return 0;
    const preferred = preferredSim(slots, rule);
    return withRoom.includes(preferred) ? 0 : pauseLeftMs(preferred);
  }

  /**
   * The slot this SMS goes through (0: none, the phone's default SIM): see `chooseSim`; with 2
   * or more SIMs, remembered as the last one used. `probe`: a quarantined SIM whose probe is due
   * takes an SMS that names no SIM.
   */
  async choose(messageId: string, requested: number, withRoom: number[], probe?: number): Promise<number> {
    const slots = this.slots;
    let sim: number;
    if (requested === 0 && probe !== undefined && slots.length >= 2) {
      sim = probe;
    } else if (slots.length < 2) {
      sim = chooseSim({ requested, slots, withRoom, rule: DEFAULT_SIM_RULE, lastSlot: 0 });
    } else {
      const rule = requested > 0 ? DEFAULT_SIM_RULE : await this.deps.simRules.of(this.device.client_id);
      this.lastSim ??= await this.deps.usage.lastSim(this.device.device_id).catch(() => 0);
      sim = chooseSim({ requested, slots, withRoom, rule, lastSlot: this.lastSim });
      if (slots.includes(sim)) {
        this.lastSim = sim;
        this.deps.usage
          .setLastSim(this.device.device_id, sim)
          .catch((err: unknown) => this.log.warn({ err }, 'the last SIM used not stored'));
      }
    }
    const handed = (this.handed ??= new Map<string, number>());
    handed.set(messageId, sim);
    if (handed.size > SIMS_KEPT) handed.delete(handed.keys().next().value!);
    return sim;
  }

  /** The slot an SMS handed on this connection was sent with (0: none, or not handed lately). */
  of(messageId: string): number {
    return this.handed?.get(messageId) ?? 0;
  }
}
