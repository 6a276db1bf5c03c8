import fs from 'node:fs';
import path from 'node:path';
import { isEnvelope, open } from '@smsgw/e2e-envelope';

/**
 * The protocol fixtures of `android-agent/fixtures` (their format: fixtures/README.md), read and
 * matched the same way by the Node agent's runner and the hub's.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Frame = { type: string } & { [key: string]: Json };

export interface OutboxExpectation {
  state: string;
  unacked_reports: string[];
}

export type PhoneEvent =
  | { event: 'sent' | 'delivered'; message_id: string }
  | {
      event: 'failed';
      message_id: string;
      cause: 'radio_off' | 'INVALID_NUMBER' | 'OUT_OF_NETWORK' | 'INSUFFICIENT_CREDIT' | 'BLACKLISTED';
    }
  | { event: 'received'; from: string; text: string; sim?: number };

export interface Step {
  hub?: Frame;
  phone?: PhoneEvent;
  connection?: 'drop' | 'reconnect';
  wait_ms?: number;
  restart?: true;
  agent: Frame[];
  handed_over?: string[];
  outbox?: Record<string, OutboxExpectation | null>;
  inbox?: number;
}

export interface Fixture {
  file: string;
  behaviour: string;
  agents?: string[];
  phone?: { sims?: { slot: number; carrier?: string; number?: string }[]; report_resend_ms?: number; passphrase?: string };
  steps: Step[];
}

export const FIXTURES_DIR = path.join(__dirname, '..', '..', 'fixtures');

/** Every fixture, by file name; `agent` keeps those that apply to it (no `agents` list: all). */
export function loadFixtures(agent?: string): Fixture[] {
  return fs
    .readdirSync(FIXTURES_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => checked(file, JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, file), 'utf8')) as Omit<Fixture, 'file'>))
    .filter((fixture) => agent === undefined || fixture.agents === undefined || fixture.agents.includes(agent));
}

interface FixtureSchema {
  properties: Record<string, unknown>;
  $defs: { step: { properties: Record<string, unknown>; oneOf: { required: string[] }[] } };
}
// The keys come from the format's JSON Schema (fixtures/schema/fixture.schema.json): one list of them.
const SCHEMA = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, 'schema', 'fixture.schema.json'), 'utf8')) as FixtureSchema;
const FIXTURE_KEYS = Object.keys(SCHEMA.properties);
const INPUT_KEYS = SCHEMA.$defs.step.oneOf.map((input) => input.required[0]!);
const STEP_KEYS = Object.keys(SCHEMA.$defs.step.properties);

/** The fixture, once its keys are the README's: a misspelt key would otherwise assert nothing. */
function checked(file: string, fixture: Omit<Fixture, 'file'>): Fixture {
  const fail = (what: string): never => {
    throw new Error(`fixtures/${file}: ${what} (see fixtures/README.md)`);
  };
  const unknown = Object.keys(fixture).filter((key) => !FIXTURE_KEYS.includes(key));
  if (unknown.length > 0) fail(`unknown keys ${unknown.join(', ')}`);
  if (typeof fixture.behaviour !== 'string' || !Array.isArray(fixture.steps) || fixture.steps.length === 0) {
    fail('a fixture needs a behaviour and at least one step');
  }
  fixture.steps.forEach((step, index) => {
    const keys = Object.keys(step);
    const stray = keys.filter((key) => !STEP_KEYS.includes(key));
    if (stray.length > 0) fail(`step ${index + 1}: unknown keys ${stray.join(', ')}`);
    if (keys.filter((key) => INPUT_KEYS.includes(key)).length !== 1) fail(`step ${index + 1}: exactly one of ${INPUT_KEYS.join(', ')}`);
    if (!Array.isArray(step.agent)) fail(`step ${index + 1}: agent (the frames expected, [] for none) is missing`);
  });
  return { file, ...fixture };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const PLACEHOLDER = /^<([a-z0-9_]+)(?::([a-z0-9_]+))?>$/;
const RESERVED = ['time', 'string', 'driver', 'uuid', 'envelope'];

/** What `<driver>` stands for, the values bound so far by `<uuid:name>`, and what `<envelope>` must open to. */
export interface Bindings {
  driver: string;
  values: Map<string, string>;
  /** The phone's passphrase and the text of the step's received SMS. */
  sealed?: { passphrase: string; text: string };
}

/**
 * Whether `actual` matches `expected`: the same JSON, where a string placeholder of `expected`
 * matches as fixtures/README.md says (`<time>`, `<string>`, `<driver>`, `<envelope>`, `<uuid:name>`
 * binding a value, `<name>` a value bound before). Objects must have the same keys.
 */
export function matches(expected: Json, actual: Json | undefined, bindings: Bindings): boolean {
  if (typeof expected === 'string') {
    const placeholder = PLACEHOLDER.exec(expected);
    if (!placeholder) return actual === expected;
    if (typeof actual !== 'string') return false;
    const [, kind, name] = placeholder;
    switch (kind) {
      case 'time':
        return RFC3339.test(actual);
      case 'string':
        return actual.length > 0;
      case 'driver':
        return actual === bindings.driver;
      case 'envelope':
        return bindings.sealed !== undefined && opensTo(actual, bindings.sealed.passphrase, bindings.sealed.text);
      case 'uuid':
        if (!UUID.test(actual)) return false;
        if (name) bindings.values.set(name, actual);
        return true;
      default:
        return bindings.values.get(kind!) === actual;
    }
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, i) => matches(item, actual[i], bindings));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const keys = Object.keys(expected).sort();
    const actualKeys = Object.keys(actual).sort();
    return keys.join(',') === actualKeys.join(',') && keys.every((key) => matches(expected[key]!, actual[key], bindings));
  }
  return actual === expected;
}

function opensTo(envelope: string, passphrase: string, text: string): boolean {
  if (!isEnvelope(envelope)) return false;
  try {
    return open(envelope, passphrase) === text;
  } catch {
    return false;
  }
}

/** The frames matched in order; on a mismatch, a message that shows both lists. */
export function framesMismatch(expected: Frame[], actual: Frame[], bindings: Bindings): string | undefined {
  if (matches(expected, actual, bindings)) return undefined;
  return `expected the agent to send\n${JSON.stringify(expected, null, 1)}\nbut it sent\n${JSON.stringify(actual, null, 1)}`;
}

/** A hub frame of a fixture with the values bound so far put in place of their `<name>`. */
export function substitute(value: Json, bindings: Bindings): Json {
  if (typeof value === 'string') {
    const placeholder = PLACEHOLDER.exec(value);
    if (!placeholder || placeholder[2] !== undefined || RESERVED.includes(placeholder[1]!)) return value;
    const bound = bindings.values.get(placeholder[1]!);
    if (bound === undefined) throw new Error(`${value} is not bound by an earlier <uuid:${placeholder[1]}>`);
    return bound;
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, bindings));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, bindings)]));
  }
  return value;
}
