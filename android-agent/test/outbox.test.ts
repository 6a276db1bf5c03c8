import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OutboxError } from '../src/errors';
import { INTERRUPTED_SEND_ERROR, Outbox } from '../src/outbox';

const SMS = { message_id: 'msg_1', to: '+33611111111', text: 'Votre code : 1234' };
const AT = new Date('2025-01-02T03:04:05.678Z');

describe('Outbox', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-outbox-'));
  });

  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const open = (deliveryReports = true): Promise<Outbox> => Outbox.open(dataDir, { deliveryReports });

  it('when an SMS is accepted and marked sent, then a new outbox on the same directory finds it sent with its report pending', async () => {
    const outbox = await open();
    await expect(outbox.accept(SMS)).resolves.toBe(true);
    await outbox.markSending(SMS.message_id);
    await expect(outbox.markSent(SMS.message_id, AT)).resolves.toEqual({
      message_id: 'msg_1',
      status: 'sent',
      at: '2025-01-02T03:04:05.678Z',
    });

    const reopened = await open();
    expect(reopened.get('msg_1')).toMatchObject({ ...SMS, state: 'sent', pending_reports: [{ status: 'sent', at: AT.toISOString() }] });
    expect(reopened.pendingReports()).toEqual([{ message_id: 'msg_1', status: 'sent', at: AT.toISOString() }]);
    await expect(reopened.recover()).resolves.toEqual({ toSend: [], failed: [], expired: [] });
  });

  it('when an SMS asks for a SIM, then its entry keeps the slot on disk, recovery gives it back, and its reports carry the slot used', async () => {
    const outbox = await open();
    await outbox.accept({ ...SMS, sim: 2 });

    const reopened = await open();
    expect(reopened.get('msg_1')).toMatchObject({ sim: 2, state: 'accepted' });
    await expect(reopened.recover()).resolves.toEqual({ toSend: [{ ...SMS, sim: 2 }], failed: [], expired: [] });
    await reopened.markSending('msg_1');
    await expect(reopened.markSent('msg_1', AT, 2)).resolves.toEqual({ message_id: 'msg_1', status: 'sent', at: AT.toISOString(), sim: 2 });
    await expect(reopened.markDelivered('msg_1', AT, 2)).resolves.toMatchObject({ status: 'delivered', sim: 2 });
    expect((await open()).pendingReports().map((report) => report.sim)).toEqual([2, 2]);
  });

  it('when SMS were left sent at restart, then the outbox lists them as awaiting their delivery report, unless the driver reports no delivery', async () => {
    const outbox = await open();
    for (const id of ['msg_b', 'msg_a', 'msg_c']) await outbox.accept({ ...SMS, message_id: id });
    for (const id of ['msg_b', 'msg_a']) {
      await outbox.markSending(id);
      await outbox.markSent(id, AT);
    }
    await outbox.markDelivered('msg_a', AT);

    const reopened = await open();
    await reopened.recover();
    expect(reopened.awaitingDelivery()).toEqual([{ ...SMS, message_id: 'msg_b' }]);
    expect((await open(false)).awaitingDelivery()).toEqual([]);
  });

  it('when SMS are still accepted at restart, then recovery gives them to send in acceptance order', async () => {
    const outbox = await open();
    for (const id of ['msg_b', 'msg_a', 'msg_c']) await outbox.accept({ ...SMS, message_id: id });

    const recovery = await (await open()).recover();

    expect(recovery.toSend.map((sms) => sms.message_id)).toEqual(['msg_b', 'msg_a', 'msg_c']);
    expect(recovery.toSend[0]).toEqual({ ...SMS, message_id: 'msg_b' });
  });

  it('when an entry was left sending, then recovery reports it failed with DEVICE_ERROR and never gives it to send', async () => {
    const outbox = await open();
    await outbox.accept(SMS);
    await outbox.markSending(SMS.message_id);

    const reopened = await open();
    const recovery = await reopened.recover();

    expect(recovery).toEqual({ toSend: [], failed: ['msg_1'], expired: [] });
    expect(reopened.get('msg_1')?.state).toBe('failed');
    expect(reopened.pendingReports()).toEqual([
      { message_id: 'msg_1', status: 'failed', at: expect.any(String), error: INTERRUPTED_SEND_ERROR },
    ]);
    expect(INTERRUPTED_SEND_ERROR.code).toBe('DEVICE_ERROR');
  });

  it('when a finished SMS has all its reports acknowledged, then its file goes, its id stays known across restarts and a re-offer is refused', async () => {
    const outbox = await open();
    await outbox.accept(SMS);
    await outbox.markSending(SMS.message_id);
    await outbox.markSent(SMS.message_id, AT);
    await outbox.markDelivered(SMS.message_id, AT);
    await outbox.ackReport(SMS.message_id, 'sent');
    expect(outbox.get('msg_1')?.pending_reports.map((report) => report.status)).toEqual(['delivered']);
    await outbox.ackReport(SMS.message_id, 'delivered');

    expect(outbox.get('msg_1')).toBeUndefined();
    expect(await fs.readdir(path.join(dataDir, 'outbox'))).toEqual([]);
    expect(await fs.readFile(path.join(dataDir, 'done.log'), 'utf8')).toBe('msg_1\n');

    const reopened = await open();
    expect(reopened.has('msg_1')).toBe(true);
    await expect(reopened.accept(SMS)).resolves.toBe(false);
    expect(reopened.get('msg_1')).toBeUndefined();
  });

  it('when the driver reports delivery, then an acknowledged sent report keeps the entry until delivery', async () => {
    const outbox = await open(true);
    await outbox.accept(SMS);
    await outbox.markSending(SMS.message_id);
    await outbox.markSent(SMS.message_id, AT);
    await outbox.ackReport(SMS.message_id, 'sent');

    expect(outbox.get('msg_1')).toMatchObject({ state: 'sent', pending_reports: [] });
  });

  it('when the driver never reports delivery, then an acknowledged sent report finishes the entry', async () => {
    const outbox = await open(false);
    await outbox.accept(SMS);
    await outbox.markSending(SMS.message_id);
    await outbox.markSent(SMS.message_id, AT);
    await outbox.ackReport(SMS.message_id, 'sent');

    expect(outbox.get('msg_1')).toBeUndefined();
    expect(outbox.has('msg_1')).toBe(true);
  });

  it('when an SMS is accepted twice, then the second accept writes nothing and says so', async () => {
    const outbox = await open();
    await outbox.accept(SMS);
    await outbox.markSending(SMS.message_id);

    await expect(outbox.accept({ ...SMS, text: 'other' })).resolves.toBe(false);
    expect(outbox.get('msg_1')).toMatchObject({ state: 'sending', text: SMS.text });
  });

  it('when a step skips the state machine, then it is refused and nothing changes', async () => {
    const outbox = await open();
    await outbox.accept(SMS);

    await expect(outbox.markSent(SMS.message_id, AT)).rejects.toBeInstanceOf(OutboxError);
    await expect(outbox.markDelivered('msg_unknown', AT)).rejects.toBeInstanceOf(OutboxError);
    expect(outbox.get('msg_1')?.state).toBe('accepted');
  });

  it('when a message id holds a slash, then its file stays inside the outbox directory', async () => {
    const outbox = await open();
    await outbox.accept({ ...SMS, message_id: '../escape/1' });

    expect(await fs.readdir(path.join(dataDir, 'outbox'))).toEqual(['..%2Fescape%2F1.json']);
    expect((await open()).has('../escape/1')).toBe(true);
  });

  it('when an entry is written, then the file holds the documented fields and no temporary file is left', async () => {
    const outbox = await open();
    await outbox.accept(SMS);
    await outbox.markSending(SMS.message_id);
    await outbox.markFailed(SMS.message_id, AT, { code: 'OUT_OF_NETWORK', message: 'out of network' });

    expect(await fs.readdir(path.join(dataDir, 'outbox'))).toEqual(['msg_1.json']);
    const stored = JSON.parse(await fs.readFile(path.join(dataDir, 'outbox', 'msg_1.json'), 'utf8')) as unknown;
    expect(stored).toEqual({
      ...SMS,
      state: 'failed',
      pending_reports: [{ status: 'failed', at: AT.toISOString(), error: { code: 'OUT_OF_NETWORK', message: 'out of network' } }],
      updated_at: expect.any(String),
      seq: 1,
    });
  });

  it('when a crash left a temporary or unreadable file, then opening removes the first and sets the second aside', async () => {
    const outboxDir = path.join(dataDir, 'outbox');
    await fs.mkdir(outboxDir, { recursive: true });
    await fs.writeFile(path.join(outboxDir, 'msg_1.json.tmp'), '{"half');
    await fs.writeFile(path.join(outboxDir, 'msg_2.json'), 'not json');

    const outbox = await open();

    expect(outbox.corruptFiles).toEqual(['msg_2.json']);
    expect((await fs.readdir(outboxDir)).sort()).toEqual(['msg_2.json.corrupt']);
  });

  it('when done.log grows past twice its limit, then opening keeps only the latest ids', async () => {
    const ids = Array.from({ length: 25 }, (_, index) => `msg_${index}`);
    await fs.writeFile(path.join(dataDir, 'done.log'), ids.map((id) => `${id}\n`).join(''));

    const outbox = await Outbox.open(dataDir, { deliveryReports: true, doneLogLimit: 10 });

    expect(outbox.has('msg_24')).toBe(true);
    expect(outbox.has('msg_15')).toBe(true);
    expect(outbox.has('msg_14')).toBe(false);
    expect((await fs.readFile(path.join(dataDir, 'done.log'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(10);
  });
});
