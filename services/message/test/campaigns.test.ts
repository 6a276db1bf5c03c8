import { eventually, sleep } from './support/database';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

describe('CSV campaigns, over real gRPC, Postgres and NATS', () => {
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

  const live = (clientId: string, campaignId: string) => ({ clientId, mode: 'MODE_LIVE' as const, campaignId });
  const create = async (clientId: string, name = 'Soldes', mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE') =>
    (await svc.client.createCampaign({ clientId, mode, name })).campaignId;
  const add = async (clientId: string, campaignId: string, deviceIds: string[]) =>
    (
      await svc.client.addCampaignMessages({
        ...live(clientId, campaignId),
        deviceIds,
        messages: deviceIds.map((_, i) => ({ to: `+3361234560${i}`, text: `Bonjour ${i}`, metadataJson: '' })),
      })
    ).messages.map((m) => m.messageId);
  const get = (clientId: string, campaignId: string) => svc.client.getCampaign(live(clientId, campaignId));
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: { code?: string }) => e.code,
    );

  it('when a campaign is created and messages are added, then they are stored queued with its id, and its counts say so', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const created = await svc.client.createCampaign({ clientId: client, mode: 'MODE_LIVE', name: '  Soldes d’été  ' });
    expect(created).toMatchObject({ clientId: client, mode: 'MODE_LIVE', name: 'Soldes d’été', status: 'running', total: 0 });
    expect(created.campaignId).toMatch(/^cmp_[0-9A-Z]{26}$/);

    const ids = await add(client, created.campaignId, [a, b, a]);
    const message = await fleet.get(client, ids[2]!);
    expect(message).toMatchObject({ status: 'queued', deviceId: a, campaignId: created.campaignId, parts: 1, encoding: 'GSM-7' });
    expect(await get(client, created.campaignId)).toMatchObject({ total: 3, queued: 3, held: 0, sent: 0, cancelled: 0 });
    // A message of no campaign says none.
    expect((await fleet.get(client, await fleet.send(client, a))).campaignId).toBe('');
  });

  it('when a name is empty or too long, or more than 100 messages come at once, then the request is refused', async () => {
    const client = newClientId();
    expect(await failure(svc.client.createCampaign({ clientId: client, mode: 'MODE_LIVE', name: '   ' }))).toBe('VALIDATION_ERROR');
    expect(await failure(svc.client.createCampaign({ clientId: client, mode: 'MODE_LIVE', name: 'x'.repeat(101) }))).toBe(
      'VALIDATION_ERROR',
    );
    const id = await create(client);
    const many = Array.from({ length: 101 }, () => newDeviceId());
    expect(await failure(add(client, id, many))).toBe('TOO_MANY_RECIPIENTS');
  });

  it('when another client or the other mode names a campaign, then it is CAMPAIGN_NOT_FOUND on every call, and lists stay apart', async () => {
    const [owner, other] = [newClientId(), newClientId()];
    const id = await create(owner, 'Mine');
    await create(owner, 'Test', 'MODE_TEST');
    const device = newDeviceId();
    for (const call of [
      () => get(other, id),
      () => svc.client.getCampaign({ clientId: owner, mode: 'MODE_TEST', campaignId: id }),
      () => add(other, id, [device]),
      () => svc.client.pauseCampaign(live(other, id)),
      () => svc.client.resumeCampaign(live(other, id)),
      () => svc.client.cancelCampaign(live(other, id)),
    ]) {
      expect(await failure(call())).toBe('CAMPAIGN_NOT_FOUND');
    }
    expect(await get(owner, id)).toMatchObject({ status: 'running', total: 0 });

    const mine = await svc.client.listCampaigns({ clientId: owner, mode: 'MODE_LIVE', page: 1, limit: 20 });
    expect(mine).toMatchObject({ totalItems: 1, page: 1, perPage: 20, totalPages: 1 });
    expect(mine.campaigns.map((c) => c.name)).toEqual(['Mine']);
    expect((await svc.client.listCampaigns({ clientId: other, mode: 'MODE_LIVE', page: 1, limit: 20 })).totalItems).toBe(0);
  });

  it('when a campaign is paused, then no claim takes its messages while another message of the phone is still claimable, and status shows them queued', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const id = await create(client);
    const held = await add(client, id, [device, device]);
    const other = await fleet.send(client, device, { priority: 5 });

    const paused = await svc.client.pauseCampaign(live(client, id));
    expect(paused).toMatchObject({ status: 'paused', queued: 0, held: 2, total: 2 });
    // Added while paused: held at once.
    const later = await add(client, id, [device]);
    expect(await get(client, id)).toMatchObject({ held: 3, queued: 0 });

    expect(await fleet.claim(device, client)).toBe(other);
    expect(await fleet.claim(device, client)).toBeUndefined();
    // The phone's queue counts the message it is taking, not the held ones.
    expect(await svc.client.queueDepths({ deviceIds: [device] })).toEqual({ depths: { [device]: 1 }, repairs: {} });
    for (const m of [...held, ...later]) expect(await fleet.get(client, m)).toMatchObject({ status: 'queued', campaignId: id });
    // Pausing again changes nothing.
    expect(await svc.client.pauseCampaign(live(client, id))).toMatchObject({ status: 'paused', held: 3 });
  });

  it('when a campaign is paused, then its messages do not expire, fail over, or count as stranded', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const id = await create(client);
    const [first, second] = await add(client, id, [device, device]);
    await svc.client.pauseCampaign(live(client, id));

    await svc.pool.query(`UPDATE messages SET expires_at = now() - interval '1 second' WHERE message_id = $1`, [first]);
    await sleep(700); // several expiry sweeps
    expect(await fleet.row(first!)).toMatchObject({ status: 'queued', held: true });

    const released = await svc.client.releaseDevice({ clientId: client, deviceId: device, reason: 'RELEASE_REASON_OFFLINE' });
    expect(released).toMatchObject({ moved: 0 });
    expect(await fleet.row(second!)).toMatchObject({ status: 'queued', held: true, fleet: false });
    const { devices } = await svc.client.strandedDevices({});
    expect(devices.map((d) => d.deviceId)).not.toContain(device);
  });

  it('when a paused campaign is resumed, then its messages are claimable again and its phone is woken', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const id = await create(client);
    const [first, second] = await add(client, id, [device, device]);
    await svc.client.pauseCampaign(live(client, id));
    expect(await fleet.claim(device, client)).toBeUndefined();

    let wakes = 0;
    const sub = fleet.nats.nc.subscribe(fleet.nats.names.wake(client, device), {
      callback: () => {
        wakes++;
      },
    });
    await fleet.nats.nc.flush();
    expect(await svc.client.resumeCampaign(live(client, id))).toMatchObject({ status: 'running', queued: 2, held: 0 });
    await fleet.nats.nc.flush();
    await sleep(100);
    sub.unsubscribe();
    expect(wakes).toBe(1);
    expect(await fleet.claim(device, client)).toBe(first);
    expect(await fleet.claim(device, client)).toBe(second);
  });

  it('when a campaign is cancelled, then its untaken messages end cancelled, the one a phone took goes on, and it refuses to move again', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const id = await create(client);
    const [taken, waiting, other] = await add(client, id, [device, device, device]);
    expect(await fleet.claim(device, client)).toBe(taken);
    await svc.client.acceptMessage({ deviceId: device, messageId: taken, at: new Date().toISOString() });
    await svc.client.pauseCampaign(live(client, id)); // `waiting` and `other` held, cancelled as well

    const cancelled = await svc.client.cancelCampaign(live(client, id));
    expect(cancelled).toMatchObject({ status: 'cancelled', total: 3, queued: 1, held: 0, cancelled: 2 });
    expect(await fleet.get(client, waiting!)).toMatchObject({ status: 'cancelled' });
    expect((await fleet.get(client, other!)).cancelledAt).not.toBe('');
    expect(await fleet.get(client, taken!)).toMatchObject({ status: 'queued' });

    expect(await failure(add(client, id, [device]))).toBe('CAMPAIGN_NOT_RUNNING');
    expect(await failure(svc.client.pauseCampaign(live(client, id)))).toBe('CAMPAIGN_NOT_RUNNING');
    expect(await failure(svc.client.resumeCampaign(live(client, id)))).toBe('CAMPAIGN_NOT_RUNNING');
    expect(await svc.client.cancelCampaign(live(client, id))).toMatchObject({ status: 'cancelled', cancelled: 2 });
    expect(await get(client, id)).toMatchObject({ total: 3 });
  });

  it('when its messages are sent, delivered, failed or opted out, then the counts follow each state', async () => {
    const client = newClientId();
    const device = newDeviceId();
    await svc.client.addOptOut({ clientId: client, mode: 'MODE_LIVE', phoneNumber: '+33612345603', source: 'api' });
    const id = await create(client);
    const [sent, delivered, failed] = await add(client, id, [device, device, device, device, device]);
    await fleet.report({ message_id: sent!, device_id: device, status: 'sent', at: new Date().toISOString() });
    await fleet.report({ message_id: delivered!, device_id: device, status: 'delivered', at: new Date().toISOString() });
    await fleet.report({
      message_id: failed!,
      device_id: device,
      status: 'failed',
      at: new Date().toISOString(),
      error: { code: 'DEVICE_ERROR', message: 'radio' },
    });
    await svc.client.pauseCampaign(live(client, id));
    // +33612345603 is on the list: stored failed (OPTED_OUT); the fifth is held.
    expect(await get(client, id)).toMatchObject({ total: 5, queued: 0, held: 1, sent: 1, delivered: 1, failed: 2, cancelled: 0 });
  });

  const addToFleet = async (clientId: string, campaignId: string, count: number, named = newDeviceId()) =>
    (
      await svc.client.addCampaignMessages({
        ...live(clientId, campaignId),
        deviceIds: [named],
        fleet: true,
        messages: Array.from({ length: count }, (_, i) => ({ to: `+3361234560${i}`, text: `Bonjour ${i}`, metadataJson: '' })),
      })
    ).messages.map((m) => m.messageId);

  it('when messages are added to the fleet, then they are stored open to it (naming one phone until claimed), the phones are woken, and two phones share them by claiming, each once', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const { campaignId } = await svc.client.createCampaign({ clientId: client, mode: 'MODE_LIVE', name: 'Soldes' });

    const ids = await addToFleet(client, campaignId, 4, a);

    expect(await fleet.row(ids[0]!)).toMatchObject({ fleet: true, device_id: a, status: 'queued', campaign_id: campaignId });
    await eventually(async () => fleet.lastWake(client) === '4', 5000, 'the fleet wake-up');
    const taken = [await fleet.claim(a, client), await fleet.claim(b, client), await fleet.claim(a, client), await fleet.claim(b, client)];
    expect(new Set(taken)).toEqual(new Set(ids));
    expect(await fleet.claim(a, client)).toBeUndefined();
    expect((await fleet.get(client, taken[1]!)).deviceId).toBe(b);
    expect(await fleet.row(taken[0]!)).toMatchObject({ fleet: false, device_id: a });
    expect(await svc.client.getCampaign(live(client, campaignId))).toMatchObject({ total: 4, queued: 4 });
  });

  it('when a paused campaign gets fleet messages, then they are held, and its resume opens them to the phones', async () => {
    const client = newClientId();
    const device = newDeviceId();
    const { campaignId } = await svc.client.createCampaign({ clientId: client, mode: 'MODE_LIVE', name: 'Pause' });
    await svc.client.pauseCampaign(live(client, campaignId));

    const [id] = await addToFleet(client, campaignId, 1);

    expect(await fleet.claim(device, client)).toBeUndefined();
    await svc.client.resumeCampaign(live(client, campaignId));
    expect(await fleet.claim(device, client)).toBe(id);
  });

  it('when a test-mode campaign asks for the fleet, then INVALID_DEVICE_ID: test keys have no fleet', async () => {
    const client = newClientId();
    const { campaignId } = await svc.client.createCampaign({ clientId: client, mode: 'MODE_TEST', name: 'Test' });
    const call = svc.client.addCampaignMessages({
      clientId: client,
      mode: 'MODE_TEST',
      campaignId,
      deviceIds: ['device_t'],
      fleet: true,
      messages: [{ to: '+33612345600', text: 'Bonjour', metadataJson: '' }],
    });
    await expect(call).rejects.toMatchObject({ code: 'INVALID_DEVICE_ID' });
  });
});
