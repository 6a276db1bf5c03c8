import {
  createCertificateAuthority,
  issueServiceCertificate,
  serviceCertificateUsable,
  type CertificateAuthority,
  type ServiceIdentity,
} from '@smsgw/platform';
import type { ReplaceableSecretsApi } from './k8s-secret';

/** A service certificate closer than this to its end is replaced. */
const RENEW_MARGIN_DAYS = 30;
const TLS_SECRET = 'kubernetes.io/tls';

export interface CertSecretOutcome {
  secret: string;
  /** Absent for the CA's Secret. */
  identity?: ServiceIdentity;
  action: 'create' | 'replace' | 'keep';
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const text = (data: Record<string, string> | undefined, key: string) =>
  data?.[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8');

/** The CA Secret (`ca.crt`, `ca.key`): created when missing, otherwise read and kept. */
async function ensureCa(
  api: ReplaceableSecretsApi,
  name: string,
  labels: Record<string, string>,
  now: number,
): Promise<{ ca: CertificateAuthority; action: 'create' | 'keep' }> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await api.get(name);
    if (existing) {
      const certPem = text(existing, 'ca.crt');
      const keyPem = text(existing, 'ca.key');
      // Never replace a CA by ourselves: every service certificate hangs on it.
      if (!certPem || !keyPem) throw new Error(`secret ${name} exists but lacks ca.crt or ca.key; fix or delete it`);
      return { ca: { certPem, keyPem }, action: 'keep' };
    }
    const ca = createCertificateAuthority({ commonName: 'smsgw services CA', now });
    if (await api.create(name, { 'ca.crt': b64(ca.certPem), 'ca.key': b64(ca.keyPem) }, labels)) return { ca, action: 'create' };
  }
  throw new Error(`secret ${name} was created concurrently; run again`);
}

/**
 * The chart's hook Job: the CA Secret, then one `kubernetes.io/tls` Secret per identity (`ca.crt`,
 * `tls.crt`, `tls.key`), created when missing, replaced when signed by another CA, for another
 * identity or within 30 days of its end; a good one is never touched.
 */
export async function ensureGrpcCerts(
  api: ReplaceableSecretsApi,
  caSecret: string,
  secrets: Partial<Record<ServiceIdentity, string>>,
  labels: Record<string, string>,
  now = Date.now(),
): Promise<CertSecretOutcome[]> {
  const { ca, action } = await ensureCa(api, caSecret, labels, now);
  const outcomes: CertSecretOutcome[] = [{ secret: caSecret, action }];
  for (const [identity, name] of Object.entries(secrets) as [ServiceIdentity, string][]) {
    const existing = await api.get(name);
    const certPem = text(existing, 'tls.crt');
    const keyPem = text(existing, 'tls.key');
    const good =
      certPem !== undefined &&
      keyPem !== undefined &&
      text(existing, 'ca.crt') === ca.certPem &&
      serviceCertificateUsable({ certPem, keyPem }, ca.certPem, identity, { marginDays: RENEW_MARGIN_DAYS, now });
    if (good) {
      outcomes.push({ secret: name, identity, action: 'keep' });
      continue;
    }
    const issued = issueServiceCertificate(ca, identity, { now });
    const data = { 'ca.crt': b64(ca.certPem), 'tls.crt': b64(issued.certPem), 'tls.key': b64(issued.keyPem) };
    if (existing) {
      await api.replace(name, data, labels, TLS_SECRET);
      outcomes.push({ secret: name, identity, action: 'replace' });
    } else if (await api.create(name, data, labels, TLS_SECRET)) {
      outcomes.push({ secret: name, identity, action: 'create' });
    } else {
      // Another run created it meanwhile, from the same CA: keep it.
      outcomes.push({ secret: name, identity, action: 'keep' });
    }
  }
  return outcomes;
}
