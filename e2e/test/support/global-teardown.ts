// After the last worker: the shared stack stops and leaves nothing behind (its database, prefixes and users).
import { removeSharedStackFile } from './shared-stack';

export default async function globalTeardown(): Promise<void> {
  removeSharedStackFile();
  await globalThis.sharedE2eStack?.stop();
  globalThis.sharedE2eStack = undefined;
}
