import { AppError, type ErrorDetail } from '@smsgw/platform';

/** How a phone with several SIMs picks one for a message that names none. */
export const SIM_RULES = ['round_robin', 'default'] as const;
export type SimRule = (typeof SIM_RULES)[number];

/** The highest SIM slot (protocol 4). */
export const MAX_SIM = 8;

/** A client's SIM rule and the SIM of the "default" rule. */
export interface SimSettings {
  simRule: SimRule;
  /** 1 to 8; undefined keeps the stored one (allowed with "round_robin" only). */
  defaultSim?: number;
}

/**
 * The settings of an UpdateClient: a known rule, and a default SIM from 1 to
 * 8 (0, "none given", only with "round_robin": the stored one stays), or
 * VALIDATION_ERROR naming each bad field.
 */
export function checkSimSettings(input: { simRule: string; defaultSim: number }): SimSettings {
  const details: ErrorDetail[] = [];
  const known = (SIM_RULES as readonly string[]).includes(input.simRule);
  if (!known) {
    details.push({ field: 'sim_rule', code: 'VALIDATION_ERROR', message: 'La règle de SIM doit être "round_robin" ou "default".' });
  }
  const keep = input.defaultSim === 0 && input.simRule !== 'default';
  if (!keep && !(Number.isInteger(input.defaultSim) && input.defaultSim >= 1 && input.defaultSim <= MAX_SIM)) {
    details.push({ field: 'default_sim', code: 'VALIDATION_ERROR', message: `La SIM par défaut doit être un entier de 1 à ${MAX_SIM}.` });
  }
  // One bad field: its own sentence says what is wrong; several: the catalog's.
  if (details.length === 1) throw new AppError('VALIDATION_ERROR', { message: details[0]!.message, details });
  if (details.length > 1) throw new AppError('VALIDATION_ERROR', { details });
  return { simRule: input.simRule as SimRule, ...(keep ? {} : { defaultSim: input.defaultSim }) };
}
