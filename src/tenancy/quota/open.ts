// Chooses the node's quota keeper from its control plane and job backend.
import type { SqlControlPlaneStore } from '../sql-store.js';
import type { JobLogger } from '../../jobs/support.js';
import type { QuotaKeeper } from './keeper.js';
import { LedgerQuotaKeeper } from './ledger-keeper.js';
import { MemoryTallies } from './memory-tallies.js';
import { RedisTallies } from './redis-tallies.js';
import { SqlQuotaKeeper } from './sql-keeper.js';

export interface OpenQuotaKeeperOptions {
  controlPlane: SqlControlPlaneStore;
  redisUrl?: string | null;
  /** The node's Redis key namespace (default 'docparse', as the job backend's). */
  prefix?: string;
  log?: JobLogger;
}

/**
 * Embedded control plane (PGlite): tallies in this process — the data-dir lock makes this node
 * the ledger's only writer. PostgreSQL with Redis: tallies in Redis, shared by the cluster.
 * PostgreSQL alone: the control plane's SQL transactions (nodes share nothing faster).
 */
export function openQuotaKeeper(o: OpenQuotaKeeperOptions): QuotaKeeper {
  const db = o.controlPlane.db;
  if (db.kind === 'pglite') return new LedgerQuotaKeeper({ db, tallies: new MemoryTallies(), log: o.log });
  if (o.redisUrl) return new LedgerQuotaKeeper({ db, tallies: new RedisTallies({ url: o.redisUrl, prefix: o.prefix ?? 'docparse', log: o.log }), log: o.log });
  return new SqlQuotaKeeper(o.controlPlane);
}
