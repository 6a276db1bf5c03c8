import { AppError } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { SendCoalescer } from '../src/clients/send-coalescer';

const receipt = (messageId: string): message.SendReceipt__Output => ({
  messageId,
  status: 'queued',
  parts: 1,
  encoding: 'GSM-7',
  queuedAt: '2030-01-15T10:00:00.000Z',
  scheduledAt: '',
  estimatedDelivery: '2030-01-15T10:00:02.500Z',
  replayed: false,
  deviceId: 'device_1',
});

/** A SendMany stand-in whose calls are answered when the test says so. */
function fakeSendMany() {
  const calls: {
    items: message.SendManyItem[];
    deadlineMs: number;
    answer(results?: message.SendManyResult__Output[]): void;
    fail(err: unknown): void;
  }[] = [];
  const sendMany = (request: message.SendManyRequest, deadlineMs: number) =>
    new Promise<message.SendManyResponse__Output>((resolve, reject) => {
      const items = request.items ?? [];
      calls.push({
        items,
        deadlineMs,
        answer: (results) =>
          resolve({
            results:
              results ??
              items.map((item) => ({
                receipt: receipt(`msg_for_${item.request!.message!.text}`),
                errorCode: '',
                errorMessage: '',
              })),
          }),
        fail: reject,
      });
    });
  return { calls, sendMany };
}

/** Waiting limits that the tests below never reach, except those about them. */
const LIMITS = { maxWaiting: 10_000, deadlineMs: 60_000, minCallMs: 10 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const request = (text: string): message.SendRequest => ({
  clientId: 'client_1',
  mode: 'MODE_LIVE',
  deviceId: 'device_1',
  message: { to: '+33612345678', text },
});
/** Lets the event loop go round a few times: answers settle, and the coalescer's next call leaves. */
const turn = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('SendCoalescer', () => {
  it('when one send arrives alone, then it leaves at once in a call of its own and gets its message', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 4 });

    const sent = coalescer.send(request('a'));
    await turn();
    expect(fake.calls.map((c) => c.items.map((i) => i.request!.message!.text))).toEqual([['a']]);
    fake.calls[0]!.answer();

    expect((await sent).messageId).toBe('msg_for_a');
  });

  it('when sends arrive while every call is under way, then they wait and leave together in the next call, each answered with its own message', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 1 });
    const first = coalescer.send(request('first'));
    await turn();

    const later = ['b', 'c', 'd', 'e'].map((t) => coalescer.send(request(t)));
    await turn();
    expect(fake.calls).toHaveLength(1);
    expect(coalescer.pending).toBe(4);

    fake.calls[0]!.answer();
    await first;
    await turn();
    expect(fake.calls.map((c) => c.items.map((i) => i.request!.message!.text))).toEqual([['first'], ['b', 'c', 'd', 'e']]);
    fake.calls[1]!.answer();

    expect((await Promise.all(later)).map((r) => r.messageId)).toEqual(['msg_for_b', 'msg_for_c', 'msg_for_d', 'msg_for_e']);
  });

  it('when more sends wait than one call carries, then they are split into calls of at most maxBatch, up to maxInFlight at once', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 2 });

    const all = Array.from({ length: 250 }, (_, i) => coalescer.send(request(String(i))));
    await turn();
    expect(fake.calls.map((c) => c.items.length)).toEqual([100, 100]);

    fake.calls[0]!.answer();
    await turn();
    expect(fake.calls.map((c) => c.items.length)).toEqual([100, 100, 50]);
    fake.calls[1]!.answer();
    fake.calls[2]!.answer();

    const answers = await Promise.all(all);
    expect(answers.map((a) => a.messageId)).toEqual(Array.from({ length: 250 }, (_, i) => `msg_for_${i}`));
  });

  it('when one send of a call is refused, then only that send fails, with its code and message', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 4 });
    const good = coalescer.send(request('good'));
    const bad = coalescer.send(request(''));
    await turn();

    fake.calls[0]!.answer([
      { receipt: receipt('msg_good'), errorCode: '', errorMessage: '' },
      { receipt: null, errorCode: 'MESSAGE_REQUIRED', errorMessage: 'Le message est requis.' },
    ]);

    expect((await good).messageId).toBe('msg_good');
    await expect(bad).rejects.toMatchObject({ code: 'MESSAGE_REQUIRED', message: 'Le message est requis.' });
  });

  it('when the call fails, then every send it carried fails with that error, and the next sends still leave', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 4 });
    const carried = [coalescer.send(request('x')), coalescer.send(request('y'))];
    await turn();
    fake.calls[0]!.fail(new AppError('SERVICE_UNAVAILABLE'));

    for (const p of carried) await expect(p).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });

    const next = coalescer.send(request('z'));
    await turn();
    fake.calls[1]!.answer();
    expect((await next).messageId).toBe('msg_for_z');
  });

  it('when the answer does not have one result per send, then every send fails with INTERNAL_ERROR rather than getting another send’s message', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 4 });
    const carried = [coalescer.send(request('x')), coalescer.send(request('y'))];
    await turn();
    fake.calls[0]!.answer([{ receipt: receipt('msg_x'), errorCode: '', errorMessage: '' }]);

    for (const p of carried) await expect(p).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it('when as many sends wait as allowed, then the next one is refused at once with 503 SERVICE_UNAVAILABLE, and sends are taken again once the queue moves', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 1, maxWaiting: 2 });
    const first = coalescer.send(request('a'));
    await turn();
    const waiting = [coalescer.send(request('b')), coalescer.send(request('c'))];

    await expect(coalescer.send(request('d'))).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      httpStatus: 503,
      retryAfterSeconds: 1,
    });

    fake.calls[0]!.answer();
    await first;
    await turn();
    const later = coalescer.send(request('e'));
    fake.calls[1]!.answer();
    await turn();
    fake.calls[2]!.answer();
    expect((await Promise.all([...waiting, later])).map((r) => r.messageId)).toEqual(['msg_for_b', 'msg_for_c', 'msg_for_e']);
    expect(fake.calls.flatMap((c) => c.items.map((i) => i.request!.message!.text))).toEqual(['a', 'b', 'c', 'e']);
  });

  it('when a send has waited past its deadline for a call, then it is refused with SERVICE_UNAVAILABLE and never sent, while fresher sends leave', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 1, deadlineMs: 50 });
    const first = coalescer.send(request('slow'));
    await turn();
    const stale = coalescer.send(request('stale'));
    stale.catch(() => undefined);
    await sleep(80);
    const fresh = coalescer.send(request('fresh'));

    fake.calls[0]!.answer();
    await first;
    await turn();

    await expect(stale).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(fake.calls.map((c) => c.items.map((i) => i.request!.message!.text))).toEqual([['slow'], ['fresh']]);
    fake.calls[1]!.answer();
    expect((await fresh).messageId).toBe('msg_for_fresh');
  });

  it('when sends that waited leave in a call, then the call has the earliest deadline of the sends it carries', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 1, deadlineMs: 1000 });
    const first = coalescer.send(request('first'));
    await turn();
    expect(fake.calls[0]!.deadlineMs).toBeGreaterThan(950);
    const older = coalescer.send(request('older'));
    await sleep(300);
    const newer = coalescer.send(request('newer'));

    fake.calls[0]!.answer();
    await first;
    await turn();

    expect(fake.calls[1]!.items.map((i) => i.request!.message!.text)).toEqual(['older', 'newer']);
    // 'older' has waited 300 ms of its 1000: the call gets what it has left, not a fresh 1000
    // (a timer may fire a fraction of a millisecond before its 300 ms by the clock the coalescer reads).
    expect(fake.calls[1]!.deadlineMs).toBeLessThan(702);
    expect(fake.calls[1]!.deadlineMs).toBeGreaterThan(500);
    fake.calls[1]!.answer();
    await Promise.all([older, newer]);
  });

  it('when a send has less than minCallMs left, then it is not put in a call but refused, and the others leave', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 1, deadlineMs: 200, minCallMs: 100 });
    const first = coalescer.send(request('first'));
    await turn();
    const near = coalescer.send(request('near'));
    near.catch(() => undefined);
    await sleep(120);
    const fresh = coalescer.send(request('fresh'));

    fake.calls[0]!.answer();
    await first;
    await turn();

    await expect(near).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 });
    expect(fake.calls[1]!.items.map((i) => i.request!.message!.text)).toEqual(['fresh']);
    fake.calls[1]!.answer();
    expect((await fresh).messageId).toBe('msg_for_fresh');
  });

  it('when the message service hangs, then no send takes longer in all than the deadline, its wait for a call included', async () => {
    // A SendMany that never answers and fails at its deadline, as a gRPC call does.
    const calls: number[] = [];
    const hanging = (_request: message.SendManyRequest, deadlineMs: number) =>
      new Promise<message.SendManyResponse__Output>((_resolve, reject) => {
        calls.push(deadlineMs);
        setTimeout(() => reject(new AppError('SERVICE_UNAVAILABLE', { cause: { code: 4 } })), deadlineMs);
      });
    const coalescer = new SendCoalescer(hanging, { ...LIMITS, maxBatch: 100, maxInFlight: 1, deadlineMs: 300 });
    const timed = async (text: string) => {
      const start = performance.now();
      const err = await coalescer.send(request(text)).catch((e: unknown) => e);
      return { err, elapsed: performance.now() - start };
    };

    const first = timed('first');
    await sleep(100);
    // Waits 200 ms for the first call to fail, then leaves with the 100 ms it has left.
    const second = timed('second');
    const results = await Promise.all([first, second]);

    for (const { err, elapsed } of results) {
      expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(elapsed).toBeLessThan(300 + 40);
    }
    expect(calls).toHaveLength(2);
    expect(calls[1]).toBeLessThanOrEqual(110);
  });

  it('when a call runs out of time, then each send it carried is told its message may be stored and to retry with the same Idempotency-Key', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 4 });
    const carried = coalescer.send(request('x'));
    await turn();
    fake.calls[0]!.fail(new AppError('SERVICE_UNAVAILABLE', { cause: { code: 4 } }));

    const err = await carried.catch((e: unknown) => e as AppError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503, retryAfterSeconds: 1 });
    expect((err as AppError).message).toContain('Idempotency-Key');
  });
});
