import { AppError } from '@smsgw/platform';

/** The opt-out keywords of a client that set none. */
export const DEFAULT_OPT_OUT_KEYWORDS: readonly string[] = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'ARRET'];
/** The start keywords of a client that set none. */
export const DEFAULT_START_KEYWORDS: readonly string[] = ['START'];
export const MAX_KEYWORDS = 20;
export const MAX_KEYWORD_LENGTH = 32;

/** Where an entry of the list came from. */
export type OptOutSource = 'keyword' | 'api' | 'dashboard';
/** The sources a caller may add a number with (a keyword is the received consumer's). */
export const ADDABLE_SOURCES: readonly OptOutSource[] = ['api', 'dashboard'];

export interface OptOutSettings {
  optOutKeywords: string[];
  startKeywords: string[];
  /** An OTP's SMS goes to an opted-out number anyway (default true: the user asked for the code). */
  otpIgnoresOptOut: boolean;
}

export const DEFAULT_SETTINGS: OptOutSettings = {
  optOutKeywords: [...DEFAULT_OPT_OUT_KEYWORDS],
  startKeywords: [...DEFAULT_START_KEYWORDS],
  otpIgnoresOptOut: true,
};

/** Upper case, accents removed (NFD, combining marks dropped), whitespace runs made one space, trimmed. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase().replace(/\s+/gu, ' ').trim();
}

/**
 * The text of a received SMS as keywords are matched against it: trimmed,
 * upper case, accents removed, without one final `.` or `!` (and the space
 * before it), whitespace runs as one space. `" arrêt! "` gives `ARRET`.
 */
export function normaliseText(text: string): string {
  return fold(fold(text).replace(/[.!]$/u, ''));
}

/** A keyword as it is stored and matched: upper case, accents removed, single spaces. */
export function normaliseKeyword(keyword: string): string {
  return fold(keyword);
}

export type KeywordMatch = { action: 'add' | 'remove'; keyword: string };

/** What a received SMS does to its sender's entry: its whole text is an opt-out keyword (add) or a start keyword (remove). */
export function matchKeyword(text: string, settings: Pick<OptOutSettings, 'optOutKeywords' | 'startKeywords'>): KeywordMatch | undefined {
  const normalised = normaliseText(text);
  if (!normalised) return undefined;
  if (settings.optOutKeywords.includes(normalised)) return { action: 'add', keyword: normalised };
  if (settings.startKeywords.includes(normalised)) return { action: 'remove', keyword: normalised };
  return undefined;
}

const KEYWORD = /^[\p{L}\p{N} ]+$/u;

/**
 * Checks a client's settings and returns them normalised (duplicates of a
 * list dropped, first one kept). VALIDATION_ERROR with one detail per bad
 * field: `opt_out_keywords[i]` / `start_keywords[i]` for an empty, overlong
 * (over 32 characters) or not letters/digits/spaces keyword, the list for
 * more than 20, `start_keywords[i]` for a keyword in both lists.
 */
export function validateSettings(input: OptOutSettings): OptOutSettings {
  const details: { field: string; code: string; message?: string }[] = [];
  const check = (list: string[], field: string): string[] => {
    if (list.length > MAX_KEYWORDS) details.push({ field, code: 'VALIDATION_ERROR', message: `At most ${MAX_KEYWORDS} keywords.` });
    const out: string[] = [];
    list.forEach((raw, i) => {
      const keyword = normaliseKeyword(raw);
      if (!keyword || keyword.length > MAX_KEYWORD_LENGTH || !KEYWORD.test(keyword)) {
        details.push({
          field: `${field}[${i}]`,
          code: 'VALIDATION_ERROR',
          message: `1 to ${MAX_KEYWORD_LENGTH} letters, digits or spaces.`,
        });
      } else if (!out.includes(keyword)) out.push(keyword);
    });
    return out;
  };
  const optOutKeywords = check(input.optOutKeywords, 'opt_out_keywords');
  const startKeywords = check(input.startKeywords, 'start_keywords');
  input.startKeywords.forEach((raw, i) => {
    if (optOutKeywords.includes(normaliseKeyword(raw)))
      details.push({ field: `start_keywords[${i}]`, code: 'VALIDATION_ERROR', message: 'Also an opt-out keyword.' });
  });
  if (details.length > 0) throw new AppError('VALIDATION_ERROR', { details });
  return { optOutKeywords, startKeywords, otpIgnoresOptOut: input.otpIgnoresOptOut };
}
