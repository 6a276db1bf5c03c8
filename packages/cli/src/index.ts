export { run, type Io } from './run';
export { resolveCredentials, configPath, type Credentials, type Profile, type ConfigFile } from './config';
export { parseCsv, recipientsOf, batches, type Recipient } from './csv';
