import { FAILURE_MESSAGES } from '@smsgw/platform';
import { eventually } from './support/database';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

const LISTED = '+33600000001';
const OTHER = '+33600000002';

describe('the suppression list: its RPCs, and sends to a listed number failed OPTED_OUT', () => {
  let svc: RunningService;
  let fleet: FleetHarness;

  beforeAll(async () => {
    svc = await startMessageService();
    fleet = await fleetHarness(svc);
  });

  afterAll(async () => {
    await fleet?.close();
    await svc?.stop();
  });

  const add = (clientId: string, phoneNumber = LISTED, mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE', source = 'api') =>
    svc.client.addOptOut({ clientId, mode, phoneNumber, source });
  const list = (clientId: string, mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE', page = 1, limit = 50) =>
    svc.client.listOptOuts({ clientId, mode, page, limit });

  async function expectOptedOut(clientId: string, messageId: string, deviceId: string): Promise<void> {
    const row = await fleet.row(messageId);
    expect(row).toMatchObject({ status: 'failed', error_code: 'OPTED_OUT', error_message: FAILURE_MESSAGES.OPTED_OUT });
    expect(row.failed_at).toBeInstanceOf(Date);
    const events = await eventually(async () => {
      const found = await fleet.events(messageId);
      return found.length > 0 && found;
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'sms.failed', data: { status: 'failed', error: { code: 'OPTED_OUT' } } });
    expect(await fleet.claim(deviceId, clientId)).toBeUndefined();
  }

  it('when a number is added, listed and removed, then each RPC answers as specified', async () => {
    const c = newClientId();
    const first = await add(c, LISTED, 'MODE_LIVE', 'dashboard');
    expect(first).toMatchObject({ phoneNumber: LISTED, source: 'dashboard', keyword: '' });
    expect(Date.parse(first.createdAt)).not.toBeNaN();
    // Added again: the first entry stays.
    expect(await add(c, LISTED, 'MODE_LIVE', 'api')).toEqual(first);
    await add(c, OTHER);
    const page = await list(c, 'MODE_LIVE', 1, 1);
    expect(page).toMatchObject({ page: 1, perPage: 1, totalItems: 2, totalPages: 2 });
    expect(page.optOuts.map((o) => o.phoneNumber)).toEqual([OTHER]);

    expect(await svc.client.removeOptOut({ clientId: c, mode: 'MODE_LIVE', phoneNumber: LISTED, source: '' })).toEqual({ removed: true });
    await expect(svc.client.removeOptOut({ clientId: c, mode: 'MODE_LIVE', phoneNumber: LISTED, source: '' })).rejects.toMatchObject({
      code: 'OPT_OUT_NOT_FOUND',
    });
    expect((await list(c)).optOuts.map((o) => o.phoneNumber)).toEqual([OTHER]);
  });

  it('when an entry is invalid, then the RPCs refuse it', async () => {
    const c = newClientId();
    await expect(add(c, '0612345678')).rejects.toMatchObject({ code: 'INVALID_PHONE_NUMBER' });
    await expect(add(c, LISTED, 'MODE_LIVE', 'keyword')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(list(c, 'MODE_LIVE', 0, 50)).rejects.toMatchObject({ code: 'INVALID_PAGINATION' });
  });

  it('when the settings are read, set, or set wrong, then defaults, the normalised lists, or VALIDATION_ERROR come back', async () => {
    const c = newClientId();
    expect(await svc.client.getOptOutSettings({ clientId: c })).toEqual({
      clientId: c,
      optOutKeywords: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'ARRET'],
      startKeywords: ['START'],
      otpIgnoresOptOut: true,
    });
    const set = await svc.client.setOptOutSettings({
      clientId: c,
      optOutKeywords: ['stop', 'Arrêt'],
      startKeywords: ['reprise'],
      otpIgnoresOptOut: false,
    });
    expect(set).toEqual({ clientId: c, optOutKeywords: ['STOP', 'ARRET'], startKeywords: ['REPRISE'], otpIgnoresOptOut: false });
    expect(await svc.client.getOptOutSettings({ clientId: c })).toEqual(set);
    await expect(
      svc.client.setOptOutSettings({ clientId: c, optOutKeywords: ['STOP'], startKeywords: ['stop'], otpIgnoresOptOut: true }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'start_keywords[0]' }] });
    expect(await svc.client.getOptOutSettings({ clientId: c })).toEqual(set);
  });

  it('when a single send goes to a listed number, then it is failed OPTED_OUT with its sms.failed, and never claimable', async () => {
    const c = newClientId();
    const d = newDeviceId();
    await add(c);
    const { message } = await svc.client.send({
      clientId: c,
      mode: 'MODE_LIVE',
      deviceId: d,
      priority: 3,
      message: { to: LISTED, text: 'Promo', metadataJson: '' },
    });
    expect(message).toMatchObject({ status: 'failed', errorCode: 'OPTED_OUT' });
    await expectOptedOut(c, message!.messageId, d);
  });

  it('when a send to a listed number is made again with its Idempotency-Key, then the same failed message is answered', async () => {
    const c = newClientId();
    const d = newDeviceId();
    await add(c);
    const send = () =>
      svc.client.send({
        clientId: c,
        mode: 'MODE_LIVE',
        deviceId: d,
        priority: 3,
        idempotencyKey: 'k-1',
        requestHash: 'h-1',
        message: { to: LISTED, text: 'Promo', metadataJson: '' },
      });
    const first = await send();
    const again = await send();
    expect(again.message).toMatchObject({ messageId: first.message!.messageId, status: 'failed', errorCode: 'OPTED_OUT' });
    await expectOptedOut(c, first.message!.messageId, d);
  });

  it('when a bulk has one listed number, then it alone fails and the others are queued', async () => {
    const c = newClientId();
    const d = newDeviceId();
    await add(c);
    const batch = await svc.client.sendBatch({
      clientId: c,
      mode: 'MODE_LIVE',
      deviceIds: [d, d, d],
      messages: [OTHER, LISTED, '+33600000003'].map((to) => ({ to, text: 'Promo', metadataJson: '' })),
      priority: 3,
    });
    expect(batch.messages.map((m) => m.status)).toEqual(['queued', 'failed', 'queued']);
    const [a, listed, b] = batch.messages.map((m) => m.messageId);
    expect(await fleet.claim(d, c)).toBe(a);
    expect(await fleet.claim(d, c)).toBe(b);
    await expectOptedOut(c, listed!, d);
  });

  it('when SendMany gathers a listed and an unlisted number, then only the listed one fails', async () => {
    const c = newClientId();
    const d = newDeviceId();
    await add(c);
    const item = (to: string) => ({
      request: { clientId: c, mode: 'MODE_LIVE' as const, deviceId: d, priority: 3, message: { to, text: 'Hi', metadataJson: '' } },
      traceparent: '',
    });
    const { results } = await svc.client.sendMany({ items: [item(LISTED), item(OTHER)] });
    expect(results.map((r) => r.receipt?.status)).toEqual(['failed', 'queued']);
    expect(await fleet.claim(d, c)).toBe(results[1]!.receipt!.messageId);
    await expectOptedOut(c, results[0]!.receipt!.messageId, d);
  });

  it('when the number is listed in test mode only, then a live send still goes (and a test send fails)', async () => {
    const c = newClientId();
    const d = newDeviceId();
    await add(c, LISTED, 'MODE_TEST');
    expect((await list(c, 'MODE_LIVE')).totalItems).toBe(0);
    const live = await svc.client.send({
      clientId: c,
      mode: 'MODE_LIVE',
      deviceId: d,
      priority: 3,
      message: { to: LISTED, text: 'x', metadataJson: '' },
    });
    expect(live.message!.status).toBe('queued');
    const test = await svc.client.send({
      clientId: c,
      mode: 'MODE_TEST',
      deviceId: d,
      priority: 3,
      message: { to: LISTED, text: 'x', metadataJson: '' },
    });
    expect(test.message!.status).toBe('failed');
    await expect(svc.client.removeOptOut({ clientId: c, mode: 'MODE_LIVE', phoneNumber: LISTED, source: '' })).rejects.toMatchObject({
      code: 'OPT_OUT_NOT_FOUND',
    });
  });

  it('when a scheduled send goes to a listed number, then it fails at once', async () => {
    const c = newClientId();
    const d = newDeviceId();
    await add(c);
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const { message } = await svc.client.send({
      clientId: c,
      mode: 'MODE_LIVE',
      deviceId: d,
      priority: 3,
      scheduledAt,
      message: { to: LISTED, text: 'Plus tard', metadataJson: '' },
    });
    expect(message!.status).toBe('failed');
    await expectOptedOut(c, message!.messageId, d);
  });

  const otp = (clientId: string, deviceId: string) =>
    svc.client.sendOtpMessage({
      clientId,
      mode: 'MODE_LIVE',
      deviceId,
      to: LISTED,
      text: 'Votre code : 123456',
      maskedText: 'Votre code : ******',
      metadataJson: '',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      messageId: '',
    });

  it("when an OTP goes to a listed number, then it goes by default, and fails OPTED_OUT once the client's OTPs follow the list", async () => {
    const c = newClientId();
    const d = newDeviceId();
    await add(c);
    const sent = await otp(c, d);
    expect(sent.message!.status).toBe('queued');
    expect(await fleet.claim(d, c)).toBe(sent.message!.messageId);

    await svc.client.setOptOutSettings({ clientId: c, optOutKeywords: ['STOP'], startKeywords: ['START'], otpIgnoresOptOut: false });
    const refused = await otp(c, d);
    expect(refused.message).toMatchObject({ status: 'failed', errorCode: 'OPTED_OUT' });
    expect((await fleet.row(refused.message!.messageId)).otp_sealed_text).toBeNull();
    await expectOptedOut(c, refused.message!.messageId, d);
  });
});
