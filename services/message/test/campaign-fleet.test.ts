import { eventually } from './support/database';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

describe("a campaign's messages without phones go to the fleet", () => {
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

  const live = (clientId: string, campaignId: string) => ({ clientId, mode: 'MODE_LIVE' as const, campaignId });
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
