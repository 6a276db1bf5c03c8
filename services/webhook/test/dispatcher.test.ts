import { createLogger } from '@smsgw/platform';
import type { DeliveryJob } from '../src/data/delivery.repository';
import { Dispatcher, type Attempt } from '../src/delivery/dispatcher';

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
  batch: false,
  ...over,
});

/** A run function whose attempts stay open until the test releases them. */
function controlled() {
  const open = new Map<string, () => void>();
  const started: string[] = [];
  const run = ({ jobs: [j] }: Attempt) =>
    new Promise<void>((resolve) => {
      started.push(j!.deliveryId);
      open.set(j!.deliveryId, resolve);
    });
  const release = async (id: string) => {
    open.get(id)!();
    open.delete(id);
    await new Promise((r) => setImmediate(r));
  };
  return { run, open, started, release };
}

const log = createLogger('dispatcher-test', 'silent');
const W = { batchWindowMs: 1000 };

describe('dispatcher', () => {
  it('when one endpoint hangs, then it holds at most its own share and another endpoint of the same client starts at once', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 10, perDestination: 2, perClient: 10, maxQueuedPerDestination: 100, ...W }, log);
    const slow = Array.from({ length: 5 }, () => job({ endpointId: 'whe_slow' }));
    for (const j of slow) d.enqueue(j);
    const fast = job({ endpointId: 'whe_fast' });
    d.enqueue(fast);
    expect(c.started).toEqual([slow[0]!.deliveryId, slow[1]!.deliveryId, fast.deliveryId]);
    expect(d.size).toBe(6);
  });

  it('when a client has many slow destinations, then another client still gets a slot', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 10, perDestination: 2, perClient: 3, maxQueuedPerDestination: 100, ...W }, log);
    for (let i = 0; i < 6; i++) d.enqueue(job({ clientId: 'client_busy', endpointId: `whe_${i}` }));
    const other = job({ clientId: 'client_quiet', endpointId: 'whe_q' });
    d.enqueue(other);
    expect(c.started).toHaveLength(4);
    expect(c.started).toContain(other.deliveryId);
  });

  it('when attempts to one destination finish, then the next start in the order they were queued', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 10, perDestination: 1, perClient: 10, maxQueuedPerDestination: 100, ...W }, log);
    const jobs = Array.from({ length: 4 }, () => job({}));
    for (const j of jobs) d.enqueue(j);
    for (const j of jobs) await c.release(j.deliveryId);
    expect(c.started).toEqual(jobs.map((j) => j.deliveryId));
    await d.idle();
    expect(d.size).toBe(0);
  });

  it('when the global bound is reached, then nothing more starts until a slot frees', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 2, perDestination: 5, perClient: 5, maxQueuedPerDestination: 100, ...W }, log);
    const jobs = Array.from({ length: 3 }, (_, i) => job({ endpointId: `whe_g${i}` }));
    for (const j of jobs) d.enqueue(j);
    expect(c.started).toHaveLength(2);
    await c.release(c.started[0]!);
    expect(c.started).toHaveLength(3);
  });

  it('when a destination queue is full, then more is refused; a job queued twice runs once; after stop, queued work is let go', async () => {
    const c = controlled();
    const d = new Dispatcher(c.run, { maxInFlight: 1, perDestination: 1, perClient: 1, maxQueuedPerDestination: 2, ...W }, log);
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

  it("when a delivery's next attempt comes while its previous one is still finishing, then it is taken and runs, and the delivery stays held until both end", async () => {
    const open = new Map<string, () => void>();
    const started: string[] = [];
    const run = ({ jobs: [j] }: Attempt) =>
      new Promise<void>((resolve) => {
        started.push(`${j!.deliveryId}#${j!.attempt}`);
        open.set(`${j!.deliveryId}#${j!.attempt}`, resolve);
      });
    const end = async (key: string) => {
      open.get(key)!();
      await new Promise((r) => setImmediate(r));
    };
    const d = new Dispatcher(run, { maxInFlight: 10, perDestination: 2, perClient: 10, maxQueuedPerDestination: 10, ...W }, log);
    const first = job({});
    const second = { ...first, attempt: 2 };

    expect(d.enqueue(first)).toBe(true);
    expect(d.enqueue(second)).toBe(true);
    expect(d.enqueue(second)).toBe(true);
    expect(d.enqueue(first)).toBe(true);

    expect(started).toEqual([`${first.deliveryId}#1`, `${first.deliveryId}#2`]);
    await end(`${first.deliveryId}#1`);
    expect(d.heldIds()).toEqual([first.deliveryId]);
    await end(`${first.deliveryId}#2`);
    expect(d.size).toBe(0);
  });

  describe('batched endpoints', () => {
    /** A run function that records each attempt (its batch id and deliveries) and keeps it open until released. */
    function recording() {
      const attempts: Attempt[] = [];
      const open: (() => void)[] = [];
      const run = (a: Attempt) =>
        new Promise<void>((resolve) => {
          attempts.push(a);
          open.push(resolve);
        });
      const releaseAll = async () => {
        for (const r of open.splice(0)) r();
        await new Promise((r) => setImmediate(r));
      };
      return { run, attempts, releaseAll };
    }
    const batched = (over: Partial<DeliveryJob> = {}) => job({ endpointId: 'whe_batch', batch: true, ...over });

    it('when 250 deliveries of a batched endpoint come at once, then they leave as batches of 100, 100 and, after the window, 50, each one attempt in flight', async () => {
      const r = recording();
      const d = new Dispatcher(
        r.run,
        { maxInFlight: 10, perDestination: 1, perClient: 10, maxQueuedPerDestination: 1000, batchWindowMs: 200 },
        log,
      );
      const jobs = Array.from({ length: 250 }, () => batched());
      for (const j of jobs) expect(d.enqueue(j)).toBe(true);

      // One in flight to the destination: the second full batch waits for the first.
      expect(r.attempts.map((a) => a.jobs.length)).toEqual([100]);
      await r.releaseAll();
      expect(r.attempts.map((a) => a.jobs.length)).toEqual([100, 100]);
      await r.releaseAll();
      expect(r.attempts).toHaveLength(2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(r.attempts.map((a) => a.jobs.length)).toEqual([100, 100, 50]);
      expect(r.attempts.flatMap((a) => a.jobs.map((j) => j.deliveryId))).toEqual(jobs.map((j) => j.deliveryId));
      expect(new Set(r.attempts.map((a) => a.batchId)).size).toBe(3);
      expect(r.attempts.every((a) => a.batchId?.startsWith('whb_'))).toBe(true);
      await r.releaseAll();
      await d.idle();
      expect(d.size).toBe(0);
    });

    it('when a batched delivery comes alone, then it leaves within the window as a batch of one; other endpoints do not wait for it', async () => {
      const r = recording();
      const d = new Dispatcher(
        r.run,
        { maxInFlight: 10, perDestination: 5, perClient: 10, maxQueuedPerDestination: 100, batchWindowMs: 150 },
        log,
      );
      const lonely = batched();
      const single = job({ endpointId: 'whe_single' });
      const startedAt = Date.now();
      d.enqueue(lonely);
      d.enqueue(single);

      expect(r.attempts).toEqual([{ batchId: null, jobs: [single] }]);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(r.attempts[1]).toEqual({ batchId: expect.stringMatching(/^whb_/), jobs: [lonely] });
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(150);
      await r.releaseAll();
    });

    it('when a batch is retried, then its deliveries leave together at once under its id, never mixed with first attempts; an endpoint no longer batched gets them one a POST', async () => {
      const r = recording();
      const d = new Dispatcher(
        r.run,
        { maxInFlight: 10, perDestination: 5, perClient: 10, maxQueuedPerDestination: 100, batchWindowMs: 10_000 },
        log,
      );
      const first = batched();
      const retried = [batched({ attempt: 2 }), batched({ attempt: 2 })];
      d.enqueue(first);
      expect(d.enqueueBatch('whb_again', retried)).toBe(true);
      expect(d.enqueueBatch('whb_again', retried)).toBe(true);
      const unbatched = [job({ endpointId: 'whe_was_batched', attempt: 3 }), job({ endpointId: 'whe_was_batched', attempt: 3 })];
      d.enqueueBatch('whb_other', unbatched);

      expect(r.attempts).toEqual([
        { batchId: 'whb_again', jobs: retried },
        { batchId: null, jobs: [unbatched[0]] },
        { batchId: null, jobs: [unbatched[1]] },
      ]);
      // The first attempt still gathers; stopping lets it go.
      expect(d.heldIds()).toContain(first.deliveryId);
      const stopped = d.stop();
      await r.releaseAll();
      await stopped;
      expect(d.size).toBe(0);
      expect(r.attempts).toHaveLength(3);
    });

    it('when a batched destination holds all it may, then more deliveries are refused (they wait in Postgres for the sweep)', () => {
      const r = recording();
      const d = new Dispatcher(
        r.run,
        { maxInFlight: 10, perDestination: 1, perClient: 10, maxQueuedPerDestination: 150, batchWindowMs: 10_000 },
        log,
      );
      const accepted = Array.from({ length: 250 }, () => d.enqueue(batched()));
      // 100 in flight (no longer waiting), then 150 waiting: the 251st is refused.
      expect(accepted.every(Boolean)).toBe(true);
      expect(d.enqueue(batched())).toBe(false);
      expect(d.enqueueBatch('whb_full', [batched({ attempt: 2 })])).toBe(false);
      void d.stop();
    });
  });
});
