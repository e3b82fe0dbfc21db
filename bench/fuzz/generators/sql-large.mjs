// Large SQL dumps, for the checks that no statement is lost or invented however large it is
// (issue 27): multi-row INSERTs of a given size — the extended inserts pg_dump writes with
// --rows-per-insert (a row per line) and mysqldump writes (a statement per line) — alone or
// between other statements. Rows carry what a splitter must not cut at: ';', '--', '/*',
// quotes (escaped as the dialect's dumps escape them) and non-ASCII text.

/** How each dialect's dump writes an INSERT; `esc` escapes a string's body. */
const doubled = (s) => s.replace(/'/g, "''");
const STYLES = {
  PostgreSql: { table: 'public.items', columns: ' (id, name, price, note)', open: ' VALUES\n\t', sep: ',\n\t', esc: doubled, n: '' },
  MySql: { table: '`items`', columns: '', open: ' VALUES ', sep: ',', esc: (s) => s.replace(/\\/g, '\\\\').replace(/'/g, "\\'"), n: '' },
  MsSql: { table: '[dbo].[items]', columns: ' ([id], [name], [price], [note])', open: ' VALUES\n', sep: ',\n', esc: doubled, n: 'N' },
  Snowflake: { table: 'items', columns: ' (id, name, price, note)', open: ' VALUES\n', sep: ',\n', esc: doubled, n: '' },
  BigQuery: { table: '`ds.items`', columns: ' (id, name, price, note)', open: ' VALUES\n', sep: ',\n', esc: doubled, n: '' },
  Sqlite: { table: '"items"', columns: '', open: ' VALUES', sep: ',', esc: doubled, n: '' },
  Oracle: { table: 'items', columns: ' (id, name, price, note)', open: ' VALUES\n', sep: ',\n', esc: doubled, n: '' },
};

const CREATE = {
  PostgreSql: 'CREATE TABLE public.items (id bigint PRIMARY KEY, name text NOT NULL, price numeric(10,2), note text)',
  MySql:
    'CREATE TABLE `items` (`id` bigint NOT NULL, `name` varchar(200) NOT NULL, `price` decimal(10,2), `note` text, PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
  MsSql: 'CREATE TABLE [dbo].[items] ([id] BIGINT NOT NULL PRIMARY KEY, [name] NVARCHAR(200) NOT NULL, [price] DECIMAL(10,2), [note] NVARCHAR(MAX))',
  Snowflake: 'CREATE TABLE items (id NUMBER PRIMARY KEY, name VARCHAR NOT NULL, price NUMBER(10,2), note VARCHAR)',
  BigQuery: 'CREATE TABLE `ds.items` (id INT64 NOT NULL, name STRING NOT NULL, price NUMERIC, note STRING)',
  Sqlite: 'CREATE TABLE "items" (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, note TEXT)',
  Oracle: 'CREATE TABLE items (id NUMBER PRIMARY KEY, name VARCHAR2(200) NOT NULL, price NUMBER(10,2), note VARCHAR2(4000))',
};

const NOTES = ["it's; not the end", '-- not a comment', '/* nor this */', 'café ü 😀', 'a "quoted" word', 'back\\slash'];

/** One row; most are short, as in real dumps (~30 chars, ~10 tokens), every 16th carries a trap. */
function row(st, i) {
  const note = i % 16 === 5 ? `${st.n}'${st.esc(NOTES[(i >> 4) % NOTES.length])}'` : 'NULL';
  const comma = st.sep === ',' ? ',' : ', ';
  return `(${i}${comma}${st.n}'n${i % 100}'${comma}${i % 1000}.5${comma}${note})`;
}

/**
 * Pieces of one INSERT statement (without its terminator) of at least `chars` characters,
 * rows numbered from `firstRow`; `rows` is set on the returned object once iterated.
 */
export function insertPieces(dialect, chars, firstRow = 0) {
  const st = STYLES[dialect];
  if (!st) throw new Error(`no INSERT style for ${dialect}`);
  const out = {
    rows: 0,
    *[Symbol.iterator]() {
      let piece = `INSERT INTO ${st.table}${st.columns}${st.open}${row(st, firstRow)}`;
      let written = 0;
      let i = firstRow + 1;
      for (; written + piece.length < chars; i++) {
        piece += st.sep + row(st, i);
        if (piece.length >= 64 * 1024) {
          written += piece.length;
          yield piece;
          piece = '';
        }
      }
      out.rows = i - firstRow;
      yield piece;
    },
  };
  return out;
}

/** What comes before and after the INSERT in the dump (with `around`), or its terminator only. */
function frame(dialect, around) {
  return around ? { head: `${CREATE[dialect]};\n\nSELECT 1;\n\n`, tail: ';\n\nSELECT 2;\n' } : { head: '', tail: ';\n' };
}

/** Pieces of the dump `largeInsertDump` returns, for writing it without holding it. */
export function* largeInsertDumpPieces({ dialect = 'PostgreSql', mb, around = true }) {
  const { head, tail } = frame(dialect, around);
  yield head;
  yield* insertPieces(dialect, Math.round(mb * 1024 * 1024));
  yield tail;
}

/**
 * A dump holding one INSERT of about `mb` MiB: with `around`, `CREATE TABLE …; SELECT 1;
 * <INSERT>; SELECT 2;` as in the issue, else the INSERT alone. `statements` is what a splitter
 * must find: each one's type and exact text.
 */
export function largeInsertDump({ dialect = 'PostgreSql', mb, around = true }) {
  const text = [...largeInsertDumpPieces({ dialect, mb, around })].join('');
  const { head, tail } = frame(dialect, around);
  const insert = { type: 'INSERT', text: text.slice(head.length, text.length - tail.length) };
  const statements = around
    ? [{ type: 'CREATE TABLE', text: CREATE[dialect] }, { type: 'SELECT', text: 'SELECT 1' }, insert, { type: 'SELECT', text: 'SELECT 2' }]
    : [insert];
  return { text, statements };
}

/**
 * Pieces of an extended-insert dump of about `mb` MiB: a CREATE TABLE, then INSERTs of about
 * `insertMb` MiB each, a COMMIT every 10 of them, and a final SELECT count(*). For benches that
 * write the dump to a file without holding it; `statements` is set once iterated.
 */
export function insertDumpPieces({ dialect = 'PostgreSql', mb, insertMb }) {
  const out = {
    statements: 0,
    *[Symbol.iterator]() {
      const target = mb * 1024 * 1024;
      let written = 0;
      let row = 0;
      let n = 0;
      const emit = function* (piece) {
        written += piece.length;
        yield piece;
      };
      yield* emit(`${CREATE[dialect]};\n`);
      n++;
      while (written < target) {
        const ins = insertPieces(dialect, Math.min(insertMb * 1024 * 1024, target - written), row);
        for (const piece of ins) yield* emit(piece);
        yield* emit(';\n');
        row += ins.rows;
        n++;
        if (n % 10 === 0) {
          yield* emit('COMMIT;\n');
          n++;
        }
      }
      yield* emit(`SELECT count(*) FROM ${STYLES[dialect].table};\n`);
      out.statements = n + 1;
    },
  };
  return out;
}

/** Fuzzer seeds: the dump with a 12 MiB INSERT, in pg_dump's and mysqldump's forms. */
export function sqlLargeSeeds() {
  return [
    { name: 'gen_pg_insert_12mb.sql', bytes: Buffer.from(largeInsertDump({ dialect: 'PostgreSql', mb: 12 }).text), dialect: 'PostgreSql' },
    { name: 'gen_mysql_insert_12mb.sql', bytes: Buffer.from(largeInsertDump({ dialect: 'MySql', mb: 12 }).text), dialect: 'MySql' },
  ];
}
