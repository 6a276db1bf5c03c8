export { startAgent, AGENT_NAME, AGENT_VERSION, type Agent, type StartAgentOptions } from './agent';
export { nextDelay } from './backoff';
export * from './errors';
export type { Driver, DriverEvents, DriverName } from './drivers/driver';
export type { PairingSecret } from './pairing';
export type { Report, ReportStatus, Sms, SmsError, SmsErrorCode } from './protocol';
