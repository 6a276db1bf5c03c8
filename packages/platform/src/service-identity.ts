import crypto, { X509Certificate } from 'node:crypto';
import forge from 'node-forge';

/** Every identity that speaks internal gRPC: the six servers, their two HTTP callers and the operator tool. */
export const SERVICE_IDENTITIES = [
  'account',
  'message',
  'otp',
  'device-hub',
  'scheduler',
  'webhook',
  'gateway',
  'dashboard',
  'admin',
  'smpp',
] as const;
export type ServiceIdentity = (typeof SERVICE_IDENTITIES)[number];

export function isServiceIdentity(value: string): value is ServiceIdentity {
  return (SERVICE_IDENTITIES as readonly string[]).includes(value);
}

const SPIFFE_PREFIX = 'spiffe://smsgw/';

/** The URI SAN a service's certificate carries: `spiffe://smsgw/<identity>`. */
export function spiffeId(identity: ServiceIdentity): string {
  return `${SPIFFE_PREFIX}${identity}`;
}

/**
 * The identity in a certificate's `subjectaltname` as Node shows it (`URI:spiffe://smsgw/account,
 * DNS:...`): the one `spiffe://smsgw/` URI, or undefined when there is none or several.
 */
export function identityFromSubjectAltName(subjectAltName: string | undefined): ServiceIdentity | undefined {
  const found = (subjectAltName ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith(`URI:${SPIFFE_PREFIX}`))
    .map((entry) => entry.slice(`URI:${SPIFFE_PREFIX}`.length));
  return found.length === 1 && isServiceIdentity(found[0]!) ? found[0] : undefined;
}

/** A CA's certificate and key, PEM. */
export interface CertificateAuthority {
  certPem: string;
  keyPem: string;
}

/** A certificate and its key, PEM. */
export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start an hour in the past so a clock slightly behind still accepts them. */
const BACKDATE_MS = 60 * 60 * 1000;

/** A new RSA key pair, PEM and as node-forge objects (to sign certificates with forge). */
export function createCertificateKeyPair() {
  // Node generates the key far faster than forge's JavaScript RSA.
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { keyPem: privateKey, forgePrivate: forge.pki.privateKeyFromPem(privateKey), forgePublic: forge.pki.publicKeyFromPem(publicKey) };
}

/** A certificate serial number: 128 random bits, first byte 0x01..0x7f: positive, and minimal in DER. */
export function randomCertificateSerial(): string {
  const bytes = crypto.randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** A CA for the services' certificates (the Helm chart's hook, the local stack, the tests). */
export function createCertificateAuthority(
  options: { commonName?: string; organization?: string; validityDays?: number; now?: number } = {},
): CertificateAuthority {
  const now = options.now ?? Date.now();
  const keys = createCertificateKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.forgePublic;
  cert.serialNumber = randomCertificateSerial();
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  cert.validity.notAfter = new Date(now + (options.validityDays ?? 10 * 365) * DAY_MS);
  const name = [
    { name: 'commonName', value: options.commonName ?? 'smsgw services CA' },
    { name: 'organizationName', value: options.organization ?? 'smsgw' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.forgePrivate, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/**
 * A certificate for one service, signed by `ca`: its identity as the URI SAN `spiffe://smsgw/<identity>`
 * and as CN, no DNS name (clients check the identity, not the host), usable as server and as client.
 * Valid one year by default, never past the CA's own end.
 */
export function issueServiceCertificate(
  ca: CertificateAuthority,
  identity: ServiceIdentity,
  options: { validityDays?: number; now?: number } = {},
): IssuedCertificate {
  const now = options.now ?? Date.now();
  const keys = createCertificateKeyPair();
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.forgePublic;
  cert.serialNumber = randomCertificateSerial();
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  cert.validity.notAfter = new Date(Math.min(now + (options.validityDays ?? 365) * DAY_MS, caCert.validity.notAfter.getTime()));
  cert.setSubject([
    { name: 'commonName', value: identity },
    { name: 'organizationName', value: 'smsgw' },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    // type 6 is a URI (RFC 5280 GeneralName).
    { name: 'subjectAltName', altNames: [{ type: 6, value: spiffeId(identity) }] },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/**
 * Whether `certPem` is a service certificate still worth keeping: signed by `caPem`, for `identity`,
 * matching `keyPem`, and valid for at least `marginDays` more days.
 */
export function serviceCertificateUsable(
  cert: { certPem: string; keyPem: string },
  caPem: string,
  identity: ServiceIdentity,
  options: { marginDays?: number; now?: number } = {},
): boolean {
  try {
    const now = options.now ?? Date.now();
    const x509 = new X509Certificate(cert.certPem);
    const ca = new X509Certificate(caPem);
    return (
      x509.checkIssued(ca) &&
      x509.verify(ca.publicKey) &&
      x509.checkPrivateKey(crypto.createPrivateKey(cert.keyPem)) &&
      identityFromSubjectAltName(x509.subjectAltName) === identity &&
      Date.parse(x509.validFrom) <= now &&
      Date.parse(x509.validTo) - now >= (options.marginDays ?? 30) * DAY_MS
    );
  } catch {
    return false;
  }
}
