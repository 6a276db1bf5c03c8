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
  const seed = (from: number, count: number) =>
    sys.otpPool.query(
      `INSERT INTO otps (otp_id, client_id, mode, code_hash, expires_at)
       SELECT 'otp_seed_' || g, $1, 'live', '\\x00', now() + interval '5 minutes' FROM generate_series($2::int, $3::int) g`,
      [CLIENT, from, from + count - 1],
    );
  const analysed = async () =>
    (await sys.otpPool.query<{ analysed: boolean }>(`SELECT reltuples >= 0 AS analysed FROM pg_class WHERE oid = 'otps'::regclass`))
      .rows[0]!.analysed;

  it('when a new installation has stored its first OTPs, then the service analyses the table and a verify finds its OTP by its key', async () => {
    expect(await analysed()).toBe(false);

    await seed(1, 150);

    await eventually(analysed, 10_000, 'otps analysed');
    await seed(151, 3_000);
    const { rows } = await sys.otpPool.query<{ schema: string }>('SELECT current_schema() AS schema');
    const { pool, plans } = explainedPool(rows[0]!.schema);
    try {
      const verified = await new OtpRepository(pool).verify(CLIENT, 'live', 'otp_seed_2000', () => ({
        decision: 'wrong',
        result: 'wrong',
      }));
      expect(verified?.row.attempts).toBe(1);
      const select = plans.find((p) => p.text.includes('FROM otps WHERE otp_id'));
      expect(scansOf(select!.plan, 'otps')).toEqual(['otps_pkey']);
    } finally {
      await pool.end();
    }
  });
});
