import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import type { GrpcTls } from './service-config';
import { identityFromSubjectAltName, type ServiceIdentity } from './service-identity';

function material(tls: Exclude<GrpcTls, { mode: 'off' }>): { ca: Buffer; cert: Buffer; key: Buffer } {
  if ('caFile' in tls) {
    return { ca: fs.readFileSync(tls.caFile), cert: fs.readFileSync(tls.certFile), key: fs.readFileSync(tls.keyFile) };
  }
  return { ca: Buffer.from(tls.ca), cert: Buffer.from(tls.cert), key: Buffer.from(tls.key) };
}

/** The credentials a server binds its main port with: mutual TLS, client certificates required and checked against the CA. */
export function serverCredentials(tls: GrpcTls): grpc.ServerCredentials {
  if (tls.mode === 'off') return grpc.ServerCredentials.createInsecure();
  const { ca, cert, key } = material(tls);
  return grpc.ServerCredentials.createSsl(ca, [{ private_key: key, cert_chain: cert }], true);
}

/**
 * The credentials of a client of `serverIdentity`: its own certificate, the server's checked
 * against the CA and against the identity it must carry (certificates have no host names).
 * Without `serverIdentity`, any identity the CA signed is accepted (health checks).
 */
export function channelCredentials(tls: GrpcTls, serverIdentity?: ServiceIdentity): grpc.ChannelCredentials {
  if (tls.mode === 'off') return grpc.credentials.createInsecure();
  const { ca, cert, key } = material(tls);
  return grpc.credentials.createSsl(ca, key, cert, {
    checkServerIdentity: (_host, peer) => {
      const found = identityFromSubjectAltName(peer.subjectaltname);
      if (found !== undefined && (serverIdentity === undefined || found === serverIdentity)) return undefined;
      return new Error(`the server's certificate is for ${found ?? 'no smsgw identity'}, not ${serverIdentity ?? 'an smsgw service'}`);
    },
  });
}

/**
 * The HTTP/2 session a server call came on. grpc-js keeps it in private fields (the handler's call
 * → its intercepting calls → the stream); the platform's tests check that this still finds it.
 */
function sessionOf(call: unknown): object | undefined {
  let inner = (call as { call?: unknown }).call;
  for (let hop = 0; hop < 8 && inner !== undefined && inner !== null; hop++) {
    const session = (inner as { stream?: { session?: object } }).stream?.session;
    if (session !== undefined) return session;
    inner = (inner as { nextCall?: unknown }).nextCall;
  }
  return undefined;
}

// One identity per connection: its client certificate cannot change (HTTP/2 forbids renegotiation),
// and reading it (`getPeerCertificate`) costs a parse and three hashes on every call.
const identityOfSession = new WeakMap<object, ServiceIdentity | undefined>();

/** The calling service's identity, from the client certificate of the call's connection. */
export function callerIdentity(call: {
  getAuthContext?: () => { sslPeerCertificate?: { subjectaltname?: string } };
}): ServiceIdentity | undefined {
  const session = sessionOf(call);
  if (session !== undefined && identityOfSession.has(session)) return identityOfSession.get(session);
  const identity = identityFromSubjectAltName(call.getAuthContext?.().sslPeerCertificate?.subjectaltname);
  if (session !== undefined) identityOfSession.set(session, identity);
  return identity;
}

const IDENTITY_OF_PACKAGE: Record<string, ServiceIdentity> = {
  account: 'account',
  message: 'message',
  devicehub: 'device-hub',
  otp: 'otp',
  scheduler: 'scheduler',
  webhook: 'webhook',
};

/** The identity of the service that serves `service` (`/smsgw.devicehub.v1.DeviceHubService/...` is device-hub's). */
export function identityServing(service: grpc.ServiceDefinition): ServiceIdentity | undefined {
  const first = Object.values(service)[0] as { path?: string } | undefined;
  const pkg = /^\/smsgw\.([a-z]+)\.v\d+\./.exec(first?.path ?? '')?.[1];
  return pkg === undefined ? undefined : IDENTITY_OF_PACKAGE[pkg];
}
