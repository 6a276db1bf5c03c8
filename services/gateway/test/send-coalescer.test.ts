import { AppError } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { SendCoalescer } from '../src/send-coalescer';

const receipt = (messageId: string): message.SendReceipt__Output => ({
  messageId,
  status: 'queued',
  parts: 1,
  encoding: 'GSM-7',
  queuedAt: '2030-01-15T10:00:00.000Z',
  scheduledAt: '',
  estimatedDelivery: '2030-01-15T10:00:02.500Z',
});

/** A SendMany stand-in whose calls are answered when the test says so. */
function fakeSendMany() {
  const calls: { items: message.SendManyItem[]; answer(results?: message.SendManyResult__Output[]): void; fail(err: unknown): void }[] = [];
  const sendMany = (request: message.SendManyRequest) =>
    new Promise<message.SendManyResponse__Output>((resolve, reject) => {
      const items = request.items ?? [];
      calls.push({
        items,
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
const LIMITS = { maxWaiting: 10_000, maxWaitMs: 60_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const request = (text: string): message.SendRequest => ({ clientId: 'client_1', mode: 'MODE_LIVE', deviceId: 'device_1', message: { to: '+33612345678', text } });
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

    await expect(coalescer.send(request('d'))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503, retryAfterSeconds: 1 });

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

  it('when a send has waited longer than maxWaitMs for a call, then it is refused with SERVICE_UNAVAILABLE and never sent, while fresher sends leave', async () => {
    const fake = fakeSendMany();
    const coalescer = new SendCoalescer(fake.sendMany, { ...LIMITS, maxBatch: 100, maxInFlight: 1, maxWaitMs: 50 });
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
});
