// Dashboard users and their sessions (migration 5). Plain storage: when a session has expired
// is decided by its reader (src/dashboard/auth/sessions.ts) from created_at and last_seen_at,
// so a change of the configured lifetimes applies to sessions already open.
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../db/sql.js';

type Ts = Date | string;
const ms = (v: Ts) => (v instanceof Date ? v : new Date(v)).getTime();
const iso = (t: number) => new Date(t).toISOString();

export interface DashboardUser {
  id: string;
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
}

/** Who a session belongs to: a user of the identity provider, or the local operator. */
export type SessionOwner = { userId: string } | { operatorId: string };

export interface StoredSession {
  idSha256: string;
  /** The user (null for a local operator session). */
  user: DashboardUser | null;
  /** 'local-operator' or 'operator-key:<id>' (null for a user's session). */
  operatorId: string | null;
  /** For an operator-key session: the key's name, and whether it is still live. */
  operatorKey: { name: string; live: boolean } | null;
  createdAt: number;
  lastSeenAt: number;
}

interface UserRow {
  id: string;
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
}
interface SessionRow {
  id_sha256: string;
  user_id: string | null;
  operator_id: string | null;
  created_at: Ts;
  last_seen_at: Ts;
  issuer: string | null;
  subject: string | null;
  email: string | null;
  name: string | null;
  key_name: string | null;
  key_live: boolean | null;
}

const toUser = (r: UserRow): DashboardUser => ({ id: r.id, issuer: r.issuer, subject: r.subject, email: r.email, name: r.name });

const OPERATOR_KEY_OWNER = 'operator-key:';

export class DashboardSessionsStore {
  constructor(private readonly db: SqlClient) {}

  /** The user (issuer, subject) as the provider describes them now: created on first sign-in, e-mail and name kept current. */
  async upsertUser(u: { issuer: string; subject: string; email: string; name: string | null }, at: number): Promise<DashboardUser> {
    const { rows } = await this.db.query<UserRow>(
      `INSERT INTO dashboard_users (id, issuer, subject, email, name, created_at, last_sign_in_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (issuer, subject) DO UPDATE SET email = EXCLUDED.email, name = EXCLUDED.name, last_sign_in_at = EXCLUDED.last_sign_in_at
       RETURNING id, issuer, subject, email, name`,
      [randomUUID(), u.issuer, u.subject, u.email, u.name, iso(at)],
    );
    return toUser(rows[0]);
  }

  async createSession(idSha256: string, owner: SessionOwner, at: number): Promise<void> {
    await this.db.query('INSERT INTO dashboard_sessions (id_sha256, user_id, operator_id, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)', [
      idSha256,
      'userId' in owner ? owner.userId : null,
      'operatorId' in owner ? owner.operatorId : null,
      iso(at),
    ]);
  }

  async findSession(idSha256: string): Promise<StoredSession | null> {
    const { rows } = await this.db.query<SessionRow>(
      `SELECT s.id_sha256, s.user_id, s.operator_id, s.created_at, s.last_seen_at,
              u.issuer, u.subject, u.email, u.name,
              k.name AS key_name, (k.revoked_at IS NULL) AS key_live
         FROM dashboard_sessions s
         LEFT JOIN dashboard_users u ON u.id = s.user_id
         LEFT JOIN operator_keys k ON s.operator_id = '${OPERATOR_KEY_OWNER}' || k.id
        WHERE s.id_sha256 = $1`,
      [idSha256],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      idSha256: r.id_sha256,
      user: r.user_id ? toUser({ id: r.user_id, issuer: r.issuer!, subject: r.subject!, email: r.email!, name: r.name }) : null,
      operatorId: r.operator_id,
      // A session of a deleted key is as dead as one of a revoked key.
      operatorKey: r.operator_id?.startsWith(OPERATOR_KEY_OWNER) ? { name: r.key_name ?? '', live: r.key_live === true } : null,
      createdAt: ms(r.created_at),
      lastSeenAt: ms(r.last_seen_at),
    };
  }

  /** Records activity (renews the idle expiry). */
  async touchSession(idSha256: string, at: number): Promise<void> {
    await this.db.query('UPDATE dashboard_sessions SET last_seen_at = $2 WHERE id_sha256 = $1 AND last_seen_at < $2', [idSha256, iso(at)]);
  }

  /** Ends one session; false when there was none. */
  async deleteSession(idSha256: string): Promise<boolean> {
    const { rows } = await this.db.query<{ id_sha256: string }>('DELETE FROM dashboard_sessions WHERE id_sha256 = $1 RETURNING id_sha256', [idSha256]);
    return rows.length > 0;
  }

  /** Ends every session of a user (or of a local operator identity); returns how many. */
  async deleteSessionsOf(owner: SessionOwner): Promise<number> {
    const { rows } =
      'userId' in owner
        ? await this.db.query<{ id_sha256: string }>('DELETE FROM dashboard_sessions WHERE user_id = $1 RETURNING id_sha256', [owner.userId])
        : await this.db.query<{ id_sha256: string }>('DELETE FROM dashboard_sessions WHERE operator_id = $1 RETURNING id_sha256', [owner.operatorId]);
    return rows.length;
  }

  /** Deletes sessions idle since before `idleBefore` or opened before `openedBefore`. */
  async deleteExpired(idleBefore: number, openedBefore: number): Promise<number> {
    const { rows } = await this.db.query<{ id_sha256: string }>(
      'DELETE FROM dashboard_sessions WHERE last_seen_at < $1 OR created_at < $2 RETURNING id_sha256',
      [iso(idleBefore), iso(openedBefore)],
    );
    return rows.length;
  }
}
