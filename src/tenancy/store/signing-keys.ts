// Token signing keys in SQL (the private key arrives sealed with the master key).
import type { SqlClient } from '../../db/sql.js';
import { NotFoundError, type SigningKey } from '../types.js';
import { iso, isoOrNull, rethrow, type Ts } from './checks.js';

interface SigningKeyRow {
  kid: string;
  alg: 'ES256';
  public_jwk: Record<string, unknown> | string;
  private_key_sealed: string;
  created_at: Ts;
  retired_at: Ts | null;
}

const toSigningKey = (r: SigningKeyRow): SigningKey => ({
  kid: r.kid,
  alg: r.alg,
  publicJwk: typeof r.public_jwk === 'string' ? (JSON.parse(r.public_jwk) as Record<string, unknown>) : r.public_jwk,
  privateKeySealed: r.private_key_sealed,
  createdAt: iso(r.created_at),
  retiredAt: isoOrNull(r.retired_at),
});

export async function insertSigningKey(db: SqlClient, k: SigningKey): Promise<void> {
  try {
    await db.query(
      `INSERT INTO signing_keys (kid, alg, public_jwk, private_key_sealed, created_at, retired_at)
       VALUES ($1, $2, $3::jsonb, $4, $5::timestamptz, $6::timestamptz)`,
      [k.kid, k.alg, JSON.stringify(k.publicJwk), k.privateKeySealed, k.createdAt, k.retiredAt],
    );
  } catch (err) {
    rethrow(err, {}, { signing_keys_pkey: `signing key ${k.kid} already exists` });
  }
}

/** Oldest first. */
export async function listSigningKeys(db: SqlClient): Promise<SigningKey[]> {
  const { rows } = await db.query<SigningKeyRow>('SELECT * FROM signing_keys ORDER BY created_at, kid');
  return rows.map(toSigningKey);
}

/** Retiring an already retired key keeps its first retirement time. */
export async function retireSigningKey(db: SqlClient, kid: string, at: string): Promise<void> {
  const { rows } = await db.query<{ kid: string }>('UPDATE signing_keys SET retired_at = COALESCE(retired_at, $2::timestamptz) WHERE kid = $1 RETURNING kid', [
    kid,
    at,
  ]);
  if (!rows[0]) throw new NotFoundError('signing key', kid);
}
