// One statement, one trip into PGlite's WASM engine (issue 28, fifth round). PGlite's own
// `query()` sends the extended protocol's messages one call at a time — Parse, Describe,
// Bind, Describe, Execute, Sync: six passes through its JS glue (an async mutex, a protocol
// parser, buffer copies), ≈ 70 % of a `SELECT 1`'s CPU, the engine itself ≈ 30 %. Here a
// statement is prepared once under a name (its parameter types asked for then, so its values
// are serialised exactly as PGlite's `query()` would), and each run is one message:
// Bind + Describe + Execute + Sync. PostgreSQL then also skips parsing and planning it again.
// Results are decoded by PGlite's own `parseResults` with its parsers: rows as before.
import type { PGlite } from '@electric-sql/pglite';

type PGliteModule = typeof import('@electric-sql/pglite');

/** What makes a commit durable on disk before it is answered (DurableNodeFS). */
export interface WalSync {
  syncWal(): Promise<void>;
}
type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

/** Named statements kept prepared (LRU); the ledger's and the quota's are a handful. */
const MAX_PREPARED = 128;

/** Statements worth preparing: the control plane's DML. DDL and the rest run unnamed. */
const PREPARABLE = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

/** "cached plan must not change result type": a table under a prepared `SELECT *` changed. */
const FEATURE_NOT_SUPPORTED = '0A000';

interface Prepared {
  name: string;
  paramTypes: number[];
}

/** A PostgreSQL error with the statement that raised it (as PGlite's own errors carry). */
interface StatementError extends Error {
  code?: string;
  query?: string;
  params?: unknown[];
}

export class PGliteSession {
  private readonly prepared = new Map<string, Prepared>();
  private nextName = 0;
  /** FIFO lock: a transaction holds it from BEGIN to COMMIT; a lone statement for its one call. */
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** NODEFS and the in-memory FS write through; others (IndexedDB…) need PGlite's sync after a commit. */
  private readonly fsSyncs: boolean;
  /** Set when a commit could not be made durable: like PostgreSQL after a failed fsync, no statement runs after it. */
  private failed?: Error;

  constructor(
    readonly db: PGlite,
    private readonly pg: Pick<PGliteModule, 'protocol' | 'parse' | 'MemoryFS'>,
    private readonly wal?: WalSync,
  ) {
    this.fsSyncs = db.fs?.syncToFs !== pg.MemoryFS.prototype.syncToFs;
  }

  /** Runs fn alone (FIFO): no other statement or transaction interleaves. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(() => {
      if (this.closed) throw new Error('PGlite is closed');
      if (this.failed) throw this.failed;
      return fn();
    });
    this.tail = run.catch(() => {});
    return run;
  }

  /** One statement; call inside `exclusive` (alone, or in a transaction). */
  async run<T>(sql: string, params: unknown[] = [], inTransaction = false): Promise<T[]> {
    if (!PREPARABLE.test(sql)) return this.runOnce<T>(sql, params);
    let stmt = this.prepared.get(sql);
    if (stmt) {
      this.prepared.delete(sql); // most recently used last
      this.prepared.set(sql, stmt);
    } else {
      stmt = await this.prepare(sql);
    }
    try {
      return this.rows<T>(await this.send(this.bound(stmt, params), sql, params));
    } catch (err) {
      if ((err as StatementError).code !== FEATURE_NOT_SUPPORTED) throw err;
      // The table changed under the prepared plan: prepare anew (and run once more now if no
      // transaction is open; an open one is aborted by the error and its caller sees it).
      await this.forget(sql).catch(() => {}); // (the error to report is err)
      if (inTransaction) throw err;
      return this.rows<T>(await this.send(this.bound(await this.prepare(sql), params), sql, params));
    }
  }

  /** A script of statements, no parameters (simple protocol). Forgets prepared plans: a script may change tables. */
  async script(sql: string): Promise<void> {
    await this.simple(sql);
    if (this.prepared.size === 0) return;
    this.prepared.clear();
    await this.simple('DEALLOCATE ALL');
  }

  /** Inside `exclusive`: BEGIN, fn, COMMIT (ROLLBACK when fn throws). */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    await this.simple('BEGIN');
    let result: T;
    try {
      result = await fn();
    } catch (err) {
      await this.simple('ROLLBACK');
      throw err;
    }
    const done = await this.simple('COMMIT');
    // A transaction whose statement failed (and fn caught it) ends in ROLLBACK, not COMMIT.
    if (done.some((m) => m.name === 'commandComplete' && (m as { text?: string }).text === 'ROLLBACK')) {
      throw Object.assign(new Error('Transaction was rolled back instead of committed'), { code: '25P02', query: 'COMMIT' });
    }
    await this.durable();
    return result;
  }

  /** After a lone statement: what its commit needs to be durable. */
  afterStatement(): Promise<void> {
    return this.durable();
  }

  /**
   * A commit is answered only once on disk: on a data dir, the WAL written is fdatasynced here,
   * off the event loop, still inside the lock, so no statement sees a commit not yet durable.
   */
  private async durable(): Promise<void> {
    if (this.fsSyncs) await this.db.syncToFs();
    if (!this.wal) return;
    try {
      await this.wal.syncWal();
    } catch (err) {
      this.failed = Object.assign(new Error(`PGlite's WAL could not be made durable; restart the node: ${(err as Error).message}`), { cause: err });
      throw this.failed;
    }
  }

  /** Closes after what is queued; a second call is a no-op. */
  async close(): Promise<void> {
    const run = this.tail.then(async () => {
      this.closed = true;
      if (!this.db.closed) await this.db.close();
    });
    this.tail = run.catch(() => {});
    await run;
  }

  private async prepare(sql: string, keep = true): Promise<Prepared> {
    const s = this.pg.protocol.serialize;
    const name = `dp_${++this.nextName}`;
    const replies = await this.send(concat([s.parse({ name, text: sql }), s.describe({ type: 'S', name }), s.sync()]), sql, undefined);
    const described = replies.find((m) => m.name === 'parameterDescription') as { dataTypeIDs?: number[] } | undefined;
    const stmt = { name, paramTypes: described?.dataTypeIDs ?? [] };
    if (!keep) return stmt;
    this.prepared.set(sql, stmt);
    if (this.prepared.size > MAX_PREPARED) await this.forget(this.prepared.keys().next().value as string);
    return stmt;
  }

  /** DDL and other statements not kept prepared: without parameters one message, else prepared for this run only. */
  private async runOnce<T>(sql: string, params: unknown[]): Promise<T[]> {
    const s = this.pg.protocol.serialize;
    if (params.length === 0) {
      return this.rows<T>(await this.send(concat([s.parse({ text: sql }), s.bind(), s.describe({ type: 'P' }), s.execute(), s.sync()]), sql, params));
    }
    // Named, not unnamed: another statement of the same transaction may run between the two messages.
    const stmt = await this.prepare(sql, false);
    try {
      return this.rows<T>(await this.send(this.bound(stmt, params), sql, params));
    } finally {
      await this.send(concat([s.close({ type: 'S', name: stmt.name }), s.sync()]), 'close', undefined).catch(() => {});
    }
  }

  private simple(sql: string): Promise<BackendMessage[]> {
    return this.send(this.pg.protocol.serialize.query(sql), sql, undefined);
  }

  private async forget(sql: string): Promise<void> {
    const stmt = this.prepared.get(sql);
    if (!stmt) return;
    this.prepared.delete(sql);
    const s = this.pg.protocol.serialize;
    await this.send(concat([s.close({ type: 'S', name: stmt.name }), s.sync()]), 'close', undefined);
  }

  private bound(stmt: Prepared, params: unknown[]): Uint8Array {
    const s = this.pg.protocol.serialize;
    const values = this.serialize(params, stmt.paramTypes);
    return concat([s.bind({ statement: stmt.name, values }), s.describe({ type: 'P' }), s.execute(), s.sync()]);
  }

  /** Parameter values as PGlite's `query()` serialises them: by the type PostgreSQL gave the parameter. */
  private serialize(params: unknown[], types: number[]): (string | null)[] {
    const serializers = this.db.serializers;
    return params.map((p, i) => {
      if (p === null || p === undefined) return null;
      const serialize = serializers[types[i]];
      return serialize ? (serialize(p) as string) : String(p);
    });
  }

  private async send(message: Uint8Array, sql: string, params: unknown[] | undefined): Promise<BackendMessage[]> {
    try {
      return await this.db.execProtocolStream(message, { syncToFs: false });
    } catch (err) {
      if (err instanceof Error) Object.assign(err as StatementError, { query: sql, params });
      throw err;
    }
  }

  private rows<T>(messages: BackendMessage[]): T[] {
    return this.pg.parse.parseResults(messages, this.db.parsers)[0].rows as T[];
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.byteLength;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) {
    out.set(p, n);
    n += p.byteLength;
  }
  return out;
}
