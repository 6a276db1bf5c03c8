import { AppError } from '@smsgw/platform';
import { HandedMessages } from '../src/sessions/handed-messages';
import { deviceOwnsMessage } from '../src/use-cases/report-ownership.use-case';

/** Which reports a phone may make: only on messages handed to its own device. */
describe('report ownership', () => {
  const device = { device_id: 'dev_a', client_id: 'client_a' };
  const asked: unknown[] = [];
  const messages = (answer: () => Promise<{ deviceId: string }>) => ({
    messages: {
      getMessage: (req: unknown) => {
        asked.push(req);
        return answer() as never;
      },
    },
  });

  beforeEach(() => (asked.length = 0));

  it("when the message is the device's, then it may report on it; the message service is asked for a live message of the device's client", async () => {
    await expect(
      deviceOwnsMessage(
        messages(async () => ({ deviceId: 'dev_a' })),
        device,
        'msg_1',
      ),
    ).resolves.toBe(true);
    expect(asked).toEqual([{ clientId: 'client_a', messageId: 'msg_1', mode: 'MODE_LIVE' }]);
  });

  it('when the message is of another device of the same client, then it may not', async () => {
    await expect(
      deviceOwnsMessage(
        messages(async () => ({ deviceId: 'dev_b' })),
        device,
        'msg_1',
      ),
    ).resolves.toBe(false);
  });

  it("when the message is another client's (not found for this client), then it may not", async () => {
    const notFound = messages(() => Promise.reject(new AppError('MESSAGE_NOT_FOUND')));
    await expect(deviceOwnsMessage(notFound, device, 'msg_1')).resolves.toBe(false);
  });

  it('when the message service cannot answer, then the failure is thrown: the report is neither stored nor acknowledged', async () => {
    const down = messages(() => Promise.reject(new AppError('SERVICE_UNAVAILABLE')));
    await expect(deviceOwnsMessage(down, device, 'msg_1')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('when more messages were handed than the limit, then the oldest are forgotten', () => {
    const handed = new HandedMessages(2);
    handed.add('msg_1');
    handed.add('msg_2');
    handed.add('msg_1');
    handed.add('msg_3');
    expect([handed.has('msg_1'), handed.has('msg_2'), handed.has('msg_3')]).toEqual([true, false, true]);
  });
});
