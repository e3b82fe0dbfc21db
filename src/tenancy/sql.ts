// A deliberately tiny SQL client: the control plane runs the same SQL text ($1 parameters)
// on PGlite (PostgreSQL in WASM, embedded default) and on PostgreSQL through `pg`.
import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction as PGliteTransaction } from '@electric-sql/pglite';
import pg from 'pg';

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
  return typeof err === 'object' && err !== null && typeof (err as SqlError).code === 'string'
    ? (err as SqlError).code
    : undefined;
}

// ---------------------------------------------------------------- PGlite

type PGliteLike = Pick<PGlite, 'query' | 'exec'> | PGliteTransaction;

class PGliteTxClient implements SqlClient {
  readonly kind = 'pglite' as const;
  constructor(private readonly tx: PGliteLike) {}
  async query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }> {
    const r = await this.tx.query<T>(sql, params as unknown[] | undefined);
    return { rows: r.rows };
  }
  async exec(sql: string): Promise<void> {
    await this.tx.exec(sql);
  }
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return fn(this);
  }
  async close(): Promise<void> {
    throw new Error('close() is not allowed inside a transaction');
  }
}

export class PGliteSqlClient implements SqlClient {
  readonly kind = 'pglite' as const;
  private constructor(readonly db: PGlite) {}

  /** dataDir: a directory persisted on disk; undefined keeps the database in memory. */
  static async open(dataDir?: string): Promise<PGliteSqlClient> {
    if (dataDir !== undefined) await mkdir(dataDir, { recursive: true });
    const db = dataDir === undefined ? await PGlite.create() : await PGlite.create(dataDir);
    return new PGliteSqlClient(db);
  }

  /** Starts an in-memory database from a `dumpDataDir()` snapshot (much faster than a cold start). */
  static async fromSnapshot(snapshot: Blob): Promise<PGliteSqlClient> {
    return new PGliteSqlClient(await PGlite.create({ loadDataDir: snapshot }));
  }

  async query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }> {
    const r = await this.db.query<T>(sql, params as unknown[] | undefined);
    return { rows: r.rows };
  }
  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => fn(new PGliteTxClient(tx)));
  }
  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}

// ---------------------------------------------------------------- PostgreSQL

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

  static open(url: string, opts: { max?: number } = {}): PostgresSqlClient {
    const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    return new PostgresSqlClient(pool);
  }

  async query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }> {
    const r = await this.pool.query(sql, params);
    return { rows: r.rows as T[] };
  }
  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }
  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
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
