import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, ServiceClientConstructor, ServiceDefinition } from '@grpc/grpc-js';
import {
  createClient,
  createCertificateAuthority,
  SERVICE_IDENTITIES,
  type Callers,
  issueServiceCertificate,
  type CertificateAuthority,
  type GrpcTlsPem,
  type PromiseClient,
  type ServiceIdentity,
} from '@smsgw/platform';

let testCa: CertificateAuthority | undefined;
const testCertificates = new Map<ServiceIdentity, GrpcTlsPem>();

/** The test CA, made once per process: every identity of `grpcTlsFor` is signed by it. */
export function testCertificateAuthority(): CertificateAuthority {
  testCa ??= createCertificateAuthority({ commonName: 'smsgw test CA' });
  return testCa;
}

/**
 * Mutual TLS credentials of `identity` for an in-process server or client of a test: a certificate
 * of the process's test CA, issued once per identity.
 */
export function grpcTlsFor(identity: ServiceIdentity): GrpcTlsPem {
  let tls = testCertificates.get(identity);
  if (!tls) {
    const ca = testCertificateAuthority();
    const issued = issueServiceCertificate(ca, identity);
    tls = { mode: 'mtls', ca: ca.certPem, cert: issued.certPem, key: issued.keyPem };
    testCertificates.set(identity, tls);
  }
  return tls;
}

let certDir: string | undefined;

/**
 * The environment a service started in-process reads its gRPC identity from
 * (GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE): `grpcTlsFor(identity)` written to files.
 */
export function grpcTlsEnv(identity: ServiceIdentity): Record<string, string> {
  const tls = grpcTlsFor(identity);
  certDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-test-certs-'));
  const file = (name: string, content: string | Buffer) => {
    const target = path.join(certDir!, name);
    if (!fs.existsSync(target)) fs.writeFileSync(target, content, { mode: 0o600 });
    return target;
  };
  return {
    GRPC_TLS_CA_FILE: file('ca.pem', tls.ca),
    GRPC_TLS_CERT_FILE: file(`${identity}.pem`, tls.cert),
    GRPC_TLS_KEY_FILE: file(`${identity}-key.pem`, tls.key),
  };
}

/**
 * A promise client of an in-process service whose every method is called with an identity that
 * method allows (the first of its `callers`), so that a test may call every method.
 */
export function clientOfAllowedCallers<C extends Client>(
  Ctor: { service: ServiceDefinition },
  address: string,
  callers: Readonly<Record<string, readonly ServiceIdentity[]>>,
  options: { deadlineMs?: number } = {},
): PromiseClient<C> {
  const byIdentity = new Map<ServiceIdentity, PromiseClient<C>>();
  const clientAs = (identity: ServiceIdentity) => {
    let client = byIdentity.get(identity);
    if (!client) {
      client = createClient<C>(Ctor as unknown as ServiceClientConstructor, address, { ...options, tls: grpcTlsFor(identity) });
      byIdentity.set(identity, client);
    }
    return client;
  };
  const out: Record<string, unknown> = { close: () => byIdentity.forEach((c) => c.close()) };
  for (const [name, def] of Object.entries(Ctor.service) as [string, { originalName?: string }][]) {
    const method = def.originalName ?? name.charAt(0).toLowerCase() + name.slice(1);
    const identity = callers[name]?.[0] ?? 'admin';
    out[method] = (...args: unknown[]) => (clientAs(identity) as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!(...args);
  }
  Object.defineProperty(out, 'raw', { get: () => clientAs('admin').raw });
  return out as PromiseClient<C>;
}

/** Callers for a stand-in server of a test: every identity may call every method of `definition`. */
export function anyCaller<H>(definition: ServiceDefinition): Callers<H> {
  return Object.fromEntries(Object.keys(definition).map((method) => [method, SERVICE_IDENTITIES])) as unknown as Callers<H>;
}
