import { NATS_SERVICES, REDIS_SERVICES, natsAuthorizationConfig, natsPermissions, redisAclRules } from '../src/bus-permissions';

const matches = (pattern: string, subject: string): boolean => {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (s[i] === undefined || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
};
const mayPublish = (subject: string, prefix = '') =>
  NATS_SERVICES.filter((service) => natsPermissions(service, prefix).publish.some((p) => matches(p, subject)));
const maySubscribe = (subject: string, prefix = '') =>
  NATS_SERVICES.filter((service) => natsPermissions(service, prefix).subscribe.some((p) => matches(p, subject)));

describe('who may do what on NATS and Redis', () => {
  it('when the public events are published, then only the message service may publish sms events (in batches) and only the hub device events', () => {
    expect(mayPublish('event-batches.message')).toEqual(['message']);
    expect(mayPublish('t1a2b.event-batches.message', 't1a2b')).toEqual(['message']);
    expect(mayPublish('events.sms.delivered')).toEqual([]);
    expect(mayPublish('events.device.connected')).toEqual(['device-hub']);
  });

  it('when a phone report is published, then only the device-hub may, and only the message service consumes the reports', () => {
    expect(mayPublish('agent.report.device_01')).toEqual(['device-hub']);
    expect(mayPublish('agent.reports.4f2a9c')).toEqual(['device-hub']);
    expect(mayPublish('$JS.API.CONSUMER.MSG.NEXT.REPORT_BATCHES.message-report-batches')).toEqual(['message']);
    expect(mayPublish('$JS.API.CONSUMER.MSG.NEXT.AGENT_REPORTS.message-reports')).toEqual(['message']);
  });

  it('when the dashboard is looked at, then it publishes nothing and subscribes to device events only', () => {
    expect(natsPermissions('dashboard', '')).toEqual({ publish: [], subscribe: ['events.device.*'] });
    expect(maySubscribe('events.sms.delivered')).toEqual([]);
  });

  it('when the webhook and message streams are read, then only their consumers may pull them', () => {
    expect(mayPublish('$JS.API.CONSUMER.MSG.NEXT.EVENTS.webhook-events')).toEqual(['webhook']);
    expect(mayPublish('$JS.ACK.EVENTS.webhook-events.1.2.3.4.5.6')).toEqual(['webhook']);
    expect(mayPublish('$JS.API.CONSUMER.CREATE.EVENTS.sneaky.events.>')).toEqual([]);
    expect(mayPublish('$JS.API.STREAM.DELETE.EVENTS')).toEqual([]);
  });

  it('when replies come back, then each service may read its own inbox only', () => {
    expect(maySubscribe('_INBOX.webhook.abc.1')).toEqual(['webhook']);
    expect(maySubscribe('_INBOX.t1.message.abc', 't1')).toEqual(['message']);
  });

  it('when the Redis rules are made for a prefix, then every key pattern has it and nothing may touch every key', () => {
    for (const service of REDIS_SERVICES) {
      const rules = redisAclRules(service, 'smsgw:t1:');
      const keys = rules.filter((r) => r.includes('~'));
      expect(keys.length).toBeGreaterThan(0);
      for (const k of keys) expect(k).toMatch(/^(%R)?~smsgw:t1:[a-z-]+:\*$/);
      expect(rules).toContain('-@dangerous');
      expect(rules.indexOf('-@all')).toBeLessThan(rules.indexOf('+@read'));
    }
    expect(redisAclRules('gateway', 'p:')).toContain('%R~p:presence:*');
  });

  it('when the NATS configuration is written, then a user with nothing to publish is denied every subject', () => {
    const users = Object.fromEntries(NATS_SERVICES.map((s) => [s, { user: `u-${s}`, password: 'p"w' }])) as Parameters<
      typeof natsAuthorizationConfig
    >[0]['users'];
    const conf = natsAuthorizationConfig({ prefix: '', users });
    expect(conf).toMatch(/user: "u-dashboard", password: "p\\"w", permissions: \{\n\s+publish: \{ deny: \[">"\] \}/);
  });
});
