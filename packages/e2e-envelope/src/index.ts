export { DEFAULT_KDF, DecryptionFailedError, ENVELOPE_PREFIX, isEnvelope, isWellFormedEnvelope, open, seal } from './envelope';
export type { KdfParams, SealOptions } from './envelope';
