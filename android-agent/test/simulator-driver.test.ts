import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DriverEvents } from '../src/drivers/driver';
import { SimulatorDriver } from '../src/drivers/simulator.driver';
import type { SmsError } from '../src/protocol';

function listen(): { events: DriverEvents; calls: string[]; errors: SmsError[]; notSent: boolean[]; delivered: Promise<Date> } {
  const calls: string[] = [];
  const errors: SmsError[] = [];
  const notSent: boolean[] = [];
  let onDelivered!: (at: Date) => void;
  const delivered = new Promise<Date>((resolve) => {
    onDelivered = resolve;
  });
  return {
    calls,
    errors,
    notSent,
    delivered,
    events: {
      onSent: () => calls.push('sent'),
      onDelivered: (at) => {
        calls.push('delivered');
        onDelivered(at);
      },
      onFailed: (_at, error, unsent) => {
        calls.push('failed');
        errors.push(error);
        notSent.push(unsent === true);
      },
    },
  };
}

describe('SimulatorDriver', () => {
  it('when a SIM fails (--sim-fail-slot), then every SMS through it fails at once, not sent, with its cause, while its file exists; the other SIM sends', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sim-fail-')), 'failing');
    fs.writeFileSync(file, '');
    const driver = new SimulatorDriver({ deliveryDelayMs: 0, sims: 2, simFailure: { slot: 2, cause: 'limit', whileFile: file } });
    const failing = listen();
    expect(driver.failsUnsent({ message_id: 'msg_1', to: '+33612345678', text: 'x', sim: 2 })).toBe(true);
    await driver.send({ message_id: 'msg_1', to: '+33612345678', text: 'x', sim: 2 }, failing.events);
    expect(failing.calls).toEqual(['failed']);
    expect(failing.errors[0]).toMatchObject({ code: 'DEVICE_ERROR', message: expect.stringContaining('limit') });
    expect(failing.notSent).toEqual([true]);
    const other = listen();
    await driver.send({ message_id: 'msg_2', to: '+33612345678', text: 'x', sim: 1 }, other.events);
    await other.delivered;
    fs.rmSync(file);
    const recovered = listen();
    await driver.send({ message_id: 'msg_3', to: '+33612345678', text: 'x', sim: 2 }, recovered.events);
    await recovered.delivered;
    expect(recovered.calls).toEqual(['sent', 'delivered']);
    await driver.close();
  });

  it.each([
    ['+33600000001', 'INVALID_NUMBER'],
    ['+33600000002', 'OUT_OF_NETWORK'],
    ['+33600000003', 'INSUFFICIENT_CREDIT'],
    ['+33600000004', 'BLACKLISTED'],
  ])('when the number is the magic %s, then the SMS fails at once with %s', async (to, code) => {
    const driver = new SimulatorDriver({ deliveryDelayMs: 0 });
    const { events, calls, errors, notSent } = listen();

    await driver.send({ message_id: 'msg_1', to, text: 'hello' }, events);

    expect(calls).toEqual(['failed']);
    expect(errors[0]?.code).toBe(code);
    // The network refused it: the SMS left the phone.
    expect(notSent).toEqual([false]);
    await driver.close();
  });

  it.each(['+33611111111', '+33600000001'])(
    'when the radio is off, then an SMS to %s fails at once with OUT_OF_NETWORK and not_sent',
    async (to) => {
      const driver = new SimulatorDriver({ deliveryDelayMs: 0, radioOff: true });
      const { events, calls, errors, notSent } = listen();

      await driver.send({ message_id: 'msg_1', to, text: 'hello' }, events);
      await new Promise((resolve) => setTimeout(resolve, 10));

      expect(calls).toEqual(['failed']);
      expect(errors).toEqual([{ code: 'OUT_OF_NETWORK', message: expect.stringContaining('radio is off') }]);
      expect(notSent).toEqual([true]);
      await driver.close();
    },
  );

  it('when the network fails every SMS, then each is sent, then failed with that cause, without not_sent, and never delivered', async () => {
    const driver = new SimulatorDriver({ deliveryDelayMs: 0, networkFailure: 'INSUFFICIENT_CREDIT' });
    const { events, calls, errors, notSent } = listen();

    await driver.send({ message_id: 'msg_1', to: '+33611111111', text: 'hello' }, events);
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(calls).toEqual(['sent', 'failed']);
    expect(errors).toEqual([{ code: 'INSUFFICIENT_CREDIT', message: expect.stringContaining('network refused it') }]);
    expect(notSent).toEqual([false]);
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

  it('when the phone has 2 SIMs, then it lists them by slot with their carriers, and sends through the slot asked or slot 1', () => {
    const driver = new SimulatorDriver({ sims: 2 });

    expect(driver.sims).toEqual([
      { slot: 1, carrier: 'Sim Operator 1' },
      { slot: 2, carrier: 'Sim Operator 2' },
    ]);
    expect(new SimulatorDriver().sims).toEqual([{ slot: 1, carrier: 'Sim Operator 1' }]);
    expect(driver.slotFor({ message_id: 'msg_1', to: '+33611111111', text: 'hello', sim: 2 })).toBe(2);
    expect(driver.slotFor({ message_id: 'msg_1', to: '+33611111111', text: 'hello' })).toBe(1);
    expect(driver.slotFor({ message_id: 'msg_1', to: '+33611111111', text: 'hello', sim: 3 })).toBeUndefined();
  });

  it('when an SMS asks for a slot above the SIMs the phone has, then it fails at once, not sent, with DEVICE_ERROR "SIM <n> absente"', async () => {
    const driver = new SimulatorDriver({ deliveryDelayMs: 0, sims: 2 });
    const { events, calls, errors, notSent } = listen();

    await driver.send({ message_id: 'msg_1', to: '+33611111111', text: 'hello', sim: 3 }, events);

    expect(calls).toEqual(['failed']);
    expect(errors).toEqual([{ code: 'DEVICE_ERROR', message: 'SIM 3 absente' }]);
    expect(notSent).toEqual([true]);
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
