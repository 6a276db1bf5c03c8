import { randomBytes } from 'node:crypto';
import { connectNats, createLogger, ensureStream, natsNames, streamConfigs, type Nats } from '../src';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

describe('natsNames', () => {
  it('when there is no prefix, then subjects and streams carry the production names', () => {
    const names = natsNames('');

    expect(names.wake('client_1', 'device_1')).toBe('dispatch.wake.client_1.device_1');
    expect(names.clientWakes('client_1')).toBe('dispatch.wake.client_1.*');
    expect(names.hubControl('device_1')).toBe('hub.control.device_1');
    expect(names.hubControls).toBe('hub.control.*');
    expect(names.agentReport('device_1')).toBe('agent.report.device_1');
    expect(names.agentReports).toBe('agent.report.>');
    expect(names.event('sms.sent')).toBe('events.sms.sent');
    expect(names.events).toBe('events.>');
    expect(names.reportsStream).toBe('AGENT_REPORTS');
    expect(names.eventsStream).toBe('EVENTS');
  });

  it('when there is a prefix, then every subject and stream is kept apart by it', () => {
    const names = natsNames('t1a2b');

    expect(names.wake('client_1', 'device_1')).toBe('t1a2b.dispatch.wake.client_1.device_1');
    expect(names.clientWakes('client_1')).toBe('t1a2b.dispatch.wake.client_1.*');
    expect(names.hubControls).toBe('t1a2b.hub.control.*');
    expect(names.agentReport('device_1')).toBe('t1a2b.agent.report.device_1');
    expect(names.agentReports).toBe('t1a2b.agent.report.>');
    expect(names.event('sms.failed')).toBe('t1a2b.events.sms.failed');
    expect(names.events).toBe('t1a2b.events.>');
    expect(names.reportsStream).toBe('T1A2B_AGENT_REPORTS');
    expect(names.eventsStream).toBe('T1A2B_EVENTS');
  });
});

describe('ensureStream', () => {
  const prefix = `t${randomBytes(5).toString('hex')}`;
  let nats: Nats;

  beforeAll(async () => {
    nats = await connectNats({ url: NATS_URL, prefix, name: 'platform-test', log: createLogger('test', 'silent') });
  });

  afterAll(async () => {
    if (!nats) return;
    for (const name of [nats.names.reportsStream, nats.names.eventsStream]) await nats.jsm.streams.delete(name).catch(() => undefined);
    await nats.nc.drain();
  });

  it('when the stream does not exist, then it is created with the given subjects', async () => {
    const { events } = streamConfigs(nats.names);

    await ensureStream(nats.jsm, events);

    const info = await nats.jsm.streams.info(events.name);
    expect(info.config.subjects).toEqual([`${prefix}.events.>`]);
    expect(info.config.duplicate_window).toBe(events.duplicate_window);
  });

  it('when it is ensured again with the same config, then it succeeds and keeps the stored messages', async () => {
    const { events } = streamConfigs(nats.names);
    await ensureStream(nats.jsm, events);
    await nats.js.publish(nats.names.event('sms.sent'), '{}', { msgID: 'one' });

    await expect(ensureStream(nats.jsm, events)).resolves.toBeUndefined();

    expect((await nats.jsm.streams.info(events.name)).state.messages).toBe(1);
  });

  it('when it is ensured with a changed config, then the existing stream is brought up to it', async () => {
    const { reports } = streamConfigs(nats.names);
    await ensureStream(nats.jsm, reports);

    await ensureStream(nats.jsm, { ...reports, max_age: 3600 * 1e9 });

    expect((await nats.jsm.streams.info(reports.name)).config.max_age).toBe(3600 * 1e9);
  });

  it('when three replicas are asked of a single NATS server, then the server is asked for them and refuses (a cluster is needed), and one replica is the default', async () => {
    const { timers } = streamConfigs(nats.names, 3);
    expect(timers.num_replicas).toBe(3);

    await expect(ensureStream(nats.jsm, timers)).rejects.toThrow(/replicas|resources|cluster/i);

    await ensureStream(nats.jsm, streamConfigs(nats.names).timers);
    expect((await nats.jsm.streams.info(timers.name)).config.num_replicas).toBe(1);
    await nats.jsm.streams.delete(timers.name);
  });
});
