import { createPool, quoteIdent, type Pool } from '@smsgw/platform';
import { MessageRepository } from '../src/data/message.repository';
import { DATABASE_URL } from './support/database';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

// During a rolling upgrade, the new version's migration adds columns while the old replicas still
// serve. Their named statements are prepared on connections that stay open, and Postgres refuses
// a prepared statement whose result a new column would change ("cached plan must not change
// result type"): every statement of the SMS path must name the columns it returns.

/** What the next version's migration might do: a column more on every table of the schema. */
async function addColumnEverywhere(pool: Pool, schema: string, column: string): Promise<void> {
  const { rows } = await pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`,
    [schema],
  );
  for (const { table_name } of rows) {
    await pool.query(`ALTER TABLE ${quoteIdent(schema)}.${quoteIdent(table_name)} ADD COLUMN ${quoteIdent(column)} text`);
  }
}

describe('the message service while a migration adds columns', () => {
  let svc: RunningService;
  let fleet: FleetHarness;

  beforeAll(async () => {
    // One connection: every statement is prepared where the next call runs it.
    svc = await startMessageService({ DATABASE_POOL_MAX: '1' });
    fleet = await fleetHarness(svc);
  });

  afterAll(async () => {
    await fleet?.close();
    await svc?.stop();
  });

  /** A message of a phone and one of the fleet, each sent, claimed, acknowledged, sent and delivered. */
  async function carryTwoMessages(): Promise<void> {
    const client = newClientId();
    const [a, b, gone] = [newDeviceId(), newDeviceId(), newDeviceId()];
    const own = await fleet.send(client, a);
    const pooled = await fleet.send(client, gone);
    await svc.client.releaseDevice({ clientId: client, deviceId: gone, reason: 'RELEASE_REASON_OFFLINE' });

    expect(await fleet.claim(b, client)).toBe(pooled);
    const { results } = await svc.client.claimMany({ claims: [{ deviceId: a, clientId: client, leaseMs: 30_000 }] });
    expect(results.map((r) => r.message?.messageId)).toEqual([own]);
    const at = new Date().toISOString();
    const accepted = await svc.client.acceptMany({
      accepts: [
        { deviceId: a, messageId: own, at },
        { deviceId: b, messageId: pooled, at },
      ],
    });
    expect(accepted.results.map((r) => r.accepted)).toEqual([true, true]);
    await fleet.reports([
      { message_id: own, device_id: a, status: 'sent', at },
      { message_id: pooled, device_id: b, status: 'sent', at },
    ]);
    await fleet.reports([
      { message_id: own, device_id: a, status: 'delivered', at },
      // Sent again after its delivery: read back rather than moved.
      { message_id: pooled, device_id: b, status: 'sent', at },
    ]);

    expect((await fleet.get(client, own)).status).toBe('delivered');
    expect((await fleet.get(client, pooled)).status).toBe('sent');
  }

  /** An OTP's SMS stored, as the otp service asks for it. */
  async function storeOtpSms(): Promise<string> {
    const { message } = await svc.client.sendOtpMessage({
      clientId: newClientId(),
      messageId: '',
      mode: 'MODE_LIVE',
      deviceId: newDeviceId(),
      to: '+33612345678',
      text: 'Votre code : 482913',
      maskedText: 'Votre code : ******',
      metadataJson: '',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    return message!.status;
  }

  it('when a column is added to every table between two messages, then the second goes through as the first did', async () => {
    await carryTwoMessages();
    expect(await storeOtpSms()).toBe('queued');

    await addColumnEverywhere(svc.pool, svc.schema, 'added_by_next_version');

    await carryTwoMessages();
    expect(await storeOtpSms()).toBe('queued');
  });

  it('when a column is added, then messages are still read back by id on a connection that read them before', async () => {
    // The reports that move nothing read their messages back; a batch that fails is retried on another
    // connection 2 s later, so through the service this failure would show only as a late event.
    const pool = createPool({ url: DATABASE_URL, schema: svc.schema, max: 1 });
    try {
      const messages = new MessageRepository(pool);
      const id = await fleet.send(newClientId(), newDeviceId());
      expect([...(await messages.findMany([id])).keys()]).toEqual([id]);

      await addColumnEverywhere(svc.pool, svc.schema, 'added_again');

      expect([...(await messages.findMany([id])).keys()]).toEqual([id]);
    } finally {
      await pool.end();
    }
  });
});
