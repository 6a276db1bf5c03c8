import { AppError } from '@smsgw/platform';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';

/** argon2id with OWASP's minimum (19 MiB, 2 passes, 1 lane): about 20 ms a hash here. */
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const MIN_PASSWORD = 10;
const MAX_PASSWORD = 200;
/** Compared against when the e-mail is unknown, so that both failures take as long. */
const DUMMY_HASH = argon2Hash('not a password of anyone', ARGON2);

/** A password the account may have: 10 to 200 characters, or WEAK_PASSWORD. */
export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) {
    throw new AppError('VALIDATION_ERROR', {
      details: [
        {
          field: 'password',
          code: 'WEAK_PASSWORD',
          message: `Le mot de passe doit faire de ${MIN_PASSWORD} à ${MAX_PASSWORD} caractères.`,
        },
      ],
    });
  }
}

export function hashPassword(password: string): Promise<string> {
  return argon2Hash(password, ARGON2);
}

/**
 * Whether `password` matches `hash`. Without a hash (no such user) it is
 * compared with a dummy one, so that an unknown e-mail takes as long.
 */
export async function passwordMatches(hash: string | undefined, password: string): Promise<boolean> {
  return argon2Verify(hash ?? (await DUMMY_HASH), password).catch(() => false);
}
