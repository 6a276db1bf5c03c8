// One started stack used by several test processes: the process that started it writes what the
// others need to reach it (addresses, certificates, bus users) as a file, and they attach to it. An
// attached stack reaches the services but does not own them: it cannot restart, add or stop one.
import fs from 'node:fs';
import { SERVICE_IDENTITIES, type GrpcTls, type ServiceIdentity } from '@smsgw/platform';
import type { ServiceCertFiles } from './certs';
import type { Stack } from './index';

/** What `Stack` holds apart from its processes: plain data, written as JSON. */
export type StackDescriptor = Omit<
  Stack,
  'services' | 'grpcCredentials' | 'addGateway' | 'addDeviceHub' | 'addScheduler' | 'restart' | 'stop'
> & {
  grpc: Record<ServiceIdentity, GrpcTls & ServiceCertFiles>;
};

function describeStack(stack: Stack): StackDescriptor {
  const grpc = Object.fromEntries(SERVICE_IDENTITIES.map((id) => [id, stack.grpcCredentials(id)])) as StackDescriptor['grpc'];
  const data = Object.fromEntries(Object.entries(stack).filter(([, value]) => typeof value !== 'function')) as Omit<
    StackDescriptor,
    'grpc'
  > & {
    services?: unknown;
  };
  delete data.services;
  return { ...data, grpc };
}

export function writeStackDescriptor(file: string, stack: Stack): void {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(describeStack(stack)));
  fs.renameSync(`${file}.tmp`, file);
}

const notOwned = (what: string) => (): never => {
  throw new Error(`a shared stack cannot ${what}: start a stack of the file's own for that`);
};

/** A stack started by another process, from its descriptor. */
export function attachStack(descriptor: StackDescriptor): Stack {
  const { grpc, ...data } = descriptor;
  return {
    ...data,
    services: new Proxy({} as Stack['services'], {
      get: (_target, name) => notOwned(`reach its ${String(name)} process`)(),
    }),
    grpcCredentials: (identity) => grpc[identity],
    addGateway: notOwned('add a gateway'),
    addDeviceHub: notOwned('add a device hub'),
    addScheduler: notOwned('add a scheduler'),
    restart: notOwned('restart a service'),
    stop: notOwned('be stopped by a process that did not start it'),
  };
}
