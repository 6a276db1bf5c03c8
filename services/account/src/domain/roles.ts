import { AppError } from '@smsgw/platform';

/** The roles of an account's members, from the most to the least trusted (migration 010). */
export const ROLES = ['owner', 'admin', 'developer', 'support'] as const;
export type Role = (typeof ROLES)[number];

/** A role named in a request; INVALID_ARGUMENT VALIDATION_ERROR naming `role` otherwise. */
export function checkRole(value: string): Role {
  if ((ROLES as readonly string[]).includes(value)) return value as Role;
  throw new AppError('VALIDATION_ERROR', {
    details: [{ field: 'role', code: 'VALIDATION_ERROR', message: `Rôle inconnu : ${ROLES.join(', ')}.` }],
  });
}
