import { randomUUID } from 'node:crypto';
import { AppError, MAX_SMS_CHARACTERS, smsCharacters, type ErrorDetail } from '@smsgw/platform';
import type { ReceivedPublisher } from '../events/received.publisher';
import type { SimulateOrder } from '../sessions/received-relay';
import type { SessionRegistry } from '../sessions/session-registry';
import { getDevice, type DeviceLookup } from './devices.use-case';

/** SimulateReceived as the RPC gives it (mode: 0 or 1 live, 2 test; sim 0: the phone's first SIM). */
export interface SimulateReceivedInput {
  clientId: string;
  deviceId: string;
  mode: number;
  from: string;
  text: string;
  sim: number;
}

const MODE_LIVE = 1;
const MODE_TEST = 2;

/** The order, checked: VALIDATION_ERROR listing every impossible value, field by field. */
export function validateSimulateReceived(input: SimulateReceivedInput): SimulateOrder & { test: boolean } {
  const details: ErrorDetail[] = [];
  const fail = (field: string, code: string, message: string) => details.push({ field, code, message });
  const from = input.from.trim();
  if (from.length < 1 || from.length > 32) fail('from', 'INVALID_LENGTH', "L'expéditeur doit compter de 1 à 32 caractères.");
  const characters = smsCharacters(input.text);
  if (characters < 1 || characters > MAX_SMS_CHARACTERS) fail('text', 'INVALID_LENGTH', 'Le texte doit compter de 1 à 1600 caractères.');
  if (!Number.isInteger(input.sim) || input.sim < 0 || input.sim > 8) fail('sim', 'OUT_OF_RANGE', 'Doit être un entier entre 0 et 8.');
  if (![0, MODE_LIVE, MODE_TEST].includes(input.mode)) fail('mode', 'INVALID_MODE', 'Mode attendu : 1 (live) ou 2 (test).');
  if (details.length > 0) throw new AppError('VALIDATION_ERROR', { message: 'SMS simulé invalide.', details });
  return { from, text: input.text, ...(input.sim > 0 ? { sim: input.sim } : {}), test: input.mode === MODE_TEST };
}

/** What simulating a received SMS takes: the device, the replica's sessions, the received events, the clock. */
export interface SimulateReceivedDeps extends DeviceLookup {
  sessions: Pick<SessionRegistry, 'simulateReceived'>;
  received: Pick<ReceivedPublisher, 'publish'>;
  clock: () => number;
}

/**
 * Makes a client's phone receive an SMS, for tests and demonstrations. Live: the replica holding
 * the phone tells its agent (a simulator driver of protocol 3 only), which relays it as any
 * received SMS; the answer comes once the order is sent, with no id (the phone makes it).
 * Test: the hub records it at once as the phone would, with an id of its own, returned.
 */
export async function simulateReceived(deps: SimulateReceivedDeps, input: SimulateReceivedInput): Promise<{ receivedId: string }> {
  const { test, ...sms } = validateSimulateReceived(input);
  const { device, online } = await getDevice(deps, input.clientId, input.deviceId);
  if (test) {
    const receivedId = randomUUID();
    await deps.received.publish({
      received_id: receivedId,
      device_id: device.device_id,
      client_id: device.client_id,
      mode: 'test',
      from: sms.from,
      text: sms.text,
      // No SIM given: the phone's first one.
      sim: sms.sim ?? 1,
      received_at: new Date(deps.clock()).toISOString(),
    });
    return { receivedId };
  }
  if (!online) throw new AppError('DEVICE_OFFLINE');
  deps.sessions.simulateReceived(device.device_id, sms);
  return { receivedId: '' };
}
