import * as grpc from '@grpc/grpc-js';

/**
 * Every error code the platform can answer with, its HTTP status at the edge,
 * its gRPC status between services, and the French sentence users read.
 * This table is the one place where codes meet transport statuses.
 */
export const ERROR_CATALOG = {
  MISSING_AUTH_HEADERS: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: "En-têtes d'authentification manquants : X-API-Key et X-Client-ID sont obligatoires.",
  },
  INVALID_JSON: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: 'Le corps de la requête doit être un objet JSON valide.' },
  VALIDATION_ERROR: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: 'Plusieurs champs de la requête sont invalides.' },
  INVALID_PHONE_NUMBER: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: 'Numéro de téléphone invalide : un numéro international est attendu (par exemple +33612345678).',
  },
  MESSAGE_TOO_LONG: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: 'Le message dépasse la limite de 1600 caractères.' },
  MESSAGE_REQUIRED: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: 'Le texte du message est obligatoire.' },
  TOO_MANY_RECIPIENTS: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: 'Trop de destinataires : 100 au maximum par requête.' },
  INVALID_PRIORITY: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: 'La priorité doit être un entier compris entre 1 et 5.' },
  INVALID_SCHEDULED_AT: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: "La date d'envoi programmé doit être une date ISO 8601 future, au plus 30 jours à l'avance.",
  },
  METADATA_TOO_LARGE: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: 'Les métadonnées doivent être un objet JSON de 1 Ko au plus.',
  },
  INVALID_WEBHOOK_URL: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: "L'URL de webhook doit être une URL HTTPS valide." },
  INVALID_OTP_LENGTH: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: 'La longueur du code doit être un entier compris entre 4 et 8.',
  },
  INVALID_OTP_EXPIRY: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: 'La durée de validité doit être un nombre entier de secondes entre 30 et 3600.',
  },
  INVALID_TEMPLATE: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: 'Le modèle doit contenir le marqueur {{code}}.' },
  INVALID_PAGINATION: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: 'Pagination invalide : page et limit doivent être des entiers, limit entre 1 et 100.',
  },
  INVALID_STATUS: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: 'Statut inconnu : queued, sent, delivered, failed ou cancelled.',
  },
  INVALID_IDEMPOTENCY_KEY: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: "La clé d'idempotence doit faire de 1 à 255 caractères.",
  },
  INVALID_DATE: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: 'Date invalide : une date ISO 8601 est attendue.' },
  NUMBER_TYPE_NOT_ALLOWED: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message: "Ce type de numéro (surtaxé, à coûts partagés ou assimilé) ne reçoit pas de codes : il n'est pas autorisé pour ce compte.",
  },
  INVALID_API_KEY: { http: 401, grpc: grpc.status.UNAUTHENTICATED, message: 'Clé API invalide, expirée ou révoquée.' },
  INVALID_CLIENT_ID: { http: 401, grpc: grpc.status.UNAUTHENTICATED, message: 'Identifiant client inconnu.' },
  INVALID_DEVICE_TOKEN: { http: 401, grpc: grpc.status.UNAUTHENTICATED, message: "Jeton d'appareil invalide ou révoqué." },
  INVALID_PAIRING: { http: 401, grpc: grpc.status.UNAUTHENTICATED, message: "Code d'appairage ou mot de passe d'appareil invalide." },
  ACCOUNT_NOT_VERIFIED: {
    http: 403,
    grpc: grpc.status.FAILED_PRECONDITION,
    message:
      "L'adresse e-mail du compte n'est pas encore confirmée : les clés live, les téléphones et les webhooks fonctionnent une fois le lien reçu par e-mail ouvert (les clés test fonctionnent déjà).",
  },
  HTTPS_REQUIRED: {
    http: 403,
    grpc: grpc.status.PERMISSION_DENIED,
    message: 'HTTPS est obligatoire : les requêtes en HTTP simple sont refusées.',
  },
  DESTINATION_NOT_ALLOWED: {
    http: 403,
    grpc: grpc.status.PERMISSION_DENIED,
    message: "Ce pays de destination n'est pas autorisé pour ce compte.",
  },
  SCOPE_NOT_ALLOWED: {
    http: 403,
    grpc: grpc.status.PERMISSION_DENIED,
    message: "Cette clé API n'a pas le droit d'utiliser cette fonction : ses autorisations (scopes) ne la couvrent pas.",
  },
  IP_NOT_ALLOWED: {
    http: 403,
    grpc: grpc.status.PERMISSION_DENIED,
    message: "Cette clé API n'est pas autorisée depuis cette adresse IP.",
  },
  INVALID_DEVICE_ID: { http: 404, grpc: grpc.status.NOT_FOUND, message: "Appareil inconnu ou n'appartenant pas à ce client." },
  MESSAGE_NOT_FOUND: { http: 404, grpc: grpc.status.NOT_FOUND, message: 'Message introuvable.' },
  RECEIVED_NOT_FOUND: { http: 404, grpc: grpc.status.NOT_FOUND, message: 'SMS reçu introuvable.' },
  OPT_OUT_NOT_FOUND: { http: 404, grpc: grpc.status.NOT_FOUND, message: "Ce numéro n'est pas dans la liste d'opposition." },
  OTP_NOT_FOUND: { http: 404, grpc: grpc.status.NOT_FOUND, message: 'OTP introuvable.' },
  CAMPAIGN_NOT_FOUND: { http: 404, grpc: grpc.status.NOT_FOUND, message: 'Campagne introuvable.' },
  CAMPAIGN_UPLOAD_NOT_FOUND: {
    http: 404,
    grpc: grpc.status.NOT_FOUND,
    message: 'Fichier de campagne introuvable : il a expiré (une heure), a déjà été envoyé ou a été retiré.',
  },
  NOT_FOUND: { http: 404, grpc: grpc.status.NOT_FOUND, message: "Cette ressource n'existe pas." },
  METHOD_NOT_ALLOWED: {
    http: 405,
    grpc: grpc.status.UNIMPLEMENTED,
    message: "Cette méthode HTTP n'est pas autorisée pour cette ressource.",
  },
  MESSAGE_NOT_CANCELLABLE: {
    http: 409,
    grpc: grpc.status.FAILED_PRECONDITION,
    message: "Seul un message encore en file d'attente peut être annulé.",
  },
  LIMIT_REACHED: {
    http: 409,
    grpc: grpc.status.RESOURCE_EXHAUSTED,
    message: 'Limite atteinte pour ce compte.',
  },
  LAST_OWNER: {
    http: 409,
    grpc: grpc.status.FAILED_PRECONDITION,
    message: 'Un compte garde au moins un propriétaire : nommez-en un autre avant.',
  },
  ROLE_NOT_ALLOWED: {
    http: 403,
    grpc: grpc.status.PERMISSION_DENIED,
    message: 'Votre rôle dans ce compte ne permet pas cette action.',
  },
  CAMPAIGN_NOT_RUNNING: {
    http: 409,
    grpc: grpc.status.FAILED_PRECONDITION,
    message: 'Cette campagne est annulée : elle ne peut plus changer.',
  },
  OTP_ALREADY_VERIFIED: {
    http: 409,
    grpc: grpc.status.FAILED_PRECONDITION,
    message: 'Ce code a déjà été vérifié et ne peut plus être utilisé.',
  },
  IDEMPOTENCY_IN_PROGRESS: {
    http: 409,
    grpc: grpc.status.ABORTED,
    message: "Une requête avec cette clé d'idempotence est en cours de traitement.",
  },
  IDEMPOTENCY_KEY_REUSED: {
    http: 422,
    grpc: grpc.status.FAILED_PRECONDITION,
    message: "Cette clé d'idempotence a déjà servi pour une requête différente.",
  },
  OTP_EXPIRED: { http: 410, grpc: grpc.status.FAILED_PRECONDITION, message: 'Ce code a expiré : demandez-en un nouveau.' },
  OTP_MAX_ATTEMPTS: {
    http: 410,
    grpc: grpc.status.FAILED_PRECONDITION,
    message: 'Nombre maximal de tentatives atteint : demandez un nouveau code.',
  },
  PAYLOAD_TOO_LARGE: { http: 413, grpc: grpc.status.INVALID_ARGUMENT, message: 'Le corps de la requête dépasse 1 Mo.' },
  RATE_LIMIT_EXCEEDED: {
    http: 429,
    grpc: grpc.status.RESOURCE_EXHAUSTED,
    message: 'Trop de requêtes : la limite est de 100 requêtes par minute.',
  },
  QUOTA_EXCEEDED: {
    http: 429,
    grpc: grpc.status.RESOURCE_EXHAUSTED,
    message: 'Quota journalier de cette clé API atteint : de nouveaux envois seront possibles demain (minuit UTC).',
  },
  CAMPAIGN_UPLOADS_FULL: {
    http: 429,
    grpc: grpc.status.RESOURCE_EXHAUSTED,
    message: "Trop de fichiers de campagne en attente pour ce compte : envoyez-en ou retirez-en un, ou attendez qu'il expire.",
  },
  OTP_RATE_LIMITED: {
    http: 429,
    grpc: grpc.status.RESOURCE_EXHAUSTED,
    message: 'Trop de codes demandés pour ce numéro : 10 par heure au plus.',
  },
  OTP_FRAUD_SUSPECTED: {
    http: 429,
    grpc: grpc.status.RESOURCE_EXHAUSTED,
    message:
      'Envoi de codes suspendu vers ces numéros : beaucoup de codes demandés, peu vérifiés (fraude au SMS suspectée). Le titulaire du compte peut lever la suspension.',
  },
  INTERNAL_ERROR: { http: 500, grpc: grpc.status.INTERNAL, message: 'Erreur interne du serveur.' },
  DEVICE_OFFLINE: { http: 503, grpc: grpc.status.FAILED_PRECONDITION, message: "L'appareil est hors ligne." },
  SERVICE_UNAVAILABLE: { http: 503, grpc: grpc.status.UNAVAILABLE, message: 'Service momentanément indisponible, réessayez plus tard.' },
  INVALID_CHARACTER: {
    http: 400,
    grpc: grpc.status.INVALID_ARGUMENT,
    message:
      'Caractère non autorisé : le caractère nul (U+0000) et les moitiés isolées de paires de substitution UTF-16 (\\uD800 à \\uDFFF) sont refusés.',
  },
  MALFORMED_REQUEST: { http: 400, grpc: grpc.status.INVALID_ARGUMENT, message: 'Requête HTTP mal formée.' },
  REQUEST_TIMEOUT: { http: 408, grpc: grpc.status.DEADLINE_EXCEEDED, message: "La requête n'a pas été reçue à temps." },
  HEADERS_TOO_LARGE: { http: 431, grpc: grpc.status.INVALID_ARGUMENT, message: 'Les en-têtes de la requête sont trop volumineux.' },
} as const satisfies Record<string, { http: number; grpc: grpc.status; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/**
 * Codes only the dashboard's own calls meet (its CSV campaigns, on the message service; the caps
 * of an account's phones and webhook endpoints; its members' roles): the public API never answers them, so its
 * OpenAPI document does not list them.
 */
export const DASHBOARD_ONLY_CODES: readonly ErrorCode[] = [
  'CAMPAIGN_NOT_FOUND',
  'CAMPAIGN_NOT_RUNNING',
  'CAMPAIGN_UPLOAD_NOT_FOUND',
  'CAMPAIGN_UPLOADS_FULL',
  'LIMIT_REACHED',
  'LAST_OWNER',
  'ROLE_NOT_ALLOWED',
];

export interface ErrorDetail {
  field?: string;
  code?: string;
  message?: string;
  [key: string]: unknown;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOG, value);
}

/** A failure the platform knows how to explain to its caller. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, options: { message?: string; details?: ErrorDetail[]; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(options.message ?? ERROR_CATALOG[code].message, { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get httpStatus(): number {
    return ERROR_CATALOG[this.code].http;
  }
}

const CODE_KEY = 'smsgw-error-code';
// Binary (-bin) so that details may hold any text: plain metadata must be ASCII.
const DETAILS_KEY = 'smsgw-error-details-bin';
const RETRY_KEY = 'smsgw-retry-after';

/** Turns anything thrown by a handler into a gRPC status error. */
export function toServiceError(err: unknown): Partial<grpc.StatusObject> {
  const appError = err instanceof AppError ? err : new AppError('INTERNAL_ERROR', { cause: err });
  const metadata = new grpc.Metadata();
  metadata.set(CODE_KEY, appError.code);
  if (appError.details) metadata.set(DETAILS_KEY, Buffer.from(JSON.stringify(appError.details), 'utf8'));
  if (appError.retryAfterSeconds !== undefined) metadata.set(RETRY_KEY, String(appError.retryAfterSeconds));
  return { code: ERROR_CATALOG[appError.code].grpc, details: appError.message, metadata };
}

/** Turns a gRPC client error back into the AppError the server raised. */
export function fromServiceError(err: grpc.ServiceError): AppError {
  const code = err.metadata?.get(CODE_KEY)[0];
  if (isErrorCode(code)) {
    const details = err.metadata.get(DETAILS_KEY)[0];
    const retry = err.metadata.get(RETRY_KEY)[0];
    return new AppError(code, {
      message: err.details,
      details: Buffer.isBuffer(details) ? (JSON.parse(details.toString('utf8')) as ErrorDetail[]) : undefined,
      retryAfterSeconds: typeof retry === 'string' ? Number(retry) : undefined,
      cause: err,
    });
  }
  if (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED) {
    return new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 5, cause: err });
  }
  return new AppError('INTERNAL_ERROR', { cause: err });
}
