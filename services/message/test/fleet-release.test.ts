import { eventually, sleep } from './support/database';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

describe('ttl, pinned messages, and the fleet taking over a phone that is offline or removed', () => {
  let svc: RunningService;
  let fleet: FleetHarness;

  beforeAll(async () => {
    svc = await startMessageService({ OTP_EXPIRY_SWEEP_MS: '200' });
    fleet = await fleetHarness(svc);
  });

  afterAll(async () => {
    await fleet?.close();
    await svc?.stop();
  });

  const release = (clientId: string, deviceId: string, reason: 'RELEASE_REASON_OFFLINE' | 'RELEASE_REASON_REMOVED') =>
    svc.client.releaseDevice({ clientId, deviceId, reason });

  it('when a send, a scheduled send and a batch carry a ttl, then expires_at counts it from the queueing or the scheduled time; 0 means none', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const now = await fleet.get(client, await fleet.send(client, device, { ttlSeconds: 600 }));
    expect(Date.parse(now.expiresAt) - Date.parse(now.queuedAt)).toBe(600_000);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await fleet.get(client, await fleet.send(client, device, { ttlSeconds: 120, scheduledAt: later }));
    expect(Date.parse(scheduled.expiresAt) - Date.parse(later)).toBe(120_000);
    expect((await fleet.get(client, await fleet.send(client, device))).expiresAt).toBe('');

    const batch = await svc.client.sendBatch({
      clientId: client,
      mode: 'MODE_LIVE',
      priority: 3,
      deviceIds: [device, device],
      messages: [
        { to: '+33612345678', text: 'a' },
        { to: '+33612345679', text: 'b' },
      ],
      ttlSeconds: [300, 0],
      pinned: true,
    });
    expect(batch.messages.map((m) => [m.pinned, m.expiresAt === '' ? 0 : Date.parse(m.expiresAt) - Date.parse(m.queuedAt)])).toEqual([
      [true, 300_000],
      [true, 0],
    ]);
    const refused = await svc.client
      .sendBatch({
        clientId: client,
        mode: 'MODE_LIVE',
        priority: 3,
        deviceIds: [device],
        messages: [{ to: '+1', text: 'x' }],
        ttlSeconds: [1, 2],
      })
      .catch((err: { code?: string }) => err);
    expect(refused).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('when a send names its device without failover, then the message is stored pinned, through Send and SendMany', async () => {
    const client = newClientId();
    const device = newDeviceId();
    expect((await fleet.get(client, await fleet.send(client, device, { pinned: true }))).pinned).toBe(true);
    expect((await fleet.get(client, await fleet.send(client, device))).pinned).toBe(false);
    const many = await svc.client.sendMany({
      items: [true, false].map((pinned) => ({
        traceparent: '',
        request: { clientId: client, mode: 'MODE_LIVE', deviceId: device, priority: 3, message: { to: '+33612345678', text: 'x' }, pinned },
      })),
    });
    const rows = await Promise.all(many.results.map((r) => fleet.row(r.receipt!.messageId)));
    expect(rows.map((r) => r.pinned)).toEqual([true, false]);
  });

  it('when a message outlives its ttl without a phone, fleet or not, then it is never handed out and ends failed EXPIRED with sms.failed', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const own = await fleet.send(client, device, { ttlSeconds: 1 });
    const moved = await fleet.send(client, device, { ttlSeconds: 1 });
    await svc.pool.query('UPDATE messages SET fleet = true WHERE message_id = $1', [moved]);
    await sleep(1100);
    expect(await fleet.claim(device, client)).toBeUndefined();
    for (const id of [own, moved]) {
      const failed = await eventually(async () => {
        const m = await fleet.get(client, id);
        return m.status === 'failed' && m;
      });
      expect(failed).toMatchObject({ errorCode: 'EXPIRED', errorMessage: "Le message n'a pas pu être envoyé à temps." });
      const [event] = await eventually(async () => (await fleet.events(id)).length > 0 && fleet.events(id));
      expect(event).toMatchObject({ event: 'sms.failed', data: { error: { code: 'EXPIRED' } } });
    }
    expect((await fleet.row(moved)).fleet).toBe(false);
  });

  it('when a phone stays offline, then only its unpinned messages no phone has taken move to the fleet, once, with a moved attempt and a wake-up', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const free = await fleet.send(client, a);
    const scheduled = await fleet.send(client, a, { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    const pinned = await fleet.send(client, a, { pinned: true });
    const accepted = await fleet.send(client, a, { priority: 1 });
    expect(await fleet.claim(a, '')).toBe(accepted);
    await svc.client.acceptMessage({ deviceId: a, messageId: accepted, at: new Date().toISOString() });
    const leased = await fleet.send(client, a, { priority: 2 });
    expect(await fleet.claim(a, '')).toBe(leased);
    const wakesBefore = fleet.wakes(client);

    expect(await release(client, a, 'RELEASE_REASON_OFFLINE')).toEqual({ moved: 2, failed: 0 });

    const rows = Object.fromEntries(
      await Promise.all([free, scheduled, pinned, accepted, leased].map(async (id) => [id, await fleet.row(id)])),
    );
    expect([free, scheduled, pinned, accepted, leased].map((id) => rows[id].fleet)).toEqual([true, true, false, false, false]);
    expect(rows[free]).toMatchObject({ status: 'queued', device_id: a, avoid_device_id: null });
    const moved = await fleet.get(client, free);
    expect(moved.attempts).toEqual([
      {
        deviceId: a,
        status: 'moved',
        errorCode: 'DEVICE_OFFLINE',
        errorMessage: expect.stringMatching(/hors ligne/),
        at: expect.any(String),
        sim: 0,
        reconciled: '',
      },
      { deviceId: a, status: 'queued', errorCode: '', errorMessage: '', at: moved.attempts[0]!.at, sim: 0, reconciled: '' },
    ]);
    expect(Math.abs(Date.parse(moved.attempts[0]!.at) - Date.now())).toBeLessThan(10_000);
    await eventually(async () => fleet.wakes(client) > wakesBefore, 2000, 'the client woken');
    // It says how many were opened: the hubs wake about twice as many idle phones, not the whole fleet.
    expect(fleet.lastWake(client)).toBe('2');

    expect(await release(client, a, 'RELEASE_REASON_OFFLINE')).toEqual({ moved: 0, failed: 0 });
    expect((await fleet.get(client, free)).attempts).toHaveLength(2);
    expect(await fleet.claim(b, client)).toBe(free);
    expect(await fleet.row(free)).toMatchObject({ device_id: b, fleet: false });
    // The phone that was offline comes back: it may take what is still in the fleet (its scheduled one, once due).
    await svc.pool.query("UPDATE messages SET due_at = now() - interval '1 hour' WHERE message_id = $1", [scheduled]);
    expect(await fleet.claim(a, client)).toBe(scheduled);
  });

  it('when a phone is removed, then its unpinned messages move and must avoid it, and its pinned ones fail with DEVICE_REMOVED and sms.failed', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const free = await fleet.send(client, a);
    const pinned = await fleet.send(client, a, { pinned: true });

    expect(await release(client, a, 'RELEASE_REASON_REMOVED')).toEqual({ moved: 1, failed: 1 });

    expect(await fleet.row(free)).toMatchObject({ fleet: true, avoid_device_id: a });
    expect((await fleet.get(client, free)).attempts[0]).toMatchObject({ status: 'moved', errorCode: 'DEVICE_REMOVED' });
    expect(await fleet.get(client, pinned)).toMatchObject({
      status: 'failed',
      errorCode: 'DEVICE_REMOVED',
      errorMessage: 'Le téléphone a été retiré du compte.',
    });
    expect(await fleet.events(pinned)).toEqual([
      expect.objectContaining({
        event: 'sms.failed',
        data: expect.objectContaining({ error: expect.objectContaining({ code: 'DEVICE_REMOVED' }) }),
      }),
    ]);
    expect(await fleet.claim(a, client)).toBeUndefined();
    expect(await fleet.claim(b, client)).toBe(free);
    expect(await release(client, a, 'RELEASE_REASON_REMOVED')).toEqual({ moved: 0, failed: 0 });
    const bad = await svc.client
      .releaseDevice({ clientId: client, deviceId: a, reason: 'RELEASE_REASON_UNSPECIFIED' })
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('when phones of several clients claim, then a fleet message goes only to a phone of its client, the best of own queue and fleet first', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const stranger = newDeviceId();
    const opened = await fleet.send(client, a, { priority: 2 });
    await release(client, a, 'RELEASE_REASON_OFFLINE');
    const ownLow = await fleet.send(client, b, { priority: 4 });
    const ownHigh = await fleet.send(client, b, { priority: 1 });

    expect(await fleet.claim(stranger, newClientId())).toBeUndefined();
    // Without its client, a claim reads the device's own queue only.
    expect(await fleet.claim(b, '')).toBe(ownHigh);
    expect(await fleet.claim(b, client)).toBe(opened);
    expect(await fleet.claim(b, client)).toBe(ownLow);
    expect(await fleet.claim(b, client)).toBeUndefined();
    expect(await fleet.row(opened)).toMatchObject({ device_id: b, fleet: false, claim_count: 1 });
  });

  it('when many phones of the client claim one fleet message at once, then exactly one gets it', async () => {
    const client = newClientId();
    const opened = await fleet.send(client, newDeviceId());
    await svc.pool.query('UPDATE messages SET fleet = true WHERE message_id = $1', [opened]);
    const phones = Array.from({ length: 6 }, newDeviceId);
    const got = await Promise.all(phones.map((p) => fleet.claim(p, client)));
    expect(got.filter((id) => id === opened)).toHaveLength(1);
    expect((await fleet.row(opened)).device_id).toBe(phones[got.indexOf(opened)]);
  });

  it('when the hub sweeps, then StrandedDevices lists the devices holding due unpinned messages not yet in the fleet', async () => {
    const client = newClientId();
    const [a, pinnedOnly, laterOnly, released] = [newDeviceId(), newDeviceId(), newDeviceId(), newDeviceId()];
    await fleet.send(client, a);
    await fleet.send(client, a);
    await fleet.send(client, pinnedOnly, { pinned: true });
    await fleet.send(client, laterOnly, { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    await fleet.send(client, released);
    await release(client, released, 'RELEASE_REASON_OFFLINE');

    const { devices } = await svc.client.strandedDevices({});
    const mine = devices.filter((d) => [a, pinnedOnly, laterOnly, released].includes(d.deviceId));
    expect(mine).toEqual([{ deviceId: a, clientId: client, queued: 2 }]);
  });
});
