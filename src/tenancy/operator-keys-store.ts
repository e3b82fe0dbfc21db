// Operator API keys (`Authorization: Bearer dp_op_…`): for the CLI and automation. A key is
// 256 random bits, shown once; only its SHA-256 is stored (a slow hash adds nothing against
// guessing 256 bits), looked up by that hash and compared again in constant time.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { SqlClient } from '../db/sql.js';
import type { OperatorKey } from './types.js';

export const OPERATOR_KEY_PREFIX = 'dp_op_';

type Ts = Date | string;
const iso = (v: Ts) => (v instanceof Date ? v : new Date(v)).toISOString();
const isoOrNull = (v: Ts | null) => (v === null ? null : iso(v));

interface Row {
  id: string;
  name: string;
  key_sha256: string;
  created_at: Ts;
  revoked_at: Ts | null;
  last_used_at: Ts | null;
}
const toKey = (r: Row): OperatorKey => ({
  id: r.id,
  name: r.name,
  createdAt: iso(r.created_at),
  revokedAt: isoOrNull(r.revoked_at),
  lastUsedAt: isoOrNull(r.last_used_at),
});

const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Whether a bearer value has the shape of an operator key (so other credentials are not looked up). */
export const looksLikeOperatorKey = (value: string) => value.startsWith(OPERATOR_KEY_PREFIX) && value.length < 200;

/** last_used_at is written at most this often per key, so every request does not write. */
const LAST_USED_RESOLUTION_MS = 60_000;

export class OperatorKeysStore {
  private readonly lastUsedWritten = new Map<string, number>();
  constructor(private readonly db: SqlClient) {}

  /** Creates a key; the returned `key` is the only copy there will ever be. */
  async create(name: string): Promise<{ key: string; record: OperatorKey }> {
    const label = name.trim() || 'operator key';
    const key = OPERATOR_KEY_PREFIX + randomBytes(32).toString('base64url');
    const { rows } = await this.db.query<Row>('INSERT INTO operator_keys (id, name, key_sha256) VALUES ($1, $2, $3) RETURNING *', [
      randomUUID(),
      label,
      sha256Hex(key),
    ]);
    return { key, record: toKey(rows[0]) };
  }

  async list(): Promise<OperatorKey[]> {
    const { rows } = await this.db.query<Row>('SELECT * FROM operator_keys ORDER BY created_at, id');
    return rows.map(toKey);
  }

  async get(id: string): Promise<OperatorKey | null> {
    const { rows } = await this.db.query<Row>('SELECT * FROM operator_keys WHERE id = $1', [id]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  /** Revokes a key (it is refused from the next request on); null when there is no such key. */
  async revoke(id: string): Promise<OperatorKey | null> {
    const { rows } = await this.db.query<Row>('UPDATE operator_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING *', [id]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  /** The live (unrevoked) key a presented value is, or null. */
  async verify(presented: string): Promise<OperatorKey | null> {
    if (!looksLikeOperatorKey(presented)) return null;
    const hash = sha256Hex(presented);
    const { rows } = await this.db.query<Row>('SELECT * FROM operator_keys WHERE key_sha256 = $1 AND revoked_at IS NULL', [hash]);
    const row = rows[0];
    if (!row || !timingSafeEqual(Buffer.from(row.key_sha256, 'hex'), Buffer.from(hash, 'hex'))) return null;
    const now = Date.now();
    if (now - (this.lastUsedWritten.get(row.id) ?? 0) > LAST_USED_RESOLUTION_MS) {
      this.lastUsedWritten.set(row.id, now);
      await this.db.query('UPDATE operator_keys SET last_used_at = now() WHERE id = $1', [row.id]);
    }
    return toKey(row);
  }
}
