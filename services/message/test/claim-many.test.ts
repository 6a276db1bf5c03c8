import { assignClaims, type FleetCandidate, type QueueHead } from '../src/domain/queue-order';
import { fleetHarness, newClientId, newDeviceId, type FleetHarness } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

const head = (message_id: string, priority = 3, due = '2030-01-01T00:00:00.000Z'): QueueHead => ({
  message_id,
  priority,
  due_at: new Date(due),
});
const candidate = (message_id: string, extra: Partial<FleetCandidate> = {}): FleetCandidate => ({
  ...head(message_id),
  client_id: 'client_a',
  avoid_device_id: null,
  requested_sim: 0,
  ...extra,
});

describe('assignClaims: what each claim of a batch takes', () => {
  const claim = (deviceId: string, sims: number[] = []) => ({ deviceId, clientId: 'client_a', sims });

  it('when phones have their own heads and the fleet has messages that go before, then each fleet message goes to one phone, the others keep their heads', () => {
    const own = new Map([
      [0, head('msg_own_a', 3)],
      [1, head('msg_own_b', 3)],
    ]);
    const fleet = [candidate('msg_fleet_1', { priority: 1 })];
    expect(assignClaims([claim('dev_a'), claim('dev_b')], own, fleet)).toEqual(['msg_fleet_1', 'msg_own_b']);
  });

  it('when a fleet message goes after a phone head, or must keep off that phone, or asks for a SIM without room, then the phone takes its own head or nothing', () => {
    const own = new Map([[0, head('msg_own_a', 1)]]);
    expect(assignClaims([claim('dev_a')], own, [candidate('msg_later', { priority: 2 })])).toEqual(['msg_own_a']);
    expect(assignClaims([claim('dev_a')], new Map(), [candidate('msg_avoid', { avoid_device_id: 'dev_a' })])).toEqual([undefined]);
    expect(assignClaims([claim('dev_a', [1])], new Map(), [candidate('msg_sim2', { requested_sim: 2 })])).toEqual([undefined]);
    expect(assignClaims([claim('dev_a', [2])], new Map(), [candidate('msg_sim2', { requested_sim: 2 })])).toEqual(['msg_sim2']);
  });

  it('when the fleet message belongs to another client, then it is not taken', () => {
    expect(assignClaims([claim('dev_a')], new Map(), [candidate('msg_other', { client_id: 'client_b' })])).toEqual([undefined]);
  });
});

describe('ClaimMany and AcceptMany: many phones in one call', () => {
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

  it('when three phones claim at once, then each gets its own oldest message under a lease, and a phone with nothing due gets none', async () => {
    const client = newClientId();
    const [a, b, idle] = [newDeviceId(), newDeviceId(), newDeviceId()];
    const a1 = await fleet.send(client, a);
    await fleet.send(client, a);
    const b1 = await fleet.send(client, b);

    const { results } = await svc.client.claimMany({
      claims: [a, b, idle].map((deviceId) => ({ deviceId, clientId: client, leaseMs: 30_000, mode: 'MODE_LIVE' })),
    });

    expect(results.map((r) => r.message?.messageId ?? '')).toEqual([a1, b1, '']);
    expect(results.map((r) => r.attempt)).toEqual([1, 1, 0]);
    expect(await fleet.row(a1)).toMatchObject({ claim_count: 1, device_id: a });
    expect((await fleet.row(a1)).lease_until).not.toBeNull();
    // Under its lease, the message is not claimed again.
    expect((await svc.client.claimMany({ claims: [{ deviceId: b, clientId: client, leaseMs: 30_000 }] })).results[0]!.message).toBeNull();
  });

  it('when a message of the fleet is due and two phones claim together, then exactly one of them takes it', async () => {
    const client = newClientId();
    const [a, b, gone] = [newDeviceId(), newDeviceId(), newDeviceId()];
    const id = await fleet.send(client, gone);
    await svc.client.releaseDevice({ clientId: client, deviceId: gone, reason: 'RELEASE_REASON_OFFLINE' });

    const { results } = await svc.client.claimMany({
      claims: [a, b].map((deviceId) => ({ deviceId, clientId: client, leaseMs: 30_000 })),
    });

    const taken = results.filter((r) => r.message?.messageId === id);
    expect(taken).toHaveLength(1);
    const taker = results[0]!.message?.messageId === id ? a : b;
    expect(await fleet.row(id)).toMatchObject({ device_id: taker, fleet: false, claim_count: 1 });
  });

  it('when one device is named twice in a call, then the call is refused with VALIDATION_ERROR and nothing is claimed', async () => {
    const client = newClientId();
    const a = newDeviceId();
    const id = await fleet.send(client, a);

    await expect(
      svc.client.claimMany({ claims: [a, a].map((deviceId) => ({ deviceId, clientId: client, leaseMs: 30_000 })) }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await fleet.row(id)).toMatchObject({ claim_count: 0, lease_until: null });
  });

  it('when phones acknowledge together, then each message is theirs, in the order asked, and an unknown one answers not accepted', async () => {
    const client = newClientId();
    const [a, b] = [newDeviceId(), newDeviceId()];
    const [ida, idb] = [await fleet.send(client, a), await fleet.send(client, b)];
    await fleet.claim(a, client);
    await fleet.claim(b, client);
    const at = '2030-05-06T07:00:00.000Z';

    const { results } = await svc.client.acceptMany({
      accepts: [
        { deviceId: b, messageId: idb, at, sim: 2 },
        { deviceId: a, messageId: 'msg_unknown', at },
        { deviceId: a, messageId: ida, at },
      ],
    });

    expect(results).toEqual([
      { accepted: true, status: 'queued' },
      { accepted: false, status: '' },
      { accepted: true, status: 'queued' },
    ]);
    expect(await fleet.row(idb)).toMatchObject({ accepted_at: new Date(at), lease_until: null, sim: 2 });
    expect(await fleet.row(ida)).toMatchObject({ accepted_at: new Date(at) });
  });
});
