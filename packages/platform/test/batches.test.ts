import { Batches } from '../src/batches';

const turn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A `run` that records each batch and answers each key with its value doubled, when released. */
function recorder() {
  const batches: Array<Map<string, number>> = [];
  let release: () => void = () => undefined;
  let gate: Promise<void> | undefined;
  return {
    batches,
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    run: async (items: ReadonlyMap<string, number>) => {
      batches.push(new Map(items));
      if (gate) await gate;
      return new Map([...items].map(([k, v]) => [k, v * 2]));
    },
  };
}

describe('Batches: calls one key at a time, run many keys at once', () => {
  it('runs the keys added in one turn as one batch and gives every caller its answers', async () => {
    const r = recorder();
    const batches = new Batches(r.run);

    const answers = await Promise.all(['a', 'b', 'c'].map((k, i) => batches.add(k, i + 1)));

    expect(r.batches).toEqual([
      new Map([
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ]),
    ]);
    expect(answers.map((a, i) => a.get(['a', 'b', 'c'][i]!))).toEqual([2, 4, 6]);
  });

  it('keeps the last value of a key added twice, and runs the keys added while a batch is on its way in the next one', async () => {
    const r = recorder();
    const batches = new Batches(r.run);
    r.hold();
    const first = batches.add('a', 1);
    await turn();
    const second = [batches.add('b', 1), batches.add('b', 5), batches.add('c', 7)];
    await turn();
    expect(r.batches).toHaveLength(1);
    r.release();

    expect((await first).get('a')).toBe(2);
    expect((await Promise.all(second)).map((a) => a.get('b'))).toEqual([10, 10, 10]);
    expect(r.batches).toEqual([
      new Map([['a', 1]]),
      new Map([
        ['b', 5],
        ['c', 7],
      ]),
    ]);
  });

  it('waits up to delayMs for more keys, and leaves sooner when a key asks for a shorter delay', async () => {
    const r = recorder();
    const batches = new Batches(r.run);
    void batches.add('a', 1, 200);
    await sleep(50);
    void batches.add('b', 2, 200);
    expect(r.batches).toHaveLength(0);
    await sleep(250);
    expect(r.batches).toEqual([
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    ]);

    void batches.add('c', 3, 10_000);
    await batches.add('d', 4);
    expect(r.batches[1]).toEqual(
      new Map([
        ['c', 3],
        ['d', 4],
      ]),
    );
  });

  it('lets a batch made while another runs wait for its own delay, so that it gathers more keys', async () => {
    const r = recorder();
    const batches = new Batches(r.run);
    r.hold();
    const first = batches.add('a', 1);
    await turn();
    const added = Date.now();
    const later = batches.add('b', 2, 150);
    r.release();
    await first;
    await sleep(20);
    void batches.add('c', 3, 150);

    await later;
    expect(Date.now() - added).toBeGreaterThanOrEqual(140);
    expect(r.batches).toEqual([
      new Map([['a', 1]]),
      new Map([
        ['b', 2],
        ['c', 3],
      ]),
    ]);
  });

  it('drops a key whose value matches before its batch leaves, and still answers a batch left empty', async () => {
    const r = recorder();
    const batches = new Batches(r.run);
    const only = batches.add('a', 1);
    batches.drop('a', (v) => v === 2);
    batches.drop('b', () => true);
    await only;
    expect(r.batches).toEqual([new Map([['a', 1]])]);

    const dropped = batches.add('x', 9);
    batches.drop('x', (v) => v === 9);
    expect((await dropped).size).toBe(0);
    expect(r.batches).toHaveLength(1);
  });

  it('rejects every caller of a failed batch, reports it once, and runs the next batch', async () => {
    const failures: number[] = [];
    let fail = true;
    const batches = new Batches<string, number, number>(
      async (items) => {
        if (fail) throw new Error('down');
        return new Map([...items].map(([k, v]) => [k, v]));
      },
      (_err, size) => failures.push(size),
    );

    const calls = [batches.add('a', 1), batches.add('b', 2)];
    await expect(Promise.all(calls)).rejects.toThrow('down');
    expect(failures).toEqual([2]);

    fail = false;
    expect((await batches.add('c', 3)).get('c')).toBe(3);
  });

  it('does not crash the process when a failed batch had no caller left to listen', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const batches = new Batches<string, number, number>(async () => {
        throw new Error('down');
      });
      void batches.add('a', 1, 5);
      await sleep(30);
      await turn();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});
