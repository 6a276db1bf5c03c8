import path from 'node:path';
import { createPool, hashSecret, migrate, type Pool } from '@smsgw/platform';
import { DeviceRepository } from '../src/data/device.repository';
import { FleetSettingsRepository } from '../src/data/fleet-settings.repository';
import { DEFAULT_SIM_HEALTH, effectiveSimHealth } from '../src/domain/sim-health';
import { DATABASE_URL, randomHex } from './support/hub';

const MIGRATIONS = path.resolve(__dirname, '../migrations');

/**
 * The account's settings for all phones and the offline warning's SQL on a real Postgres: which
 * phones one query returns, a spell's warning claimed once whatever the number of replicas
 * asking, and the account's SIM thresholds carried with every device row.
 */
describe('fleet settings and the offline warning, in Postgres', () => {
  const schema = `t_${randomHex()}`;
  let pool: Pool;
  let repo: FleetSettingsRepository;

  beforeAll(async () => {
    pool = createPool({ url: DATABASE_URL, schema, max: 8 });
    await migrate(pool, { schema, dir: MIGRATIONS });
    repo = new FleetSettingsRepository(pool);
  });

  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  });

  async function phone(clientId: string, lastSeen: string | null, removed = false): Promise<string> {
    const id = `device_${randomHex()}`;
    await pool.query(
      `INSERT INTO devices (device_id, client_id, name, password_lookup, password_hash, last_seen_at, removed_at)
       VALUES ($1, $2, $3, $4, $5, ${lastSeen === null ? 'NULL' : `now() - interval '${lastSeen}'`}, ${removed ? 'now()' : 'NULL'})`,
      [id, clientId, `phone ${id}`, randomHex().slice(0, 4).toUpperCase(), hashSecret(randomHex())],
    );
    return id;
  }

  const candidates = async (defaultSeconds = 1800) => (await repo.offlineCandidates(defaultSeconds, '', 100)).map((c) => c.device_id);

  it("when phones were last seen at different times, then one query returns those past their account's delay, not removed, never the ones never seen", async () => {
    const client = `client_${randomHex()}`;
    const gone = await phone(client, '40 minutes');
    const lately = await phone(client, '2 minutes');
    await phone(client, '40 minutes', true);
    await phone(client, null);

    expect((await candidates()).filter((id) => id.startsWith('device_') && [gone, lately].includes(id))).toEqual([gone]);
    const row = (await repo.offlineCandidates(1800, '', 100)).find((c) => c.device_id === gone)!;
    expect(row).toMatchObject({ client_id: client, alert_seconds: 1800 });

    // The account's own delay: 60 s takes the phone of 2 minutes too; 0 turns the warning off.
    await repo.set(client, 60, DEFAULT_SIM_HEALTH);
    expect(await candidates()).toEqual(expect.arrayContaining([gone, lately]));
    await repo.set(client, 0, DEFAULT_SIM_HEALTH);
    expect((await candidates()).filter((id) => [gone, lately].includes(id))).toEqual([]);
  });

  it('when several replicas claim the same offline spell at once, then exactly one gets it, and a phone seen again opens a new spell', async () => {
    const client = `client_${randomHex()}`;
    const id = await phone(client, '40 minutes');
    const [c] = (await repo.offlineCandidates(1800, '', 1000)).filter((x) => x.device_id === id);
    const claims = await Promise.all(Array.from({ length: 6 }, () => repo.claimOfflineWarning(id, c!.last_seen_at)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await candidates()).not.toContain(id);

    // Seen again (it connected, then went away) after the warning: a new spell, once more.
    await pool.query(`UPDATE device_diagnostics SET offline_warned_at = now() - interval '50 minutes' WHERE device_id = $1`, [id]);
    await pool.query(`UPDATE devices SET last_seen_at = now() - interval '40 minutes' WHERE device_id = $1`, [id]);
    expect(await candidates()).toContain(id);
    const seen = (await pool.query<{ last_seen_at: Date }>('SELECT last_seen_at FROM devices WHERE device_id = $1', [id])).rows[0]!;
    expect(await repo.claimOfflineWarning(id, seen.last_seen_at)).toBe(true);
    expect(await repo.claimOfflineWarning(id, seen.last_seen_at)).toBe(false);

    // A claim given back (its event not published) is claimed by the next pass.
    await repo.releaseOfflineWarning(id);
    expect(await repo.claimOfflineWarning(id, seen.last_seen_at)).toBe(true);
  });

  it('when the account saves SIM thresholds, then every device row carries them and a phone without its own follows them', async () => {
    const client = `client_${randomHex()}`;
    const id = await phone(client, null);
    const devices = new DeviceRepository(pool);
    expect(effectiveSimHealth((await devices.find(id))!.sim_health_settings, (await devices.find(id))!.fleet_sim_health)).toEqual(
      DEFAULT_SIM_HEALTH,
    );
    const account = { ...DEFAULT_SIM_HEALTH, consecutiveFailures: 2 };
    await repo.set(client, 1800, account);
    const row = (await devices.find(id))!;
    expect(effectiveSimHealth(row.sim_health_settings, row.fleet_sim_health)).toEqual(account);
    expect((await devices.listByClient(client))[0]!.fleet_sim_health).toEqual(account);
    expect(await repo.get(client)).toEqual({ offlineAlertSeconds: 1800, simHealth: account });
  });
});
