import crypto, { X509Certificate } from 'node:crypto';
import fsp from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import forge from 'node-forge';
import {
  createCertificateAuthority,
  createCertificateKeyPair,
  issueServiceCertificate,
  randomCertificateSerial,
  serviceCertificateUsable,
  type ServiceIdentity,
} from '@smsgw/platform';

export interface Certs {
  caCertFile: string;
  /** The local CA's key: it also signs the services' gRPC certificates. */
  caKeyFile: string;
  certFile: string;
  keyFile: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const CA_VALIDITY_MS = 10 * 365 * DAY_MS;
const SERVER_VALIDITY_MS = 365 * DAY_MS;
/** A certificate closer than this to its end is replaced rather than reused. */
const RENEW_MARGIN_MS = 7 * DAY_MS;
/** Certificates start an hour in the past so a clock slightly behind still accepts them. */
const BACKDATE_MS = 60 * 60 * 1000;
const CA_NAME = 'smsgw local development CA';
const ORGANIZATION = 'smsgw local development';

/**
 * A local CA and a server certificate it signed for `hosts`, in `dir`.
 * Files that are still good are reused, so a browser or client that trusted
 * `ca.pem` once keeps trusting the stack across restarts.
 */
export async function ensureCerts(dir: string, hosts: string[] = ['localhost', '127.0.0.1', '::1']): Promise<Certs> {
  const wanted = [...new Set(hosts)];
  if (wanted.length === 0) throw new Error('ensureCerts needs at least one host name or IP address');
  const files = {
    caCertFile: path.join(dir, 'ca.pem'),
    caKeyFile: path.join(dir, 'ca-key.pem'),
    certFile: path.join(dir, 'server.pem'),
    keyFile: path.join(dir, 'server-key.pem'),
  };
  await fsp.mkdir(dir, { recursive: true });
  const now = Date.now();

  let ca = await loadCa(files.caCertFile, files.caKeyFile, now);
  if (ca) {
    const server = await loadServer(files.certFile, files.keyFile, ca.x509, wanted, now);
    if (server)
      return {
        caCertFile: files.caCertFile,
        caKeyFile: files.caKeyFile,
        certFile: files.certFile,
        keyFile: files.keyFile,
        caPem: ca.certPem,
        ...server,
      };
  } else {
    ca = createCa(now);
    await writeAtomically(files.caKeyFile, ca.keyPem, 0o600);
    await writeAtomically(files.caCertFile, ca.certPem, 0o644);
  }

  const server = createServerCert(ca, wanted, now);
  await writeAtomically(files.keyFile, server.keyPem, 0o600);
  await writeAtomically(files.certFile, server.certPem, 0o644);
  return {
    caCertFile: files.caCertFile,
    caKeyFile: files.caKeyFile,
    certFile: files.certFile,
    keyFile: files.keyFile,
    caPem: ca.certPem,
    ...server,
  };
}

/** Node's `ticketKeys` are 48 bytes. */
const TICKET_KEYS_BYTES = 48;

/**
 * The device-hub's TLS session-ticket keys (its HUB_TLS_TICKET_KEYS_FILE): the base64 of 48 random
 * bytes in `dir`, made once and then kept like the certificates, so that every hub replica the
 * stack starts, and a hub started again, resumes the TLS sessions phones kept. Returns the file.
 */
export async function ensureTicketKeys(dir: string): Promise<string> {
  const file = path.join(dir, 'hub-tls-ticket-keys');
  await fsp.mkdir(dir, { recursive: true });
  const kept = await fsp.readFile(file, 'utf8').catch(() => '');
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(kept.trim()) && Buffer.from(kept.trim(), 'base64').length === TICKET_KEYS_BYTES) return file;
  await writeAtomically(file, `${crypto.randomBytes(TICKET_KEYS_BYTES).toString('base64')}\n`, 0o600);
  return file;
}

interface Ca {
  certPem: string;
  keyPem: string;
  x509: X509Certificate;
}

async function loadCa(certFile: string, keyFile: string, now: number): Promise<Ca | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([fsp.readFile(certFile, 'utf8'), fsp.readFile(keyFile, 'utf8')]);
    const x509 = new X509Certificate(certPem);
    const usable = x509.ca && x509.checkPrivateKey(crypto.createPrivateKey(keyPem)) && x509.verify(x509.publicKey) && isCurrent(x509, now);
    return usable ? { certPem, keyPem, x509 } : undefined;
  } catch {
    // Missing or unreadable files mean there is no CA yet.
    return undefined;
  }
}

async function loadServer(
  certFile: string,
  keyFile: string,
  ca: X509Certificate,
  hosts: string[],
  now: number,
): Promise<{ certPem: string; keyPem: string } | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([fsp.readFile(certFile, 'utf8'), fsp.readFile(keyFile, 'utf8')]);
    const x509 = new X509Certificate(certPem);
    const usable =
      x509.checkIssued(ca) &&
      x509.verify(ca.publicKey) &&
      x509.checkPrivateKey(crypto.createPrivateKey(keyPem)) &&
      isCurrent(x509, now) &&
      hosts.every((host) => (net.isIP(host) ? x509.checkIP(host) : x509.checkHost(host)) !== undefined);
    return usable ? { certPem, keyPem } : undefined;
  } catch {
    return undefined;
  }
}

function isCurrent(x509: X509Certificate, now: number): boolean {
  const from = Date.parse(x509.validFrom);
  const to = Date.parse(x509.validTo);
  return from <= now && to - now >= RENEW_MARGIN_MS;
}

function createCa(now: number): Ca {
  const ca = createCertificateAuthority({ commonName: CA_NAME, organization: ORGANIZATION, validityDays: CA_VALIDITY_MS / DAY_MS, now });
  return { ...ca, x509: new X509Certificate(ca.certPem) };
}

function createServerCert(ca: Ca, hosts: string[], now: number): { certPem: string; keyPem: string } {
  const keys = createCertificateKeyPair();
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.forgePublic;
  cert.serialNumber = randomCertificateSerial();
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  // A certificate that outlives its issuer would stop verifying early anyway.
  cert.validity.notAfter = new Date(Math.min(now + SERVER_VALIDITY_MS, caCert.validity.notAfter.getTime()));
  cert.setSubject([
    { name: 'commonName', value: hosts[0]! },
    { name: 'organizationName', value: ORGANIZATION },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      // type 7 is an IP address, type 2 a DNS name (RFC 5280 GeneralName).
      altNames: hosts.map((host) => (net.isIP(host) ? { type: 7, ip: host } : { type: 2, value: host })),
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/** A crash half-way through writing must not leave a truncated key behind. */
async function writeAtomically(file: string, content: string, mode: number): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(temp, content, { mode });
  await fsp.chmod(temp, mode);
  await fsp.rename(temp, file);
}

/** One service's gRPC certificate files (its identity as `spiffe://smsgw/<identity>`). */
export interface ServiceCertFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/**
 * A gRPC certificate per identity, signed by the local CA, in `<dir>/grpc`: reused while good
 * (same CA, more than a week left), issued again otherwise.
 */
export async function ensureServiceCerts(
  dir: string,
  certs: Pick<Certs, 'caCertFile' | 'caKeyFile' | 'caPem'>,
  identities: readonly ServiceIdentity[],
): Promise<Record<ServiceIdentity, ServiceCertFiles>> {
  const grpcDir = path.join(dir, 'grpc');
  await fsp.mkdir(grpcDir, { recursive: true });
  const ca = { certPem: certs.caPem, keyPem: await fsp.readFile(certs.caKeyFile, 'utf8') };
  const out: Partial<Record<ServiceIdentity, ServiceCertFiles>> = {};
  for (const identity of identities) {
    const files = {
      caFile: certs.caCertFile,
      certFile: path.join(grpcDir, `${identity}.pem`),
      keyFile: path.join(grpcDir, `${identity}-key.pem`),
    };
    const existing = await Promise.all([fsp.readFile(files.certFile, 'utf8'), fsp.readFile(files.keyFile, 'utf8')]).catch(() => undefined);
    const good =
      existing !== undefined &&
      serviceCertificateUsable({ certPem: existing[0], keyPem: existing[1] }, ca.certPem, identity, {
        marginDays: RENEW_MARGIN_MS / DAY_MS,
      });
    if (!good) {
      const issued = issueServiceCertificate(ca, identity);
      await writeAtomically(files.keyFile, issued.keyPem, 0o600);
      await writeAtomically(files.certFile, issued.certPem, 0o644);
    }
    out[identity] = files;
  }
  return out as Record<ServiceIdentity, ServiceCertFiles>;
}
