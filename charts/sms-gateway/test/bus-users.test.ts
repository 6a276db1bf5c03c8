import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const CHART = path.resolve(__dirname, '..');
const REPO = path.resolve(CHART, '../..');

/** helm, installed when missing by scripts/ensure-helm.sh (the version `make chart-test` uses). */
const helm = execFileSync(path.join(REPO, 'scripts/ensure-helm.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
}
interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: { template: { spec: { containers: Container[] } } };
}

function render(valueSet: string, ...set: string[]): { text: string; objects: K8sObject[] } {
  const args = ['template', 'smsgw', CHART, '--namespace', 'sms', '--kube-version', '1.30.0'];
  args.push('--values', path.join(CHART, 'ci', `${valueSet}-values.yaml`));
  for (const s of set) args.push('--set', s);
  const text = execFileSync(helm, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return {
    text,
    objects: parseAllDocuments(text)
      .map((d) => d.toJS() as K8sObject)
      .filter(Boolean),
  };
}

/** Each service's container, by component. */
function services(objects: K8sObject[]): Map<string, Container> {
  const found = new Map<string, Container>();
  for (const o of objects) {
    if (o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/name'] === 'sms-gateway') {
      found.set(o.metadata.labels['app.kubernetes.io/component']!, o.spec!.template.spec.containers[0]!);
    }
  }
  return found;
}

const env = (c: Container, name: string) => c.env?.find((e) => e.name === name);
const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;

describe("the services' own NATS and Redis users in the chart", () => {
  it('when scripts/bus-users.js checks the bundled charts, then their users are those of bus-permissions.ts', () => {
    expect(() => execFileSync(process.execPath, [path.join(CHART, 'scripts/bus-users.js'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  describe('with the bundled NATS and Redis', () => {
    const { text, objects } = render('default');
    const byService = services(objects);
    const natsConf = find(objects, 'ConfigMap', 'smsgw-nats').data!['nats.conf']!;
    const natsServer = find(objects, 'StatefulSet', 'smsgw-nats').spec!.template.spec.containers[0]!;
    const redisServer = find(objects, 'StatefulSet', 'smsgw-redis').spec!.template.spec.containers[0]!;

    it('when rendered, then each service that uses NATS has a user of its own, known to the server with its password from the same key', () => {
      const users = [...byService].flatMap(([component, c]) => (env(c, 'NATS_USER') ? [[component, c] as const] : []));
      expect(users.map(([component]) => component).sort()).toEqual([
        'dashboard',
        'device-hub',
        'gateway',
        'message',
        'otp',
        'scheduler',
        'smpp',
        'webhook',
      ]);
      const names = users.map(([, c]) => env(c, 'NATS_USER')!.value);
      expect(new Set(names).size).toBe(names.length);
      for (const [component, c] of users) {
        const user = env(c, 'NATS_USER')!.value!;
        expect(user).toBe(`smsgw-${component}`);
        const password = env(c, 'NATS_PASSWORD')!.valueFrom!.secretKeyRef!;
        expect(password).toEqual({ name: 'smsgw-bus-users', key: `nats-${component}` });
        // The server reads the same key into the variable its configuration names for that user.
        const variable = new RegExp(`user: "${user}", password: \\$(NATS_SERVICE_PASSWORD_\\d+)_QUOTED`).exec(natsConf)?.[1];
        expect(variable).toBeDefined();
        expect(env(natsServer, variable!)!.valueFrom!.secretKeyRef).toEqual(password);
      }
    });

    it("when rendered, then the dashboard's NATS user may subscribe to device events only and publish nothing", () => {
      const dashboard = /user: "smsgw-dashboard"[^\n]*\n\s*publish: (.*),\n\s*subscribe: (.*) \} \}/.exec(natsConf);
      expect(dashboard?.[1]).toBe('{ deny: [">"] }');
      expect(dashboard?.[2]).toBe('{ allow: ["events.device.*"] }');
      expect(natsConf).toMatch(/user: "smsgw-message"[^\n]*\n\s*publish: \{ allow: \[[^\]]*"event-batches\.message"/);
    });

    it('when rendered, then each service that uses Redis has an ACL user of its own with its own keys, under the release prefix', () => {
      const users = [...byService].flatMap(([component, c]) => (env(c, 'REDIS_USERNAME') ? [[component, c] as const] : []));
      expect(users.map(([component]) => component).sort()).toEqual(['dashboard', 'device-hub', 'gateway', 'otp', 'smpp']);
      const args = redisServer.args!.join(' ');
      for (const [component, c] of users) {
        expect(env(c, 'REDIS_USERNAME')!.value).toBe(`smsgw-${component}`);
        expect(env(c, 'REDIS_PASSWORD')!.valueFrom!.secretKeyRef).toEqual({ name: 'smsgw-bus-users', key: `redis-${component}` });
        expect(args).toContain(`--user smsgw-${component} on >$(REDIS_SERVICE_PASSWORD_`);
      }
      expect(args).toMatch(/--user smsgw-dashboard on \S+ resetkeys resetchannels ~smsgw:dashboard:\* %R~smsgw:key-usage:\* -@all/);
      expect(args).toMatch(/--user smsgw-gateway on .*%R~smsgw:presence:\*/);
    });

    it('when rendered, then the secrets Job generates every password once, and two renderings are the same', () => {
      const job = find(objects, 'Job', 'smsgw-sms-gateway-bus-users-init').spec!.template.spec.containers;
      const busUsers = job.find((c) => c.name === 'bus-users-init')!;
      const keys = busUsers.args![busUsers.args!.indexOf('--keys') + 1]!.split(',');
      expect(keys).toEqual(expect.arrayContaining(['nats-dashboard', 'nats-message', 'redis-dashboard', 'redis-gateway']));
      // A NATS password for each of the 8 services that use NATS, a Redis one for each of the 5 that use Redis.
      expect(keys).toHaveLength(13);
      // Nothing of the users is random at rendering (the bundled charts' own admin passwords still are).
      const again = render('default').objects;
      expect(find(again, 'ConfigMap', 'smsgw-nats').data).toEqual({ 'nats.conf': natsConf });
      expect(find(again, 'StatefulSet', 'smsgw-redis').spec!.template.spec.containers[0]!.args).toEqual(redisServer.args);
      expect(find(again, 'Job', 'smsgw-sms-gateway-bus-users-init').spec!.template.spec.containers).toEqual(job);
      expect(text).not.toMatch(/smsgw-bus-users\n\s*type: Opaque/);
    });

    it('when redis.auth.keyPrefix differs from redisKeyPrefix, then rendering fails and says why', () => {
      expect(() => render('default', 'redisKeyPrefix=other:')).toThrow(/redis.auth.keyPrefix \(smsgw:\) differs from redisKeyPrefix/);
    });
  });

  describe('with an external NATS and Redis', () => {
    it('when serviceUsers.existingSecret is set, then each service connects as its own user from that Secret', () => {
      const { objects } = render(
        'external',
        'externalNats.serviceUsers.existingSecret=nats-users',
        'externalRedis.serviceUsers.existingSecret=redis-users',
      );
      const message = services(objects).get('message')!;
      expect(env(message, 'NATS_USER')!.value).toBe('smsgw-message');
      expect(env(message, 'NATS_PASSWORD')!.valueFrom!.secretKeyRef).toEqual({ name: 'nats-users', key: 'nats-message' });
      const gateway = services(objects).get('gateway')!;
      expect(env(gateway, 'REDIS_USERNAME')!.value).toBe('smsgw-gateway');
      expect(env(gateway, 'REDIS_PASSWORD')!.valueFrom!.secretKeyRef).toEqual({ name: 'redis-users', key: 'redis-gateway' });
      expect(objects.find((o) => o.kind === 'Job')?.spec?.template.spec.containers.some((c) => c.name === 'bus-users-init')).toBeFalsy();
    });
  });
});
