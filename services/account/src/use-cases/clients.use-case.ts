import { AppError, newClientId, newId, type Destinations } from '@smsgw/platform';
import { EmailTakenError, type AccountRepository, type ClientRow, type UserRow } from '../data/account.repository';
import { checkEmail, issueApiKey, newSigningSecret } from '../domain/api-key';
import { checkDestinations } from '../domain/destinations';
import { checkFleetSettings, type FleetSettings } from '../domain/fleet';
import { checkSimSettings } from '../domain/sim-rule';
import { checkPassword, hashPassword } from '../domain/password';

/** A new client and what it is shown once: its live and test keys, and its signing secret. */
export interface CreatedClient {
  clientId: string;
  liveApiKey: string;
  testApiKey: string;
  signingSecret: string;
}

/** A client (the operator's `admin` command), with a live and a test key. */
export async function createClient(repo: AccountRepository, email: string, name: string): Promise<CreatedClient> {
  checkEmail(email);
  const clientId = newClientId();
  const live = issueApiKey(clientId, 'live', 'live');
  const test = issueApiKey(clientId, 'test', 'test');
  const signingSecret = newSigningSecret();
  // The operator gives the address: it is taken as verified.
  await repo.createClient({ clientId, email, name, signingSecret, emailVerified: true }, [live.row, test.row]);
  return { clientId, liveApiKey: live.plain, testApiKey: test.plain, signingSecret };
}

/**
 * An account owner signing up in the dashboard: a client, its two keys and
 * its first user, in one transaction. An e-mail that has a user already:
 * EMAIL_TAKEN.
 */
export async function signUp(
  repo: AccountRepository,
  email: string,
  name: string,
  password: string,
): Promise<{ user: UserRow; liveApiKey: string; testApiKey: string }> {
  checkEmail(email);
  checkPassword(password);
  const clientId = newClientId();
  const userId = newId('usr');
  const live = issueApiKey(clientId, 'live', 'live', { createdBy: userId });
  const test = issueApiKey(clientId, 'test', 'test', { createdBy: userId });
  const passwordHash = await hashPassword(password);
  try {
    await repo.createClient({ clientId, email, name, signingSecret: newSigningSecret(), emailVerified: false }, [live.row, test.row], {
      userId,
      passwordHash,
    });
  } catch (err) {
    if (err instanceof EmailTakenError) {
      throw new AppError('VALIDATION_ERROR', {
        details: [{ field: 'email', code: 'EMAIL_TAKEN', message: 'Un compte existe déjà pour cette adresse.' }],
      });
    }
    throw err;
  }
  const user = (await repo.findUser(userId))!;
  return { user, liveApiKey: live.plain, testApiKey: test.plain };
}

export async function getClient(repo: AccountRepository, clientId: string): Promise<ClientRow> {
  const client = await repo.findClient(clientId);
  if (!client) throw new AppError('INVALID_CLIENT_ID');
  return client;
}

/**
 * Changes the e-mail or the name a client gave (each when not empty), its
 * fleet settings when `fleet` is given (both at once, each checked), and its
 * SIM rule when `sims` is given (checked), and its destinations when
 * `destinations` is given (the three lists at once, each checked).
 */
export async function updateClient(
  repo: AccountRepository,
  clientId: string,
  change: {
    email: string;
    name: string;
    fleet?: FleetSettings;
    sims?: { simRule: string; defaultSim: number };
    destinations?: Destinations;
  },
): Promise<ClientRow> {
  if (change.email) {
    checkEmail(change.email);
    // Until the account proved its address, its alert address stays the owner's: the links go there.
    const current = await repo.findClient(clientId);
    if (current && !current.account_verified_at && change.email.toLowerCase() !== current.email.toLowerCase()) {
      throw new AppError('VALIDATION_ERROR', {
        details: [
          {
            field: 'email',
            code: 'ACCOUNT_NOT_VERIFIED',
            message: "Confirmez d'abord l'adresse du compte avec le lien reçu par e-mail : l'adresse des alertes pourra changer ensuite.",
          },
        ],
      });
    }
  }
  if (change.fleet) checkFleetSettings(change.fleet);
  const sims = change.sims && checkSimSettings(change.sims);
  const destinations = change.destinations && checkDestinations(change.destinations);
  const client = await repo.updateClient(clientId, {
    email: change.email || undefined,
    name: change.name || undefined,
    ...change.fleet,
    ...sims,
    ...destinations,
  });
  if (!client) throw new AppError('INVALID_CLIENT_ID');
  return client;
}

/** The operator vouches for the account's address (its create-user, `make dev`'s demo). */
export async function markAccountVerified(repo: AccountRepository, clientId: string): Promise<ClientRow> {
  if (!(await repo.markAccountVerified(clientId))) throw new AppError('INVALID_CLIENT_ID');
  return getClient(repo, clientId);
}

/** A new signing secret; the old one stops signing at once. */
export async function rotateSigningSecret(repo: AccountRepository, clientId: string): Promise<string> {
  const secret = newSigningSecret();
  if (!(await repo.setSigningSecret(clientId, secret))) throw new AppError('INVALID_CLIENT_ID');
  return secret;
}
