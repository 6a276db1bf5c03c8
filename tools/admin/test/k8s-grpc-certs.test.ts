import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority, identityFromSubjectAltName, issueServiceCertificate } from '@smsgw/platform';
import { ensureGrpcCerts } from '../src/k8s-grpc-certs';
import type { ReplaceableSecretsApi } from '../src/k8s-secret';

const DAY_MS = 24 * 60 * 60 * 1000;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const pem = (data: Record<string, string> | undefined, key: string) => Buffer.from(data![key]!, 'base64').toString('utf8');

interface Stored {
  data: Record<string, string>;
  type: string;
}

/** The Secrets API as Kubernetes answers, held in a map. */
function memoryApi(): ReplaceableSecretsApi & { secrets: Map<string, Stored>; writes: string[] } {
  const secrets = new Map<string, Stored>();
  const writes: string[] = [];
  return {
    secrets,
    writes,
    get: async (name) => secrets.get(name)?.data,
    create: async (name, data, _labels, type = 'Opaque') => {
      if (secrets.has(name)) return false;
      secrets.set(name, { data, type });
      writes.push(`create ${name}`);
      return true;
    },
    addKeys: async (name, data) => {
      secrets.set(name, { ...secrets.get(name)!, data: { ...secrets.get(name)!.data, ...data } });
    },
    replace: async (name, data, _labels, type) => {
      secrets.set(name, { data, type });
      writes.push(`replace ${name}`);
    },
  };
}

const SECRETS = { message: 'smsgw-grpc-message', 'device-hub': 'smsgw-grpc-device-hub' } as const;

describe('ensure-grpc-certs', () => {
  it('when nothing exists, then it creates the CA and one TLS Secret per identity, each certificate for its identity and signed by the CA', async () => {
    const api = memoryApi();

    const outcomes = await ensureGrpcCerts(api, 'smsgw-grpc-ca', SECRETS, { app: 'smsgw' });

    expect(outcomes).toEqual([
      { secret: 'smsgw-grpc-ca', action: 'create' },
      { secret: 'smsgw-grpc-message', identity: 'message', action: 'create' },
      { secret: 'smsgw-grpc-device-hub', identity: 'device-hub', action: 'create' },
    ]);
    const ca = new X509Certificate(pem(api.secrets.get('smsgw-grpc-ca')?.data, 'ca.crt'));
    const hub = api.secrets.get('smsgw-grpc-device-hub')!;
    expect(hub.type).toBe('kubernetes.io/tls');
    expect(Object.keys(hub.data).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
    const cert = new X509Certificate(pem(hub.data, 'tls.crt'));
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(identityFromSubjectAltName(cert.subjectAltName)).toBe('device-hub');
    expect(cert.subject).toContain('CN=device-hub');
  });

  it('when run again, then every good Secret is kept and nothing is written', async () => {
    const api = memoryApi();
    await ensureGrpcCerts(api, 'smsgw-grpc-ca', SECRETS, {});
    const before = JSON.stringify([...api.secrets]);
    api.writes.length = 0;

    const outcomes = await ensureGrpcCerts(api, 'smsgw-grpc-ca', SECRETS, {});

    expect(outcomes.map((o) => o.action)).toEqual(['keep', 'keep', 'keep']);
    expect(api.writes).toEqual([]);
    expect(JSON.stringify([...api.secrets])).toBe(before);
  });

  it('when a certificate was signed by another CA, then only that Secret is replaced', async () => {
    const api = memoryApi();
    await ensureGrpcCerts(api, 'smsgw-grpc-ca', SECRETS, {});
    const other = createCertificateAuthority();
    const foreign = issueServiceCertificate(other, 'message');
    api.secrets.set('smsgw-grpc-message', {
      type: 'kubernetes.io/tls',
      data: {
        'ca.crt': api.secrets.get('smsgw-grpc-ca')!.data['ca.crt']!,
        'tls.crt': b64(foreign.certPem),
        'tls.key': b64(foreign.keyPem),
      },
    });
    api.writes.length = 0;

    const outcomes = await ensureGrpcCerts(api, 'smsgw-grpc-ca', SECRETS, {});

    expect(outcomes.map((o) => o.action)).toEqual(['keep', 'replace', 'keep']);
    expect(api.writes).toEqual(['replace smsgw-grpc-message']);
    const ca = new X509Certificate(pem(api.secrets.get('smsgw-grpc-ca')?.data, 'ca.crt'));
    expect(new X509Certificate(pem(api.secrets.get('smsgw-grpc-message')?.data, 'tls.crt')).verify(ca.publicKey)).toBe(true);
  });

  it('when a certificate ends within 30 days, then it is replaced; with 31 days left it is kept', async () => {
    const api = memoryApi();
    // Issued 340 days ago for 365 days: 25 days left.
    await ensureGrpcCerts(api, 'smsgw-grpc-ca', { message: 'smsgw-grpc-message' }, {}, Date.now() - 340 * DAY_MS);
    expect((await ensureGrpcCerts(api, 'smsgw-grpc-ca', { message: 'smsgw-grpc-message' }, {})).map((o) => o.action)).toEqual([
      'keep',
      'replace',
    ]);

    const fresh = memoryApi();
    await ensureGrpcCerts(fresh, 'smsgw-grpc-ca', { message: 'smsgw-grpc-message' }, {}, Date.now() - 334 * DAY_MS);
    expect((await ensureGrpcCerts(fresh, 'smsgw-grpc-ca', { message: 'smsgw-grpc-message' }, {})).map((o) => o.action)).toEqual([
      'keep',
      'keep',
    ]);
  });

  it('when the CA Secret exists without its key, then it refuses rather than replace the CA', async () => {
    const api = memoryApi();
    api.secrets.set('smsgw-grpc-ca', { type: 'Opaque', data: { 'ca.crt': b64('x') } });

    await expect(ensureGrpcCerts(api, 'smsgw-grpc-ca', SECRETS, {})).rejects.toThrow(/lacks ca.crt or ca.key/);
  });
});
