import path from 'node:path';
import { migrate } from '@smsgw/platform';
import { createSandbox, type Sandbox } from '@smsgw/testing';
import { PendingRepository, type NewPending } from '../src/data/pending.repository';

// What waits for an SMPP receiver, in the service's own Postgres schema: bounded per client and
// mode, one row per event however often it is consumed, and one replica sending a row at a time.

const MAX = 3;

const receipt = (clientId: string, n: number, mode: 'live' | 'test' = 'live'): NewPending => ({
  clientId,
  mode,
  kind: 'receipt',
  dedupeKey: `${clientId}:${mode}:evt_${n}`,
  pdu: {
    source_addr: '33612345678',
    destination_addr: 'SHOP',
    esm_class: 4,
    text: `id:msg_${n} stat:DELIVRD`,
    receipted_message_id: `msg_${n}`,
  },
});

describe('the deliver_sm waiting for a receiver', () => {
  let sandbox: Sandbox;
  let pending: PendingRepository;

  beforeAll(async () => {
    sandbox = await createSandbox({ name: 'smpp' });
    await migrate(sandbox.pool, { schema: sandbox.schema, dir: path.resolve(__dirname, '../migrations') });
    pending = new PendingRepository(sandbox.pool, MAX);
  });

  afterAll(async () => {
    await sandbox?.cleanUp();
  });

  const ids = (rows: { pdu: { receipted_message_id?: string } }[]) => rows.map((r) => r.pdu.receipted_message_id);

  it("when more wait than the bound, then the client's newest are kept, in order; another client and the other mode keep theirs", async () => {
    await pending.add(
      [1, 2, 3].map((n) => receipt('client_a', n)),
      [],
    );
    await pending.add([receipt('client_b', 1), receipt('client_a', 1, 'test')], []);
    await pending.add(
      [4, 5].map((n) => receipt('client_a', n)),
      [],
    );

    expect(ids(await pending.take('client_a', 'live', 10, 60_000))).toEqual(['msg_3', 'msg_4', 'msg_5']);
    expect(ids(await pending.take('client_b', 'live', 10, 60_000))).toEqual(['msg_1']);
    expect(ids(await pending.take('client_a', 'test', 10, 60_000))).toEqual(['msg_1']);
  });

  it('when an event is consumed twice, then it waits once', async () => {
    const added = await pending.add([receipt('client_c', 1)], []);
    const again = await pending.add([receipt('client_c', 1)], []);
    expect(added).toEqual([{ clientId: 'client_c', mode: 'live' }]);
    expect(again).toEqual([]);
    expect(ids(await pending.take('client_c', 'live', 10, 60_000))).toEqual(['msg_1']);
  });

  it('when a row is taken, then no other replica takes it until it is given back; once answered it is gone', async () => {
    await pending.add(
      [1, 2].map((n) => receipt('client_d', n)),
      [],
    );
    const first = await pending.take('client_d', 'live', 10, 60_000);
    expect(ids(first)).toEqual(['msg_1', 'msg_2']);
    expect(await pending.take('client_d', 'live', 10, 60_000)).toEqual([]);

    await pending.done(first[0]!.pending_id);
    await pending.giveBack([first[1]!.pending_id]);
    expect(ids(await pending.take('client_d', 'live', 10, 60_000))).toEqual(['msg_2']);
  });

  it('when a lease runs out (its replica stopped), then the row is taken again', async () => {
    await pending.add([receipt('client_e', 1)], []);
    expect(ids(await pending.take('client_e', 'live', 10, 1))).toEqual(['msg_1']);
    await new Promise((r) => setTimeout(r, 20));
    expect(ids(await pending.take('client_e', 'live', 10, 60_000))).toEqual(['msg_1']);
  });
});
