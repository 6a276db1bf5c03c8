import type { Msg, Subscription } from '@nats-io/transport-node';
import type { Logger, Nats } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import { CLOSE_REPLACED, CLOSE_RESTART, CLOSE_REVOKED, type AgentSession } from './agent-session';
import type { SimulateOrder } from './received-relay';

interface ControlOrder {
  action: 'takeover' | 'revoke' | 'reload' | 'simulate_received' | 'log_request';
  connection_id?: string;
  /** For simulate_received: the SMS the phone is to receive. */
  sms?: SimulateOrder;
}

/** A fleet wake-up (`dispatch.wake-client.<client>`) wakes at least this many idle phones of the client here. */
export const FLEET_WAKE_MIN = 8;

/**
 * How many idle phones of the client a fleet wake-up wakes on this replica: twice the messages it
 * says were opened to the fleet (at least FLEET_WAKE_MIN), or all of them when it does not say
 * (an older message service, or a test).
 */
export function fleetWakeQuota(payload: Uint8Array): number {
  const opened = Number(new TextDecoder().decode(payload));
  return payload.length > 0 && Number.isInteger(opened) && opened > 0 ? Math.max(FLEET_WAKE_MIN, 2 * opened) : Infinity;
}

/**
 * The sessions held by this replica. A new connection of a device closes the
 * older one, here or on any other replica (a core NATS order on
 * `hub.control.<device>`); so does a revocation of the device's tokens. A change
 * of its limits makes its session read them again (`reload`); SimulateReceived makes a simulator phone
 * receive an SMS (`simulate_received`). These orders are
 * fire-and-forget: a session reads its limits again every minute anyway, and `closeRevoked`, run on a short interval by every
 * replica, closes what a lost order left open.
 */
export class SessionRegistry {
  private readonly sessions = new Map<string, AgentSession>();
  /**
   * Each client's sessions here, and the two subscriptions that serve them all: to its fleet's
   * wake-ups, each of which wakes a few idle phones (`fleetWakeQuota`), not every phone of a large
   * fleet (busy ones claim again by themselves, the others' idle sweeps cover what is left); and
   * to its devices' own wake-ups (`dispatch.wake.<client>.*`), each passed to its phone if it is
   * here. Not one subscription per phone: each cost the hub about a kilobyte a phone, and NATS a
   * SUB and an UNSUB at each connection, 20,000 of them when a replica's fleet comes back.
   */
  private readonly fleets = new Map<string, { sessions: Set<AgentSession>; subs: Subscription[] }>();
  /** The token each session connected with. */
  private readonly tokens = new WeakMap<AgentSession, string>();

  constructor(
    private readonly nats: Nats,
    private readonly log: Logger,
  ) {
    nats.nc.subscribe(nats.names.hubControls, {
      callback: (err, msg) => {
        if (err) return;
        const order = msg.json<ControlOrder>();
        const deviceId = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
        const session = this.sessions.get(deviceId);
        if (!session || session.connectionId === order.connection_id) return;
        if (order.action === 'reload') void session.reloadLimits();
        else if (order.action === 'log_request') session.phone.requestLog();
        else if (order.action === 'simulate_received') {
          if (order.sms) session.inbox.simulate(order.sms);
        } else if (order.action === 'revoke') session.close(CLOSE_REVOKED, 'revoked');
        else session.close(CLOSE_REPLACED, 'replaced');
      },
    });
  }

  /** Every phone checks its queue now: wake-ups may have been lost (NATS was away). */
  wakeAll(): void {
    for (const session of this.sessions.values()) session.wake('work');
  }

  /** Writes the presence of every phone held here again (Redis came back empty), `chunk` at a time; the number written. */
  async refreshPresence(chunk = 1000): Promise<number> {
    const held = [...this.sessions.values()];
    let written = 0;
    for (let i = 0; i < held.length; i += chunk) {
      const results = await Promise.allSettled(held.slice(i, i + chunk).map((session) => session.refreshPresence()));
      written += results.filter((r) => r.status === 'fulfilled').length;
    }
    return written;
  }

  add(session: AgentSession, tokenId: string): void {
    this.tokens.set(session, tokenId);
    const previous = this.sessions.get(session.deviceId);
    if (previous) previous.close(CLOSE_REPLACED, 'replaced');
    this.sessions.set(session.deviceId, session);
    this.joinFleet(session);
    this.nats.nc.publish(
      this.nats.names.hubControl(session.deviceId),
      JSON.stringify({ action: 'takeover', connection_id: session.connectionId }),
    );
    session.whenEnded(() => {
      if (this.sessions.get(session.deviceId) === session) this.sessions.delete(session.deviceId);
      this.leaveFleet(session);
    });
  }

  private joinFleet(session: AgentSession): void {
    const clientId = session.device.client_id;
    let fleet = this.fleets.get(clientId);
    if (!fleet) {
      const subs = [
        this.nats.nc.subscribe(this.nats.names.wakeClient(clientId), {
          callback: (err, msg) => {
            if (!err) this.wakeFleet(clientId, msg);
          },
        }),
        // A device's own wake-up, or several devices' in one message (`many`, their ids in the
        // body): it reaches every replica holding a phone of the client, as the fleet's do; the one
        // holding a device wakes it.
        this.nats.nc.subscribe(this.nats.names.clientWakes(clientId), {
          callback: (err, msg) => {
            if (err) return;
            const last = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
            const ids = last === 'many' ? msg.string().split(',') : [last];
            for (const id of ids) this.sessions.get(id)?.wake('work');
          },
        }),
      ];
      fleet = { sessions: new Set(), subs };
      this.fleets.set(clientId, fleet);
    }
    fleet.sessions.add(session);
  }

  private leaveFleet(session: AgentSession): void {
    const clientId = session.device.client_id;
    const fleet = this.fleets.get(clientId);
    if (!fleet?.sessions.delete(session) || fleet.sessions.size > 0) return;
    for (const sub of fleet.subs) sub.unsubscribe();
    this.fleets.delete(clientId);
  }

  /** Wakes idle phones of the client, from a random one on, up to the wake-up's quota. */
  private wakeFleet(clientId: string, msg: Msg): void {
    const sessions = [...(this.fleets.get(clientId)?.sessions ?? [])];
    const quota = fleetWakeQuota(msg.data);
    const start = Math.floor(Math.random() * sessions.length);
    let woken = 0;
    for (let i = 0; i < sessions.length && woken < quota; i++) {
      if (sessions[(start + i) % sessions.length]!.wake('work')) woken++;
    }
  }

  revoke(deviceId: string): void {
    this.nats.nc.publish(this.nats.names.hubControl(deviceId), JSON.stringify({ action: 'revoke' }));
  }

  /** Tells the replica holding the device's phone to read its limits again. */
  reload(deviceId: string): void {
    this.nats.nc.publish(this.nats.names.hubControl(deviceId), JSON.stringify({ action: 'reload' }));
  }

  /**
   * Tells the replica holding the device's phone to have it receive an SMS (a simulator agent of
   * protocol 3 only; any other is left alone, with a warning). Fire-and-forget, like the other orders.
   */
  simulateReceived(deviceId: string, sms: SimulateOrder): void {
    this.nats.nc.publish(this.nats.names.hubControl(deviceId), JSON.stringify({ action: 'simulate_received', sms }));
  }

  /** Tells the replica holding the device's phone to ask it for its log (protocol 6; fire-and-forget). */
  requestLog(deviceId: string): void {
    this.nats.nc.publish(this.nats.names.hubControl(deviceId), JSON.stringify({ action: 'log_request' }));
  }

  /**
   * Closes the sessions whose token is no longer good (revoked, or its device removed), as
   * `liveTokens` says: the check that does not depend on the revocation order reaching this replica.
   */
  async closeRevoked(liveTokens: (tokenIds: string[]) => Promise<Set<string>>): Promise<number> {
    const held = [...this.sessions.values()].flatMap((session) => {
      const tokenId = this.tokens.get(session);
      return tokenId ? [{ session, tokenId }] : [];
    });
    if (held.length === 0) return 0;
    const live = await liveTokens(held.map((h) => h.tokenId));
    const revoked = held.filter((h) => !live.has(h.tokenId));
    for (const { session } of revoked) session.close(CLOSE_REVOKED, 'revoked');
    if (revoked.length > 0) this.log.info({ sessions: revoked.length }, 'sessions of revoked credentials closed');
    return revoked.length;
  }

  /**
   * Reads the limits of every phone held here again, `chunk` phones a query, and gives each session
   * its own: what keeps every session's limits fresh (run every `HUB_LIMITS_RELOAD_MS`) without a query
   * per phone; a SetDeviceLimits order still reloads its phone at once. Sessions are not woken: a
   * phone whose limits a lost order loosened sees it at its next check of its room.
   */
  async reloadAllLimits(load: (deviceIds: string[]) => Promise<DeviceRow[]>, chunk = 1000): Promise<number> {
    const held = [...this.sessions.values()];
    let applied = 0;
    for (let i = 0; i < held.length; i += chunk) {
      const part = held.slice(i, i + chunk);
      const rows = new Map((await load(part.map((s) => s.deviceId))).map((row) => [row.device_id, row]));
      for (const session of part) {
        const row = rows.get(session.deviceId);
        if (row) applied += Number(session.applyLimits(row));
      }
    }
    return applied;
  }

  /** The sessions held here (the phones' telemetry metrics read them at each scrape). */
  held(): IterableIterator<AgentSession> {
    return this.sessions.values();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Tells every agent to come back after a random delay, so a restart is not a storm. */
  async closeAll(maxReconnectDelayMs = 10_000): Promise<void> {
    const all = [...this.sessions.values()];
    for (const s of all) {
      s.close(CLOSE_RESTART, 'hub_shutdown', { type: 'reconnect', after_ms: 1000 + Math.floor(Math.random() * maxReconnectDelayMs) });
    }
    await Promise.all(all.map((s) => s.closedAndDrained()));
    this.log.info({ sessions: all.length }, 'agent sessions closed');
  }
}
