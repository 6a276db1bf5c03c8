import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EXPIRED_ERROR, INTERRUPTED_SEND_ERROR, Outbox } from '../src/outbox';

const EXPIRES_AT = '2025-01-02T03:05:00.000Z';
const SMS = { message_id: 'msg_1', to: '+33611111111', text: 'Votre code : 1234', expires_at: EXPIRES_AT };
const BEFORE = new Date('2025-01-02T03:04:59.999Z');
const AT_EXPIRY = new Date(EXPIRES_AT);

describe('Outbox: expiry and not_sent', () => {
  let dataDir: string;
  let now: Date;

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-outbox-v2-'));
    now = BEFORE;
  });

  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const open = (): Promise<Outbox> => Outbox.open(dataDir, { deliveryReports: true, now: () => now });
  const entryFile = (id: string): string => path.join(dataDir, 'outbox', `${id}.json`);

  it('when an SMS with an expiry is accepted, then its entry on disk keeps expires_at', async () => {
    const outbox = await open();
    await outbox.accept(SMS);

    const stored = JSON.parse(await fs.readFile(entryFile('msg_1'), 'utf8')) as Record<string, unknown>;
    expect(stored).toMatchObject({ ...SMS, state: 'accepted' });
    expect((await open()).get('msg_1')?.expires_at).toBe(EXPIRES_AT);
  });

  it('when the expiry has not passed as sending begins, then the entry becomes sending', async () => {
    const outbox = await open();
    await outbox.accept(SMS);

    await expect(outbox.markSendingUnlessExpired('msg_1')).resolves.toBeUndefined();

    expect(outbox.get('msg_1')?.state).toBe('sending');
    expect(outbox.pendingReports()).toEqual([]);
  });

  it('when the expiry has passed as sending would begin, then the entry fails with EXPIRED and not_sent, on disk, until report_ack', async () => {
    const outbox = await open();
    await outbox.accept(SMS);
    now = AT_EXPIRY;

    const report = await outbox.markSendingUnlessExpired('msg_1');

    const expected = { message_id: 'msg_1', status: 'failed', at: EXPIRES_AT, error: EXPIRED_ERROR, not_sent: true };
    expect(report).toEqual(expected);
    expect(EXPIRED_ERROR.code).toBe('EXPIRED');
    // A restart before report_ack sends the same report again, not_sent included.
    const reopened = await open();
    expect(reopened.get('msg_1')?.state).toBe('failed');
    expect(reopened.pendingReports()).toEqual([expected]);
    await expect(reopened.recover()).resolves.toEqual({ toSend: [], failed: [], expired: [] });

    await reopened.ackReport('msg_1', 'failed');
    expect(reopened.get('msg_1')).toBeUndefined();
    await expect(reopened.accept(SMS)).resolves.toBe(false);
  });

  it('when the agent restarts after an accepted entry expired, then recovery fails it with EXPIRED and not_sent instead of giving it to send', async () => {
    const outbox = await open();
    await outbox.accept(SMS);
    await outbox.accept({ ...SMS, message_id: 'msg_later', expires_at: '2025-01-02T04:00:00.000Z' });
    await outbox.accept({ message_id: 'msg_never', to: SMS.to, text: 'no expiry' });
    await outbox.accept({ ...SMS, message_id: 'msg_sending' });
    await outbox.markSending('msg_sending');
    now = new Date('2025-01-02T03:30:00.000Z');

    const reopened = await open();
    const recovery = await reopened.recover();

    expect(recovery.expired).toEqual(['msg_1']);
    expect(recovery.failed).toEqual(['msg_sending']);
    expect(recovery.toSend).toEqual([
      { message_id: 'msg_later', to: SMS.to, text: SMS.text, expires_at: '2025-01-02T04:00:00.000Z' },
      { message_id: 'msg_never', to: SMS.to, text: 'no expiry' },
    ]);
    expect(reopened.pendingReports()).toEqual([
      { message_id: 'msg_1', status: 'failed', at: now.toISOString(), error: EXPIRED_ERROR, not_sent: true },
      // Left sending: it may have left the phone, so never not_sent.
      { message_id: 'msg_sending', status: 'failed', at: now.toISOString(), error: INTERRUPTED_SEND_ERROR },
    ]);
  });

  it('when an entry written by a protocol 1 agent has no expiry, then it loads and is sent however late', async () => {
    await fs.mkdir(path.join(dataDir, 'outbox'), { recursive: true });
    const legacy = {
      message_id: 'msg_old',
      to: SMS.to,
      text: 'old',
      state: 'accepted',
      pending_reports: [],
      updated_at: BEFORE.toISOString(),
      seq: 7,
    };
    await fs.writeFile(entryFile('msg_old'), `${JSON.stringify(legacy)}\n`);
    now = new Date('2030-01-01T00:00:00.000Z');

    const outbox = await open();
    expect(outbox.corruptFiles).toEqual([]);
    await expect(outbox.recover()).resolves.toEqual({
      toSend: [{ message_id: 'msg_old', to: SMS.to, text: 'old' }],
      failed: [],
      expired: [],
    });
    await expect(outbox.markSendingUnlessExpired('msg_old')).resolves.toBeUndefined();
  });

  it('when an entry holds an expires_at that is not a string, then it is set aside as corrupt', async () => {
    await fs.mkdir(path.join(dataDir, 'outbox'), { recursive: true });
    const entry = { ...SMS, expires_at: 12, state: 'accepted', pending_reports: [], updated_at: BEFORE.toISOString(), seq: 1 };
    await fs.writeFile(entryFile('msg_1'), JSON.stringify(entry));

    expect((await open()).corruptFiles).toEqual(['msg_1.json']);
  });

  it('when a failure is recorded as not sent, then not_sent is kept with its report across restarts; otherwise the report has none', async () => {
    const outbox = await open();
    for (const id of ['msg_radio', 'msg_network']) {
      await outbox.accept({ ...SMS, message_id: id });
      await outbox.markSending(id);
    }
    const error = { code: 'OUT_OF_NETWORK' as const, message: 'radio off' };

    await expect(outbox.markFailed('msg_radio', BEFORE, error, true)).resolves.toMatchObject({ not_sent: true });
    await expect(outbox.markFailed('msg_network', BEFORE, error)).resolves.not.toHaveProperty('not_sent');

    const reports = (await open()).pendingReports();
    expect(reports).toEqual([
      { message_id: 'msg_radio', status: 'failed', at: BEFORE.toISOString(), error, not_sent: true },
      { message_id: 'msg_network', status: 'failed', at: BEFORE.toISOString(), error },
    ]);
  });
});
