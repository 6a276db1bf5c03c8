import { explainedPool, eventually, scansOf } from '@smsgw/testing';
import { OtpRepository } from '../src/data/otp.repository';
import { startOtpSystem, type OtpSystem } from './support/system';

// Until its first ANALYZE, Postgres plans statements on `otps` without statistics: a verify then
// found its OTP through `otps_stats`, reading every OTP of its client, dearer with each one sent.

const CLIENT = 'client_first_statistics';

describe('the first statistics of a new installation', () => {
  let sys: OtpSystem;

  beforeAll(async () => {
    sys = await startOtpSystem();
    // Autovacuum visits the database once a minute: that visit must not be what analyses the table here.
    await sys.otpPool.query('ALTER TABLE otps SET (autovacuum_enabled = false)');
  });

  afterAll(async () => {
    await sys?.stop();
  });

  /** OTPs of the client stored as a send stores them (their code never checked here). */
  const seed = (from: number, count: number, mode = 'live') =>
    sys.otpPool.query(
      `INSERT INTO otps (otp_id, client_id, mode, code_hash, expires_at)
       SELECT 'otp_seed_' || g, $1, $4, '\\x00', now() + interval '5 minutes' FROM generate_series($2::int, $3::int) g`,
      [CLIENT, from, from + count - 1, mode],
    );
  /** The scans of `otps` by a verify of one OTP, wrong, through a connection that logs its plans. */
  const verifyScans = async (mode: 'live' | 'test', otpId: string) => {
    const { rows } = await sys.otpPool.query<{ schema: string }>('SELECT current_schema() AS schema');
    // The verify's statement is sent without a name: planned for its values, as here.
    const { pool, plans } = explainedPool(rows[0]!.schema, { custom: true });
    try {
      const verified = await new OtpRepository(pool).verify(CLIENT, mode, otpId, () => ({ decision: 'wrong', result: 'wrong' }));
      expect(verified?.row.attempts).toBe(1);
      const select = plans.find((p) => p.text.includes('FROM otps WHERE otp_id'));
      return scansOf(select!.plan, 'otps');
    } finally {
      await pool.end();
    }
  };
  const analysed = async () =>
    (await sys.otpPool.query<{ analysed: boolean }>(`SELECT reltuples >= 0 AS analysed FROM pg_class WHERE oid = 'otps'::regclass`))
      .rows[0]!.analysed;

  it('when a new installation has stored its first OTPs, then the service analyses the table and a verify finds its OTP by its key', async () => {
    expect(await analysed()).toBe(false);

    await seed(1, 150);

    await eventually(analysed, 10_000, 'otps analysed');
    await seed(151, 3_000);

    expect(await verifyScans('live', 'otp_seed_2000')).toEqual(['otps_pkey']);
  });

  it("when a client's first OTPs of a mode came after the table's last analysis, then a verify still finds its OTP by its key", async () => {
    // The statistics know no test OTPs: the planner takes the client's test OTPs for one row.
    await seed(5_001, 3_000, 'test');

    expect(await verifyScans('test', 'otp_seed_7000')).toEqual(['otps_pkey']);
  });

  it("when another client's OTP id is verified, then nothing is found and that OTP keeps its attempts", async () => {
    const { rows } = await sys.otpPool.query<{ schema: string }>('SELECT current_schema() AS schema');
    const repo = new OtpRepository(sys.otpPool);

    expect(
      await repo.verify('client_someone_else', 'live', 'otp_seed_2001', () => ({ decision: 'wrong', result: 'wrong' })),
    ).toBeUndefined();
    expect(await repo.verify(CLIENT, 'test', 'otp_seed_2001', () => ({ decision: 'wrong', result: 'wrong' }))).toBeUndefined();
    const after = await sys.otpPool.query<{ attempts: number }>(
      `SELECT attempts FROM ${rows[0]!.schema}.otps WHERE otp_id = 'otp_seed_2001'`,
    );
    expect(after.rows[0]!.attempts).toBe(0);
  });
});
