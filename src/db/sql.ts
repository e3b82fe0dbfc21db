// A deliberately tiny SQL client: the control plane runs the same SQL text ($1 parameters)
// on PGlite (PostgreSQL in WASM, embedded default) and on PostgreSQL through `pg`.
// PostgreSQL can go away (PGlite is in-process and cannot): its client fails fast then, with
// DependencyUnavailableError, and the pool makes new connections once the server is back.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import type pg from 'pg';
import { DependencyUnavailableError, isSocketError } from '../errors/dependency-unavailable.js';
import type { DurableNodeFS } from './pglite-durable-fs.js';
import { PGliteSession } from './pglite-session.js';

export interface SqlClient {
  /** One statement with $1… parameters. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** A script of several statements, no parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. Nested calls join the outer transaction. */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** 'pglite' or 'postgres'. */
  readonly kind: 'pglite' | 'postgres';
}

/** PostgreSQL error fields both engines expose on their error objects. */
export interface SqlError extends Error {
  code?: string;
  constraint?: string;
}

export function sqlErrorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && typeof (err as SqlError).code === 'string' ? (err as SqlError).code : undefined;
}

// ---------------------------------------------------------------- PGlite

/** The statements of one transaction: they run inside the session's lock, taken by `transaction`. */
class PGliteTxClient implements SqlClient {
  readonly kind = 'pglite' as const;
  /** Set when the transaction has ended: the lock is no longer held for this client. */
  ended = false;
  constructor(private readonly session: PGliteSession) {}
  async query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }> {
    this.checkOpen();
    return { rows: await this.session.run<T>(sql, params, true) };
  }
  async exec(sql: string): Promise<void> {
    this.checkOpen();
    await this.session.script(sql);
  }
  private checkOpen(): void {
    if (this.ended) throw new Error('Transaction is closed');
  }
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return fn(this);
  }
  async close(): Promise<void> {
    throw new Error('close() is not allowed inside a transaction');
  }
}

/**
 * PGlite's memory, bounded (docs/performance.md, "Memory"). PostgreSQL's defaults are sized for
 * a server (128 MB of shared buffers, 64 MB per maintenance operation); the control plane is a
 * few thousand small rows, so: 8 MB of shared buffers, 1 MB per sort or hash, 1 MB of temp
 * buffers, 256 kB of WAL buffers, 4 MB per maintenance operation. With these an open embedded
 * control plane holds ≈ 120 MB resident (the WASM engine's code and heap included), not ≈ 600.
 *
 * max_connections: PGlite runs one backend, but PostgreSQL sizes its per-backend shared memory
 * (process slots, lock table, stats) for max_connections at start and touches all of it: 100,
 * the default, is 16 MB of shared memory where 5 (the one backend, PostgreSQL's 3 reserved
 * superuser slots and a spare) is 12 MB — ≈ 4 MB less of PGlite's WASM memory touched.
 */
export const PGLITE_MEMORY_SETTINGS: readonly string[] = [
  'shared_buffers=8MB',
  'work_mem=1MB',
  'temp_buffers=1MB',
  'wal_buffers=256kB',
  'maintenance_work_mem=4MB',
  'max_connections=5',
];

/**
 * V8 tiers a WASM function up to optimised code once it has run about this many bytes of code
 * (V8's default: 1.8 M). PGlite's 9 MB module runs much of its code once at start (recovery,
 * catalog loading, migrations); at the default, that code is compiled a second time, optimised,
 * for ≈ 35 MB that is never used again. At 100 M only functions that stay hot are.
 */
const WASM_TIERING_BUDGET = 100_000_000;

const loadPGlite = async (): Promise<typeof import('@electric-sql/pglite')> => {
  // Once per process, before PGlite's module is compiled (it applies to WASM compiled later).
  setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  return import('@electric-sql/pglite');
};

const pgliteOptions = (PGliteClass: typeof PGlite, extra: readonly string[] = []): PGliteOptions => ({
  startParams: [...PGliteClass.defaultStartParams, ...[...PGLITE_MEMORY_SETTINGS, ...extra].flatMap((s) => ['-c', s])],
});

const execFileAsync = promisify(execFile);
const requireHere = createRequire(import.meta.url);

/**
 * Creates a new PGlite database in `dataDir` in a child process: initdb's work (bootstrapping
 * the catalogs) leaves PGlite's WASM heap, which never shrinks, ≈ 600 MB larger; done in a child,
 * that memory goes back to the system when the child exits.
 */
async function initdbInChild(dataDir: string): Promise<void> {
  const pglite = requireHere.resolve('@electric-sql/pglite');
  const script = `
    const { PGlite } = await import(${JSON.stringify(pathToFileURL(pglite).href)});
    const [dir, params] = [process.argv[1], JSON.parse(process.argv[2])];
    const db = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, ...params] });
    await db.close();`;
  const params = JSON.stringify(PGLITE_MEMORY_SETTINGS.flatMap((s) => ['-c', s]));
  await execFileAsync(process.execPath, ['--input-type=module', '-e', script, dataDir, params], { timeout: 120_000 });
}

export class PGliteSqlClient implements SqlClient {
  readonly kind = 'pglite' as const;
  private readonly session: PGliteSession;
  private constructor(
    readonly db: PGlite,
    pglite: typeof import('@electric-sql/pglite'),
    fs?: DurableNodeFS,
  ) {
    this.session = new PGliteSession(db, pglite, fs);
  }

  /** dataDir: a directory persisted on disk; undefined keeps the database in memory. */
  static async open(dataDir?: string): Promise<PGliteSqlClient> {
    const pglite = await loadPGlite();
    if (dataDir === undefined) return new PGliteSqlClient(await pglite.PGlite.create(pgliteOptions(pglite.PGlite)), pglite);
    await mkdir(dataDir, { recursive: true, mode: 0o700 }); // PGlite's own files: only the service's user reads them
    // Durable after a power loss (pglite-durable-fs.ts): a new database is synced once, then
    // PostgreSQL's own syncs are made real.
    const { DurableNodeFS, DURABLE_SETTINGS, syncTree } = await import('./pglite-durable-fs.js');
    if (!existsSync(`${dataDir}/PG_VERSION`)) {
      await initdbInChild(dataDir);
      await syncTree(dataDir);
    }
    const fs = new DurableNodeFS(dataDir);
    return new PGliteSqlClient(await pglite.PGlite.create({ ...pgliteOptions(pglite.PGlite, DURABLE_SETTINGS), fs }), pglite, fs);
  }

  /** Starts an in-memory database from a `dumpDataDir()` snapshot (much faster than a cold start). */
  static async fromSnapshot(snapshot: Blob): Promise<PGliteSqlClient> {
    const pglite = await loadPGlite();
    return new PGliteSqlClient(await pglite.PGlite.create({ ...pgliteOptions(pglite.PGlite), loadDataDir: snapshot }), pglite);
  }

  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }> {
    return this.session.exclusive(async () => {
      const rows = await this.session.run<T>(sql, params);
      await this.session.afterStatement();
      return { rows };
    });
  }
  exec(sql: string): Promise<void> {
    return this.session.exclusive(async () => {
      await this.session.script(sql);
      await this.session.afterStatement();
    });
  }
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.session.exclusive(async () => {
      const tx = new PGliteTxClient(this.session);
      try {
        return await this.session.transaction(() => fn(tx));
      } finally {
        tx.ended = true;
      }
    });
  }
  close(): Promise<void> {
    return this.session.close();
  }
}

// ---------------------------------------------------------------- PostgreSQL

/** Request-path timeouts of a pool (see PostgresSqlClient.open). */
export interface PgTimeouts {
  /** Longest wait for a connection, new or from the pool (ms). */
  connectMs: number;
  /** Server-side limit of one statement (ms). */
  statementMs: number;
  /** Client-side limit of one query, for a server that stopped answering (ms). */
  queryMs: number;
}

/**
 * A dead server refuses at once; these bound the cases that would otherwise hang: a server
 * that accepts nothing (connect), a runaway statement, a server or network that went silent.
 * Control-plane statements take milliseconds.
 */
export const REQUEST_TIMEOUTS: PgTimeouts = { connectMs: 1000, statementMs: 5000, queryMs: 6000 };

/** pg messages that mean the server could not be reached or the connection died. */
const PG_CONNECTION_MESSAGES = [
  'timeout exceeded when trying to connect', // pool: no connection within connectMs
  'Connection terminated', // "… unexpectedly", "… due to connection timeout"
  'Query read timeout', // queryMs
  'is not queryable', // a client whose connection already failed
];
/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), shutting down
 * or starting up (57P01–57P03), too many connections (53300), statement timeout (57014).
 */
const PG_UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|57014)$/;

/** True when err says PostgreSQL was unreachable or could not serve, not that the SQL was wrong. */
export function isPgUnavailableError(err: unknown): boolean {
  if (err instanceof DependencyUnavailableError) return err.dependency === 'PostgreSQL';
  if (!(err instanceof Error)) return false;
  if (isSocketError(err)) return true;
  const code = sqlErrorCode(err);
  if (code && PG_UNAVAILABLE_STATES.test(code)) return true;
  return PG_CONNECTION_MESSAGES.some((m) => err.message.includes(m));
}

const PG_ROLE = 'control plane';

function asPgUnavailable(err: unknown): unknown {
  if (err instanceof DependencyUnavailableError) return err;
  return isPgUnavailableError(err) ? new DependencyUnavailableError('PostgreSQL', PG_ROLE, err) : err;
}

/** Runs op, turning "PostgreSQL unreachable" failures into DependencyUnavailableError. */
async function pgCall<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw asPgUnavailable(err);
  }
}

class PgTxClient implements SqlClient {
  readonly kind = 'postgres' as const;
  constructor(private readonly client: pg.PoolClient) {}
  async query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }> {
    const r = await this.client.query(sql, params);
    return { rows: r.rows as T[] };
  }
  async exec(sql: string): Promise<void> {
    await this.client.query(sql);
  }
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return fn(this);
  }
  async close(): Promise<void> {
    throw new Error('close() is not allowed inside a transaction');
  }
}

export class PostgresSqlClient implements SqlClient {
  readonly kind = 'postgres' as const;
  private closed = false;
  private constructor(readonly pool: pg.Pool) {}

  /**
   * timeouts: REQUEST_TIMEOUTS by default; null for none (migrations, which may build indexes
   * or wait for another node's migration lock).
   */
  static open(url: string, opts: { max?: number; timeouts?: PgTimeouts | null } = {}): PostgresSqlClient {
    const t = opts.timeouts === undefined ? REQUEST_TIMEOUTS : opts.timeouts;
    // Loaded here: an embedded node never needs `pg` (≈ 3 MB of heap).
    const { Pool } = requireHere('pg') as typeof pg;
    const pool = new Pool({
      connectionString: url,
      max: opts.max ?? 10,
      // Dead peers behind NAT or a load balancer are noticed instead of waited on forever.
      keepAlive: true,
      ...(t ? { connectionTimeoutMillis: t.connectMs, statement_timeout: t.statementMs, query_timeout: t.queryMs } : {}),
    });
    // An idle client losing its connection must not crash the process; the pool drops it and
    // the next query connects anew (so the node recovers by itself when the server returns).
    pool.on('error', () => {});
    return new PostgresSqlClient(pool);
  }

  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }> {
    return pgCall(async () => {
      const r = await this.pool.query(sql, params);
      return { rows: r.rows as T[] };
    });
  }
  exec(sql: string): Promise<void> {
    return pgCall(async () => {
      await this.pool.query(sql);
    });
  }
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return pgCall(() => this.inTransaction(fn));
  }
  private async inTransaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await fn(new PgTxClient(client));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw err;
    } finally {
      client.release(broken);
    }
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}
