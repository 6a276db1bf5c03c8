/**
 * Error classes of the agent. Callers test them with `instanceof`; the CLI maps them once to an
 * exit code (see `exitCodeFor` in cli.ts).
 */
export class AgentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A flag is missing, contradicts another one, or points at something unreadable. */
export class UsageError extends AgentError {}

/** The agent has no credentials for this hub and was given nothing to pair with. */
export class NotPairedError extends AgentError {}

/** Pairing could not be done: the hub was unreachable or answered something unexpected. */
export class PairingError extends AgentError {}

/** The hub answered 401 to a pairing request: the code is unknown, used or expired. */
export class PairingRefusedError extends PairingError {}

/** The hub refused the device token (401 on connect) and the agent could not pair again. */
export class DeviceUnauthorizedError extends AgentError {}

/** Another connection of the same device took over (close code 4002). */
export class DeviceReplacedError extends AgentError {}

/** Another agent runs the same device from the same data directory (its `agent.lock` is held). */
export class DeviceInUseError extends AgentError {}

/** Several devices are paired in the data directory and nothing says which one to run. */
export class DeviceChoiceError extends AgentError {}

/** The termux driver was chosen but `termux-sms-send` is not installed. */
export class TermuxNotInstalledError extends AgentError {}

/** The outbox was asked for something its state machine forbids. */
export class OutboxError extends AgentError {}
