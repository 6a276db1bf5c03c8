import { randomBytes } from 'node:crypto';
import {
  createCertificateAuthority,
  issueServiceCertificate,
  type CertificateAuthority,
  type GrpcTlsPem,
  type ServiceIdentity,
} from '@smsgw/platform';

// The local servers the tests run against; TEST_* overrides them (CI, another port).
export const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Random hex, for schema names, NATS prefixes and ids that must not meet another test run's. */
export const randomHex = (bytes = 6) => randomBytes(bytes).toString('hex');

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something truthy, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** What `promise` was rejected with; fails the test when it resolves instead. */
export async function thrownBy<E = Error>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (err) {
    return err as E;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

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
