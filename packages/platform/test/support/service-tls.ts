import {
  createCertificateAuthority,
  issueServiceCertificate,
  type CertificateAuthority,
  type GrpcTlsPem,
  type ServiceIdentity,
} from '../../src';

// @smsgw/testing has the same helper, but it depends on this package: the platform's tests keep their own.
let ca: CertificateAuthority | undefined;
const issued = new Map<ServiceIdentity, GrpcTlsPem>();

/** The test CA of this process. */
export function testCa(): CertificateAuthority {
  ca ??= createCertificateAuthority({ commonName: 'smsgw platform test CA' });
  return ca;
}

/** Mutual TLS credentials of `identity`, signed by `authority` (the process's test CA by default). */
export function tlsFor(identity: ServiceIdentity, authority?: CertificateAuthority): GrpcTlsPem {
  const cached = authority ? undefined : issued.get(identity);
  if (cached) return cached;
  const signer = authority ?? testCa();
  const cert = issueServiceCertificate(signer, identity);
  const tls: GrpcTlsPem = { mode: 'mtls', ca: signer.certPem, cert: cert.certPem, key: cert.keyPem };
  if (!authority) issued.set(identity, tls);
  return tls;
}
