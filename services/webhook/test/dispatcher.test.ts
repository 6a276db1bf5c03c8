import { createLogger } from '@smsgw/platform';
import type { DeliveryJob } from '../src/data/delivery.repository';
import { Dispatcher } from '../src/delivery/dispatcher';

let n = 0;
const job = (over: Partial<DeliveryJob>): DeliveryJob => ({
  deliveryId: `dlv_${++n}`,
  eventId: `evt_${n}`,
  kind: 'sms.sent',
  clientId: 'client_a',
  endpointId: 'whe_a',
  url: 'https://a.example/hook',
  data: '{}',
  traceparent: null,
  attempt: 1,
  secret: 's',
  ...over,
});

/** A run function whose attempts stay open until the test releases them. */
function controlled() {
  const open = new Map<string, () => void>();
  const started: string[] = [];
  const run = (j: DeliveryJob) =>
    new Promise<void>((resolve) => {
      started.push(j.deliveryId);
      open.set(j.deliveryId, resolve);
    });
  const release = async (id: string) => {
    open.get(id)!();
    open.delete(id);
    await new Promise((r) => setImmediate(r));
  };
  return { run, open, started, release };
}

const log = createLogger('dispatcher-test', 'silent');

describe('dispatcher', () => {
  it('when one endpoint hangs, then it holds at most its own share and another endpoint of the same client starts at once', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 10, perDestination: 2, perClient: 10, maxQueuedPerDestination: 100 }, log);
    const slow = Array.from({ length: 5 }, () => job({ endpointId: 'whe_slow' }));
    for (const j of slow) d.enqueue(j);
    const fast = job({ endpointId: 'whe_fast' });
    d.enqueue(fast);
    expect(c.started).toEqual([slow[0]!.deliveryId, slow[1]!.deliveryId, fast.deliveryId]);
    expect(d.size).toBe(6);
  });

  it('when a client has many slow destinations, then another client still gets a slot', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 10, perDestination: 2, perClient: 3, maxQueuedPerDestination: 100 }, log);
    for (let i = 0; i < 6; i++) d.enqueue(job({ clientId: 'client_busy', endpointId: `whe_${i}` }));
    const other = job({ clientId: 'client_quiet', endpointId: 'whe_q' });
    d.enqueue(other);
    expect(c.started).toHaveLength(4);
    expect(c.started).toContain(other.deliveryId);
  });

  it('when attempts to one destination finish, then the next start in the order they were queued', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 10, perDestination: 1, perClient: 10, maxQueuedPerDestination: 100 }, log);
    const jobs = Array.from({ length: 4 }, () => job({}));
    for (const j of jobs) d.enqueue(j);
    for (const j of jobs) await c.release(j.deliveryId);
    expect(c.started).toEqual(jobs.map((j) => j.deliveryId));
    await d.idle();
    expect(d.size).toBe(0);
  });

  it('when the global bound is reached, then nothing more starts until a slot frees', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 2, perDestination: 5, perClient: 5, maxQueuedPerDestination: 100 }, log);
    const jobs = Array.from({ length: 3 }, (_, i) => job({ endpointId: `whe_g${i}` }));
    for (const j of jobs) d.enqueue(j);
    expect(c.started).toHaveLength(2);
    await c.release(c.started[0]!);
    expect(c.started).toHaveLength(3);
  });

  it('when a destination queue is full, then more is refused; a job queued twice runs once; after stop, queued work is let go', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 1, perDestination: 1, perClient: 1, maxQueuedPerDestination: 2 }, log);
    const [a, b, x] = [job({}), job({}), job({})];
    expect(d.enqueue(a)).toBe(true); // in flight
    expect(d.enqueue(b)).toBe(true);
    expect(d.enqueue(b)).toBe(true);
    expect(d.enqueue(x)).toBe(true);
    expect(d.enqueue(job({}))).toBe(false);
    const stopped = d.stop();
    await c.release(a.deliveryId);
    await stopped;
    expect(c.started).toEqual([a.deliveryId]);
    expect(d.enqueue(job({}))).toBe(false);
  });
});
