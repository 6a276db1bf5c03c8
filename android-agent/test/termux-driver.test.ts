import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DriverEvents } from '../src/drivers/driver';
import { TermuxDriver } from '../src/drivers/termux.driver';
import { TermuxNotInstalledError } from '../src/errors';
import type { SmsError } from '../src/protocol';

interface Recorded {
  sent: Date[];
  delivered: Date[];
  failed: SmsError[];
}

function recorder(): { events: DriverEvents; recorded: Recorded } {
  const recorded: Recorded = { sent: [], delivered: [], failed: [] };
  return {
    recorded,
    events: {
      onSent: (at) => recorded.sent.push(at),
      onDelivered: (at) => recorded.delivered.push(at),
      onFailed: (_at, error) => recorded.failed.push(error),
    },
  };
}

describe('TermuxDriver', () => {
  let binDir: string;

  beforeEach(async () => {
    binDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-termux-'));
  });

  afterEach(async () => {
    await fs.rm(binDir, { recursive: true, force: true });
  });

  /** A stand-in for termux-sms-send that records its arguments and stdin, then exits with `exitCode`. */
  async function installFakeTermux(exitCode: number): Promise<void> {
    const script = [
      '#!/bin/sh',
      `for arg in "$@"; do printf '%s\\n' "$arg"; done > '${binDir}/args'`,
      `cat > '${binDir}/stdin'`,
      exitCode === 0 ? 'exit 0' : `echo 'SMS permission denied' >&2; exit ${exitCode}`,
      '',
    ].join('\n');
    await fs.writeFile(path.join(binDir, 'termux-sms-send'), script, { mode: 0o755 });
  }

  it('when termux-sms-send is not installed, then creating the driver fails at once and says to install Termux:API', async () => {
    const creating = TermuxDriver.create({ searchPath: binDir });

    await expect(creating).rejects.toBeInstanceOf(TermuxNotInstalledError);
    await expect(creating).rejects.toThrow(/Termux:API/);
  });

  it('when termux-sms-send succeeds, then the SMS is sent with the number after -n and the exact text, and never delivered', async () => {
    await installFakeTermux(0);
    const driver = await TermuxDriver.create({ searchPath: `/nonexistent${path.delimiter}${binDir}` });
    const { events, recorded } = recorder();
    const text = '-n C:\\new \\c line\nsecond line';

    await driver.send({ message_id: 'msg_1', to: '+33611111111', text }, events);

    expect(recorded.sent).toHaveLength(1);
    expect(recorded.failed).toEqual([]);
    expect(recorded.delivered).toEqual([]);
    expect(driver.reportsDelivery).toBe(false);
    expect(await fs.readFile(path.join(binDir, 'args'), 'utf8')).toBe('-n\n+33611111111\n');
    expect(await fs.readFile(path.join(binDir, 'stdin'), 'utf8')).toBe(text);
  });

  it('when an SMS asks for SIM 2, then termux-sms-send gets -s 1 (its index from 0); the SIMs themselves are unknown', async () => {
    await installFakeTermux(0);
    const driver = await TermuxDriver.create({ searchPath: binDir });
    const { events, recorded } = recorder();
    const sms = { message_id: 'msg_1', to: '+33611111111', text: 'hello', sim: 2 };

    await driver.send(sms, events);

    expect(recorded.sent).toHaveLength(1);
    expect(await fs.readFile(path.join(binDir, 'args'), 'utf8')).toBe('-s\n1\n-n\n+33611111111\n');
    expect(driver.sims).toEqual([]);
    expect(driver.slotFor(sms)).toBe(2);
    expect(driver.slotFor({ ...sms, sim: undefined })).toBeUndefined();
  });

  it('when termux-sms-send fails, then the SMS is failed with DEVICE_ERROR and the reason', async () => {
    await installFakeTermux(1);
    const driver = await TermuxDriver.create({ searchPath: binDir });
    const { events, recorded } = recorder();

    await driver.send({ message_id: 'msg_1', to: '+33611111111', text: 'hello' }, events);

    expect(recorded.sent).toEqual([]);
    expect(recorded.failed).toEqual([{ code: 'DEVICE_ERROR', message: 'termux-sms-send failed: SMS permission denied' }]);
  });

  it('when the number holds a comma, then the SMS is failed as INVALID_NUMBER without calling termux-sms-send', async () => {
    await installFakeTermux(0);
    const driver = await TermuxDriver.create({ searchPath: binDir });
    const { events, recorded } = recorder();

    await driver.send({ message_id: 'msg_1', to: '+33611111111,+33622222222', text: 'hello' }, events);

    expect(recorded.failed.map((error) => error.code)).toEqual(['INVALID_NUMBER']);
    await expect(fs.access(path.join(binDir, 'args'))).rejects.toThrow();
  });
});
