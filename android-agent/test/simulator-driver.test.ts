import type { DriverEvents } from '../src/drivers/driver';
import { SimulatorDriver } from '../src/drivers/simulator.driver';
import type { SmsError } from '../src/protocol';

function listen(): { events: DriverEvents; calls: string[]; errors: SmsError[]; delivered: Promise<Date> } {
  const calls: string[] = [];
  const errors: SmsError[] = [];
  let onDelivered!: (at: Date) => void;
  const delivered = new Promise<Date>((resolve) => {
    onDelivered = resolve;
  });
  return {
    calls,
    errors,
    delivered,
    events: {
      onSent: () => calls.push('sent'),
      onDelivered: (at) => {
        calls.push('delivered');
        onDelivered(at);
      },
      onFailed: (_at, error) => {
        calls.push('failed');
        errors.push(error);
      },
    },
  };
}

describe('SimulatorDriver', () => {
  it.each([
    ['+33600000001', 'INVALID_NUMBER'],
    ['+33600000002', 'OUT_OF_NETWORK'],
    ['+33600000003', 'INSUFFICIENT_CREDIT'],
    ['+33600000004', 'BLACKLISTED'],
  ])('when the number is the magic %s, then the SMS fails at once with %s', async (to, code) => {
    const driver = new SimulatorDriver({ deliveryDelayMs: 0 });
    const { events, calls, errors } = listen();

    await driver.send({ message_id: 'msg_1', to, text: 'hello' }, events);

    expect(calls).toEqual(['failed']);
    expect(errors[0]?.code).toBe(code);
    await driver.close();
  });

  it('when the number is any other, then the SMS is sent at once and delivered after the delay', async () => {
    const driver = new SimulatorDriver({ deliveryDelayMs: 30 });
    const { events, calls, delivered } = listen();
    const before = Date.now();

    await driver.send({ message_id: 'msg_1', to: '+33611111111', text: 'hello' }, events);
    expect(calls).toEqual(['sent']);
    const at = await delivered;

    expect(calls).toEqual(['sent', 'delivered']);
    expect(at.getTime() - before).toBeGreaterThanOrEqual(25);
    await driver.close();
  });

  it('when the driver is closed before delivery, then no delivery comes afterwards', async () => {
    const driver = new SimulatorDriver({ deliveryDelayMs: 10 });
    const { events, calls } = listen();

    await driver.send({ message_id: 'msg_1', to: '+33611111111', text: 'hello' }, events);
    await driver.close();
    await new Promise((resolve) => setTimeout(resolve, 40));

    expect(calls).toEqual(['sent']);
  });
});
