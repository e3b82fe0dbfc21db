// Short-lived single-use sign-in secrets (migration 5): OIDC sign-in requests between the
// redirect to the provider and its callback, and one-time local operator links. Each is
// looked up by the SHA-256 of its secret and deleted by the same statement that reads it,
// so two concurrent uses cannot both succeed.
import type { SqlClient } from '../db/sql.js';

type Ts = Date | string;
const ms = (v: Ts) => (v instanceof Date ? v : new Date(v)).getTime();
const iso = (t: number) => new Date(t).toISOString();

export interface SignInRequest {
  stateSha256: string;
  browserSha256: string;
  nonce: string;
  codeVerifier: string;
  nextPath: string;
  expiresAt: number;
}

export interface SignInLink {
  tokenSha256: string;
  operatorId: string;
  expiresAt: number;
}

interface RequestRow {
  state_sha256: string;
  browser_sha256: string;
  nonce: string;
  code_verifier: string;
  next_path: string;
  expires_at: Ts;
}
interface LinkRow {
  token_sha256: string;
  operator_id: string;
  expires_at: Ts;
}

export class SignInStore {
  constructor(private readonly db: SqlClient) {}

  async saveRequest(r: SignInRequest): Promise<void> {
    await this.db.query(
      'INSERT INTO dashboard_sign_in_requests (state_sha256, browser_sha256, nonce, code_verifier, next_path, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [r.stateSha256, r.browserSha256, r.nonce, r.codeVerifier, r.nextPath, iso(r.expiresAt)],
    );
  }

  /** The request with this state, removed (it can be used once); null when there is none. */
  async takeRequest(stateSha256: string): Promise<SignInRequest | null> {
    const { rows } = await this.db.query<RequestRow>('DELETE FROM dashboard_sign_in_requests WHERE state_sha256 = $1 RETURNING *', [stateSha256]);
    const r = rows[0];
    return r
      ? {
          stateSha256: r.state_sha256,
          browserSha256: r.browser_sha256,
          nonce: r.nonce,
          codeVerifier: r.code_verifier,
          nextPath: r.next_path,
          expiresAt: ms(r.expires_at),
        }
      : null;
  }

  async saveLink(l: SignInLink): Promise<void> {
    await this.db.query('INSERT INTO dashboard_sign_in_links (token_sha256, operator_id, expires_at) VALUES ($1, $2, $3)', [
      l.tokenSha256,
      l.operatorId,
      iso(l.expiresAt),
    ]);
  }

  /** The link, without using it up (the page that asks "sign in?"). */
  async findLink(tokenSha256: string): Promise<SignInLink | null> {
    const { rows } = await this.db.query<LinkRow>('SELECT * FROM dashboard_sign_in_links WHERE token_sha256 = $1', [tokenSha256]);
    return rows[0] ? { tokenSha256: rows[0].token_sha256, operatorId: rows[0].operator_id, expiresAt: ms(rows[0].expires_at) } : null;
  }

  /** The link, removed (it dies on use); null when there is none. */
  async takeLink(tokenSha256: string): Promise<SignInLink | null> {
    const { rows } = await this.db.query<LinkRow>('DELETE FROM dashboard_sign_in_links WHERE token_sha256 = $1 RETURNING *', [tokenSha256]);
    return rows[0] ? { tokenSha256: rows[0].token_sha256, operatorId: rows[0].operator_id, expiresAt: ms(rows[0].expires_at) } : null;
  }

  /** Drops requests and links past their expiry. */
  async deleteExpired(now: number): Promise<void> {
    await this.db.query('DELETE FROM dashboard_sign_in_requests WHERE expires_at < $1', [iso(now)]);
    await this.db.query('DELETE FROM dashboard_sign_in_links WHERE expires_at < $1', [iso(now)]);
  }
}
