import { AppError, inTransaction, type Pool } from '@smsgw/platform';
import type { Role } from '../domain/roles';
import { EmailTakenError, type UserRow } from './account.repository';
import { insertAuditEvent, type NewAuditEvent } from './audit.repository';

export interface InvitationRow {
  email: string;
  role: Role;
  client_id: string;
  client_name: string;
  expires_at: Date;
}

/** Who acts and from where, as the audit log records it. */
export type Actor = Pick<NewAuditEvent, 'actorUserId' | 'actor' | 'address'>;

const PENDING = 'accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()';

/**
 * An account's members and invitations (migration 010). Every change is recorded in the audit log
 * in its own transaction; changes of roles and removals take the client's row lock first, so that
 * two of them at once cannot leave the account without an owner.
 */
export class MembersRepository {
  constructor(private readonly pool: Pool) {}

  async invite(invitation: { hash: Buffer; clientId: string; email: string; role: Role; expiresAt: Date }, by: Actor): Promise<void> {
    await inTransaction(this.pool, async (db) => {
      // A new invitation of the same address replaces the one pending.
      await db.query(`UPDATE invitations SET revoked_at = now() WHERE client_id = $1 AND lower(email) = lower($2) AND ${PENDING}`, [
        invitation.clientId,
        invitation.email,
      ]);
      await db.query(
        `INSERT INTO invitations (token_hash, client_id, email, role, invited_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [invitation.hash, invitation.clientId, invitation.email, invitation.role, by.actorUserId ?? null, invitation.expiresAt],
      );
      await insertAuditEvent(db, {
        clientId: invitation.clientId,
        ...by,
        action: 'member.invited',
        target: invitation.email,
        details: { role: invitation.role },
      });
    });
  }

  /** The invitation of a token, while it works. */
  async findInvitation(hash: Buffer): Promise<InvitationRow | undefined> {
    const { rows } = await this.pool.query<InvitationRow>(
      `SELECT i.email, i.role, i.client_id, c.name AS client_name, i.expires_at
       FROM invitations i JOIN clients c ON c.client_id = i.client_id WHERE i.token_hash = $1 AND ${PENDING}`,
      [hash],
    );
    return rows[0];
  }

  async pendingInvitations(clientId: string): Promise<InvitationRow[]> {
    const { rows } = await this.pool.query<InvitationRow>(
      `SELECT i.email, i.role, i.client_id, c.name AS client_name, i.expires_at
       FROM invitations i JOIN clients c ON c.client_id = i.client_id WHERE i.client_id = $1 AND ${PENDING}
       ORDER BY i.created_at`,
      [clientId],
    );
    return rows;
  }

  /**
   * Uses up an invitation and makes its member, in one transaction; undefined (nothing changed)
   * when the invitation does not work or its address is a member already.
   */
  async accept(hash: Buffer, user: { userId: string; passwordHash: string }, address: string): Promise<UserRow | undefined> {
    return this.acceptOnce(hash, user, address).catch((err: unknown) => {
      if (err instanceof EmailTakenError) return undefined;
      throw err;
    });
  }

  private async acceptOnce(hash: Buffer, user: { userId: string; passwordHash: string }, address: string): Promise<UserRow | undefined> {
    return inTransaction(this.pool, async (db) => {
      const { rows } = await db.query<{ client_id: string; email: string; role: Role }>(
        `UPDATE invitations SET accepted_at = now() WHERE token_hash = $1 AND ${PENDING} RETURNING client_id, email, role`,
        [hash],
      );
      const invitation = rows[0];
      if (!invitation) return undefined;
      const inserted = await db.query<UserRow>(
        `INSERT INTO users (user_id, email, password_hash, client_id, role) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING RETURNING *`,
        [user.userId, invitation.email, user.passwordHash, invitation.client_id, invitation.role],
      );
      const member = inserted.rows[0];
      // The address became a member meanwhile: the invitation stays unused.
      if (!member) throw new EmailTakenError();
      await insertAuditEvent(db, {
        clientId: member.client_id,
        actorUserId: member.user_id,
        actor: member.email,
        address,
        action: 'member.joined',
        target: member.email,
        details: { role: member.role },
      });
      return member;
    });
  }

  async listMembers(clientId: string): Promise<UserRow[]> {
    const { rows } = await this.pool.query<UserRow>(
      'SELECT * FROM users WHERE client_id = $1 AND removed_at IS NULL ORDER BY created_at, user_id',
      [clientId],
    );
    return rows;
  }

  /** A member's new role (LAST_OWNER: the account would have no owner left; NOT_FOUND: not a member of it). */
  async changeRole(clientId: string, memberId: string, role: Role, by: Actor): Promise<UserRow> {
    return this.changeMember(clientId, memberId, role, by);
  }

  /** Removes a member (LAST_OWNER: the account's last owner; NOT_FOUND: not a member of it). */
  async remove(clientId: string, memberId: string, by: Actor): Promise<UserRow> {
    return this.changeMember(clientId, memberId, undefined, by);
  }

  private async changeMember(clientId: string, memberId: string, role: Role | undefined, by: Actor): Promise<UserRow> {
    return inTransaction(this.pool, async (db) => {
      await db.query('SELECT 1 FROM clients WHERE client_id = $1 FOR UPDATE', [clientId]);
      const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE user_id = $1 AND client_id = $2 AND removed_at IS NULL', [
        memberId,
        clientId,
      ]);
      const member = rows[0];
      if (!member) throw new AppError('NOT_FOUND');
      if (member.role === 'owner' && role !== 'owner') {
        const owners = await db.query(`SELECT 1 FROM users WHERE client_id = $1 AND role = 'owner' AND removed_at IS NULL`, [clientId]);
        if ((owners.rowCount ?? 0) <= 1) throw new AppError('LAST_OWNER');
      }
      const changed = role
        ? await db.query<UserRow>('UPDATE users SET role = $2 WHERE user_id = $1 RETURNING *', [memberId, role])
        : await db.query<UserRow>('UPDATE users SET removed_at = now() WHERE user_id = $1 RETURNING *', [memberId]);
      if (!role) await db.query('UPDATE email_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL', [memberId]);
      await insertAuditEvent(db, {
        clientId,
        ...by,
        action: role ? 'member.role_changed' : 'member.removed',
        target: member.email,
        details: role ? { from: member.role, to: role } : { role: member.role },
      });
      return changed.rows[0]!;
    });
  }

  /** Withdraws the invitation pending for `email`; undefined when there is none. */
  async withdraw(clientId: string, email: string, by: Actor): Promise<InvitationRow | undefined> {
    return inTransaction(this.pool, async (db) => {
      const { rows } = await db.query<InvitationRow>(
        `UPDATE invitations i SET revoked_at = now() FROM clients c
         WHERE c.client_id = i.client_id AND i.client_id = $1 AND lower(i.email) = lower($2) AND i.accepted_at IS NULL
           AND i.revoked_at IS NULL AND i.expires_at > now()
         RETURNING i.email, i.role, i.client_id, c.name AS client_name, i.expires_at`,
        [clientId, email],
      );
      if (rows.length === 0) return undefined;
      await insertAuditEvent(db, { clientId, ...by, action: 'member.invitation_withdrawn', target: rows[0]!.email, details: {} });
      return rows[0];
    });
  }
}
