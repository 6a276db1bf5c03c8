import { createLogger, type AgentReceived } from '@smsgw/platform';
import type { DeviceRow } from '../src/data/device-row';
import type { FrameBudgetStore } from '../src/data/frame-budget.store';
import { ReceivedRelay } from '../src/sessions/received-relay';

/** The ReceivedRelay alone: what the phone is answered when the store fails, and the simulate_received gate. */
describe('received relay', () => {
  const device = { device_id: 'device_abc', client_id: 'client_abc' } as DeviceRow;
  const log = createLogger('device-hub-test', 'silent');
  const frame = { type: 'received', received_id: 'r-1', from: '+33612345678', text: 'Bonjour' };

  function relayWith(publish: (received: AgentReceived) => Promise<void>) {
    const sent: Record<string, unknown>[] = [];
    const relay = new ReceivedRelay(device, { received: { publish } as never, clock: () => 0 }, log, (f) => sent.push(f));
    return { relay, sent };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('when the store in JetStream fails, then the phone is not answered (it sends the SMS again later)', async () => {
    const { relay, sent } = relayWith(() => Promise.reject(new Error('no JetStream')));
    expect(relay.handles(frame)).toBe(true);
    await settle();
    expect(sent).toEqual([]);
  });

  it('when the store succeeds, then the phone is answered only after it', async () => {
    let stored!: () => void;
    const { relay, sent } = relayWith(() => new Promise<void>((resolve) => (stored = resolve)));
    relay.handles(frame);
    await settle();
    expect(sent).toEqual([]);
    stored();
    await settle();
    expect(sent).toEqual([{ type: 'received_ack', received_id: 'r-1' }]);
  });

  it('when the budgets have no room, then the SMS is not stored and the phone is told when to send it again, weighed by its parts', async () => {
    const publish = jest.fn(() => Promise.resolve());
    const take = jest.fn(() => Promise.resolve({ allowed: false, retryAfterMs: 4000, by: 'client' as const }));
    const sent: Record<string, unknown>[] = [];
    const budgets = { take } as unknown as FrameBudgetStore;
    const relay = new ReceivedRelay(device, { received: { publish } as never, clock: () => 0, budgets }, log, (f) => sent.push(f));
    relay.handles({ ...frame, text: 'é'.repeat(200) });
    await settle();
    expect(take).toHaveBeenCalledWith('received', device, 2);
    expect(publish).not.toHaveBeenCalled();
    expect(sent).toEqual([{ type: 'received_retry', received_id: 'r-1', after_ms: expect.any(Number) }]);
    expect(sent[0]!.after_ms).toBeGreaterThanOrEqual(4000);
    expect(sent[0]!.after_ms).toBeLessThanOrEqual(5000);
  });

  it('when the budgets cannot be read, then the SMS is not stored and the phone is told to send it again in about 10 s', async () => {
    const publish = jest.fn(() => Promise.resolve());
    const budgets = { take: () => Promise.reject(new Error('no Redis')) } as unknown as FrameBudgetStore;
    const sent: Record<string, unknown>[] = [];
    const relay = new ReceivedRelay(device, { received: { publish } as never, clock: () => 0, budgets }, log, (f) => sent.push(f));
    relay.handles(frame);
    await settle();
    expect(publish).not.toHaveBeenCalled();
    expect(sent).toEqual([{ type: 'received_retry', received_id: 'r-1', after_ms: expect.any(Number) }]);
    expect(sent[0]!.after_ms).toBeGreaterThanOrEqual(10_000);
  });

  it('when a frame without any received_id comes, then nothing is stored or answered', async () => {
    const publish = jest.fn(() => Promise.resolve());
    const { relay, sent } = relayWith(publish);
    relay.handles({ type: 'received', from: '+33612345678', text: 'x' });
    await settle();
    expect(publish).not.toHaveBeenCalled();
    expect(sent).toEqual([]);
  });

  it.each([
    ['no agent_hello (protocol 2)', undefined, false],
    ['an android driver', { type: 'agent_hello', protocol: 3, driver: 'android' }, false],
    ['a simulator of protocol 3', { type: 'agent_hello', protocol: 3, driver: 'simulator' }, true],
  ])('when the agent said %s, then simulate_received is sent accordingly', (_what, hello, expected) => {
    const { relay, sent } = relayWith(() => Promise.resolve());
    if (hello) relay.handles(hello);
    expect(relay.simulate({ from: 'X', text: 'y' })).toBe(expected);
    expect(sent).toEqual(expected ? [{ type: 'simulate_received', from: 'X', text: 'y' }] : []);
  });
});
