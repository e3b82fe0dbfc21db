// The PGlite client's one-message statements (src/db/pglite-session.ts): prepared once by SQL
// text, values and rows as PGlite's own query() gives them, prepared plans forgotten when a
// script changes a table, transactions serialised with lone statements, errors as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteSqlClient, sqlErrorCode, type SqlClient, type SqlError } from '../../src/db/sql.js';

describe('PGlite client: one message per statement', () => {
  let db: PGliteSqlClient;
  beforeAll(async () => {
    db = await PGliteSqlClient.open();
    await db.exec(`
      CREATE TABLE t (id text PRIMARY KEY, n integer NOT NULL CHECK (n >= 0), big bigint, at timestamptz, doc jsonb, tags text[], ok boolean);
      CREATE TABLE u (id text PRIMARY KEY, t_id text NOT NULL REFERENCES t(id));`);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it('serialises values by the parameters’ types and parses rows as PGlite does', async () => {
    const at = new Date('2026-11-29T12:34:56.789Z');
    const params = ['a', 3, 9007199254740991n, at, { k: [1, 'x'] }, ['p', 'q,r'], true];
    await db.query('INSERT INTO t (id, n, big, at, doc, tags, ok) VALUES ($1, $2, $3, $4, $5, $6, $7)', params);
    const mine = await db.query('SELECT * FROM t WHERE id = $1', ['a']);
    const pglite = await db.db.query('SELECT * FROM t WHERE id = $1', ['a']);
    expect(mine.rows).toEqual(pglite.rows);
    expect(mine.rows[0]).toMatchObject({ id: 'a', n: 3, at, doc: { k: [1, 'x'] }, tags: ['p', 'q,r'], ok: true });
    // The same text again runs the prepared statement; null and undefined are NULL.
    await db.query('INSERT INTO t (id, n, big, at, doc, tags, ok) VALUES ($1, $2, $3, $4, $5, $6, $7)', ['b', 0, null, undefined, null, null, null]);
    expect((await db.query('SELECT id, at, ok FROM t ORDER BY id')).rows).toEqual([
      { id: 'a', at, ok: true },
      { id: 'b', at: null, ok: null },
    ]);
  });

  it('keeps the PostgreSQL error fields the stores read (code, constraint)', async () => {
    const err = (await db.query('INSERT INTO u (id, t_id) VALUES ($1, $2)', ['u1', 'missing']).catch((e: unknown) => e)) as SqlError;
    expect(sqlErrorCode(err)).toBe('23503');
    expect(err.constraint).toBe('u_t_id_fkey');
    await expect(db.query('SELEC 1')).rejects.toMatchObject({ code: '42601' });
    // The session is usable after errors, prepared or not.
    expect((await db.query('SELECT count(*)::int AS c FROM t')).rows).toEqual([{ c: 2 }]);
  });

  it('sees a table changed by a script: the prepared `SELECT *` is prepared anew', async () => {
    expect(Object.keys((await db.query('SELECT * FROM t WHERE id = $1', ['a'])).rows[0])).not.toContain('extra');
    await db.exec('ALTER TABLE t ADD COLUMN extra text');
    expect((await db.query('SELECT * FROM t WHERE id = $1', ['a'])).rows[0]).toHaveProperty('extra', null);
    await db.query('ALTER TABLE t DROP COLUMN extra'); // DDL through query(): not prepared, and plans replanned
    expect((await db.query('SELECT * FROM t WHERE id = $1', ['a'])).rows[0]).not.toHaveProperty('extra');
  });

  it('runs more distinct statements than it keeps prepared', async () => {
    for (let i = 0; i < 300; i++) expect((await db.query(`SELECT $1::int + ${i} AS v`, [1])).rows).toEqual([{ v: i + 1 }]);
    expect((await db.query('SELECT $1::int + 0 AS v', [7])).rows).toEqual([{ v: 7 }]);
  });

  it('commits, rolls back when fn throws, and refuses to commit an aborted transaction', async () => {
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO u (id, t_id) VALUES ($1, $2)', ['u1', 'a']);
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO u (id, t_id) VALUES ($1, $2)', ['u2', 'a']);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO u (id, t_id) VALUES ($1, $2)', ['u3', 'a']);
        await tx.query('INSERT INTO u (id, t_id) VALUES ($1, $2)', ['u4', 'missing']).catch(() => {});
      }),
    ).rejects.toMatchObject({ code: '25P02' });
    expect((await db.query('SELECT id FROM u ORDER BY id')).rows).toEqual([{ id: 'u1' }]);
    // A transaction's client used after it ended would run outside the lock: refused.
    let leaked!: SqlClient;
    await db.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked.query('SELECT 1')).rejects.toThrow('Transaction is closed');
  });

  it('lets no lone statement in between a transaction’s statements', async () => {
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = db.transaction(async (t) => {
      await t.query('UPDATE t SET n = n + 100 WHERE id = $1', ['a']);
      inside();
      await held;
      await t.query('UPDATE t SET n = n - 100 WHERE id = $1', ['a']);
    });
    await entered;
    const lone = db.query<{ n: number }>('SELECT n FROM t WHERE id = $1', ['a']);
    release();
    await tx;
    // Queued behind the transaction: it sees the committed value, never the one in between.
    expect((await lone).rows).toEqual([{ n: 3 }]);
  });

  it('refuses statements once closed, and a second close is a no-op', async () => {
    const other = await PGliteSqlClient.open();
    await other.close();
    await other.close();
    await expect(other.query('SELECT 1')).rejects.toThrow(/closed/);
  }, 60_000);
});
