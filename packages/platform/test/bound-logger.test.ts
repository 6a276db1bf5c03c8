import { Writable } from 'node:stream';
import pino from 'pino';
import { BoundLogger } from '../src/logger';

/** A pino logger at `level` whose lines are collected, parsed. */
function collecting(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level, base: { service: 'test' } }, stream) };
}

describe('BoundLogger: a child logger that writes its bindings into each line', () => {
  it('writes the bindings, the fields and the message, as a pino child would', () => {
    const { lines, logger } = collecting('info');
    const log = new BoundLogger(logger, { device_id: 'dev_1', connection_id: 'c1' });

    log.warn({ message_id: 'msg_1' }, 'not acknowledged');
    log.info('agent connected');
    logger.child({ device_id: 'dev_1', connection_id: 'c1' }).warn({ message_id: 'msg_1' }, 'not acknowledged');

    const [bound, alone, child] = lines.map(({ time: _time, ...rest }) => rest);
    expect(bound).toEqual(child);
    expect(bound).toMatchObject({ service: 'test', device_id: 'dev_1', connection_id: 'c1', message_id: 'msg_1', msg: 'not acknowledged' });
    expect(alone).toMatchObject({ device_id: 'dev_1', connection_id: 'c1', msg: 'agent connected', level: 30 });
  });

  it('writes an error with its message and stack, under err, whether alone or among the fields', () => {
    const { lines, logger } = collecting('info');
    const log = new BoundLogger(logger, { device_id: 'dev_1' });

    log.error(new Error('redis away'), 'presence release failed');
    log.warn({ err: new Error('nats away') }, 'not published');

    expect(lines[0]).toMatchObject({ device_id: 'dev_1', msg: 'presence release failed', err: { message: 'redis away' } });
    expect((lines[0]!.err as { stack: string }).stack).toContain('Error: redis away');
    expect(lines[1]).toMatchObject({ device_id: 'dev_1', err: { message: 'nats away', type: 'Error' } });
  });

  it('writes nothing below the logger level', () => {
    const { lines, logger } = collecting('warn');
    const log = new BoundLogger(logger, { device_id: 'dev_1' });

    log.debug({ limits: {} }, 'limits reloaded');
    log.info('agent connected');
    log.warn('agent socket error');

    expect(lines.map((l) => l.msg)).toEqual(['agent socket error']);
  });
});
