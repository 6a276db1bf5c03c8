// Before the workers start: the suites' local CA and certificates, made once (two suites starting
// together on a fresh checkout would otherwise each make a CA of their own in the same folder), and
// the shared stack when a selected file uses it.
import path from 'node:path';
import { SERVICE_IDENTITIES } from '@smsgw/platform';
import { ensureCerts, ensureServiceCerts, startStack, writeStackDescriptor, type Stack } from '@smsgw/stack';
import { E2E_DATA_DIR, removeSharedStackFile, runNeedsSharedStack, SHARED_ENV, SHARED_STACK_FILE } from './shared-stack';

/** Read by the global teardown, which runs in this process. */
declare global {
  var sharedE2eStack: Stack | undefined;
}

interface GlobalConfig {
  testPathPatterns?: { patterns?: readonly string[] };
}

export default async function globalSetup(globalConfig: GlobalConfig): Promise<void> {
  const dir = path.join(E2E_DATA_DIR, 'certs');
  await ensureServiceCerts(dir, await ensureCerts(dir), SERVICE_IDENTITIES);
  removeSharedStackFile();
  if (!runNeedsSharedStack(path.dirname(__dirname), globalConfig.testPathPatterns?.patterns ?? [])) return;
  const stack = await startStack({ dataDir: E2E_DATA_DIR, isolated: true, env: SHARED_ENV });
  globalThis.sharedE2eStack = stack;
  writeStackDescriptor(SHARED_STACK_FILE, stack);
}
