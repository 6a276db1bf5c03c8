import { startOtpSystem, type OtpSystem } from './support/system';

// The OTP statements of a send and a verify are prepared once on each connection. During a rolling
// upgrade the new version's migration may add a column to `otps` while the old replicas serve:
// Postgres refuses a prepared statement whose result the new column would change, so each names
// the columns it returns (docs/contributors/conventions.md, "Schema changes").

const CLIENT = 'client_1700000000000000041';

describe('the otp service while a migration adds a column to otps', () => {
  let sys: OtpSystem;
  let n = 0;

  beforeAll(async () => {
    // One connection: every statement is prepared where the next call runs it.
    sys = await startOtpSystem({ DATABASE_POOL_MAX: '1' });
  });

  afterAll(async () => {
    await sys?.stop();
  });

  /** A test-mode OTP sent, a wrong code tried, then the right one (test keys' code: 123456). */
  async function sendAndVerify(): Promise<void> {
    const sent = await sys.otp.sendOtp({
      clientId: CLIENT,
      mode: 'MODE_TEST',
      deviceId: `device_01JOTPADDEDCOLUMNS0000000${n}`,
      to: `+3361${String(2_000_000 + n++).padStart(7, '0')}`,
      length: 0,
      expirySeconds: 0,
      template: '',
      metadataJson: '',
      idempotencyKey: '',
      requestHash: '',
    });
    const verify = (code: string) => sys.otp.verifyOtp({ clientId: CLIENT, mode: 'MODE_TEST', otpId: sent.otpId, code });
    expect((await verify('000000')).valid).toBe(false);
    expect((await verify('123456')).valid).toBe(true);
  }

  it('when a column is added to otps between two OTPs, then the second is sent and verified as the first was', async () => {
    await sendAndVerify();
    const { rows } = await sys.otpPool.query<{ schema: string }>('SELECT current_schema() AS schema');

    await sys.otpPool.query(`ALTER TABLE "${rows[0]!.schema}".otps ADD COLUMN added_by_next_version text`);

    await sendAndVerify();
  });
});
