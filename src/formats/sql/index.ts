// SQL family parser. The file is decoded, split into statements by a dialect-aware splitter
// (PostgreSQL: libpg-query's scanner with psql's rules; others: split.ts), and each statement
// is parsed on its own: PostgreSQL by libpg-query, the others by node-sql-parser where it has
// the dialect. A statement the parser rejects is still a statement (one Document Unit),
// kept with its text and the parse error. Statements are written as they are parsed.
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { JsonWriter } from '../../pipeline/json-writer.js';
import { ExtractionError, type FormatParser, type ParseOutcome } from '../types.js';
import { classifyStatement } from './classify.js';
import { loadPostgres, parsePostgres, pgReferences, pgStatementType, splitPostgres } from './postgres.js';
import type { SqlStatementT } from './schema.js';
import { DIALECTS, normalizeDialect, splitGeneric, type Dialect, type RawStatement, type SplitResult } from './split.js';
import { LineIndex, readSqlText } from './text.js';

export { normalizeDialect, splitGeneric, type Dialect } from './split.js';
export { splitPostgres, loadPostgres } from './postgres.js';

const require = createRequire(import.meta.url);

/** node-sql-parser builds per dialect (Oracle has none). */
const NSP_DATABASE: Partial<Record<Dialect, { build: string; database: string }>> = {
  MsSql: { build: 'transactsql', database: 'TransactSQL' },
  Snowflake: { build: 'snowflake', database: 'Snowflake' },
  MySql: { build: 'mysql', database: 'MySQL' },
  BigQuery: { build: 'bigquery', database: 'BigQuery' },
  Sqlite: { build: 'sqlite', database: 'Sqlite' },
};

/** Statements longer than this are not handed to node-sql-parser (a PEG parser can be slow on huge inputs). */
const MAX_NSP_CHARS = 200_000;
const MAX_PG_PARSE_CHARS = 8_000_000;
/** ASTs of statements longer than this are not written (type, tables and columns still are). */
const MAX_AST_CHARS = 256 * 1024;

interface NspParser {
  parse(sql: string, opt: { database: string }): { ast: unknown; tableList: string[]; columnList: string[] };
}

const nspParsers = new Map<string, NspParser>();
function nspFor(d: Dialect): { parser: NspParser; database: string } | null {
  const cfg = NSP_DATABASE[d];
  if (!cfg) return null;
  let p = nspParsers.get(cfg.build);
  if (!p) {
    const mod = require(`node-sql-parser/build/${cfg.build}.js`) as { Parser: new () => NspParser };
    p = new mod.Parser();
    nspParsers.set(cfg.build, p);
  }
  return { parser: p, database: cfg.database };
}

function nspTable(entry: string): string | null {
  const [, schema, table] = entry.split('::');
  if (!table) return null;
  return schema && schema !== 'null' ? `${schema}.${table}` : table;
}

function nspColumn(entry: string): string | null {
  const [, table, col] = entry.split('::');
  if (!col || col === '(.*)' || col === '*') return null;
  return table && table !== 'null' ? `${table}.${col}` : col;
}

interface Parsed {
  type: string;
  parseStatus: 'parsed' | 'error' | 'skipped';
  ast?: unknown;
  parseError?: { message: string; offset?: number | null };
  tables: string[];
  columns: string[];
}

function parseOne(dialect: Dialect, sql: string, psqlCopy = false): Parsed {
  if (psqlCopy) {
    // `\copy …` is parsed as the COPY statement psql sends (offsets shift by the backslash).
    const r = parseOne(dialect, sql.slice(1));
    if (r.parseError && typeof r.parseError.offset === 'number') r.parseError.offset += 1;
    return r;
  }
  const heuristic = classifyStatement(sql);
  if (dialect === 'PostgreSql') {
    if (sql.length > MAX_PG_PARSE_CHARS) return { type: heuristic, parseStatus: 'skipped', tables: [], columns: [], parseError: { message: 'statement too long to parse' } };
    const r = parsePostgres(sql);
    if (!r.ok) return { type: heuristic, parseStatus: 'error', parseError: r.error, tables: [], columns: [] };
    const refs = pgReferences(r.ast);
    return { type: pgStatementType(r.ast) ?? heuristic, parseStatus: 'parsed', ast: r.ast, tables: refs.tables, columns: refs.columns };
  }
  const type = heuristic;
  const nsp = nspFor(dialect);
  if (!nsp) return { type, parseStatus: 'skipped', tables: [], columns: [] };
  if (sql.length > MAX_NSP_CHARS) return { type, parseStatus: 'skipped', tables: [], columns: [], parseError: { message: 'statement too long for node-sql-parser' } };
  try {
    const r = nsp.parser.parse(sql, { database: nsp.database });
    const tables = [...new Set(r.tableList.map(nspTable).filter((x): x is string => !!x))];
    const columns = [...new Set(r.columnList.map(nspColumn).filter((x): x is string => !!x))];
    const ast = Array.isArray(r.ast) && r.ast.length === 1 ? r.ast[0] : r.ast;
    return { type, parseStatus: 'parsed', ast, tables, columns };
  } catch (e) {
    const err = e as { message?: string; location?: { start?: { offset?: number } } };
    const msg = String(err.message ?? e).split('\n')[0].slice(0, 500);
    return { type, parseStatus: 'error', parseError: { message: msg, offset: err.location?.start?.offset ?? null }, tables: [], columns: [] };
  }
}

const SPLITTERS: Record<Dialect, string> = {
  PostgreSql: 'libpg-query scanner (PostgreSQL lexer) with psql statement rules',
  MsSql: 'GO batch separator lines (GO / GO n); one unit per batch',
  Snowflake: "';' outside strings, comments, $$ bodies and scripting blocks",
  MySql: "';' or the current DELIMITER, outside strings and comments",
  BigQuery: "';' outside strings, comments and BEGIN … END blocks",
  Sqlite: "';' outside strings, comments and CREATE TRIGGER … BEGIN … END",
  Oracle: "';' for SQL; '/' lines for PL/SQL units; SQL*Plus command lines are directives",
};

function split(text: string, dialect: Dialect): SplitResult {
  return dialect === 'PostgreSql' ? splitPostgres(text) : splitGeneric(text, dialect);
}

export const parseSql: FormatParser = async (input, content: JsonWriter): Promise<ParseOutcome> => {
  const dialect = normalizeDialect(input.options.sqlDialect);
  if (!dialect) {
    throw new ExtractionError(
      `sqlDialect ${input.options.sqlDialect ? `'${input.options.sqlDialect}' is not supported` : 'is required'}; use one of ${DIALECTS.join(', ')}`,
      'invalid_parameter',
    );
  }
  const { size } = await stat(input.filePath);
  const decoded = await readSqlText(input.filePath, size);
  const text = decoded.text;
  if (dialect === 'PostgreSql') await loadPostgres();
  const lines = new LineIndex(text);
  const { statements, warnings, extras } = split(text, dialect);
  const nsp = dialect === 'PostgreSql' ? null : NSP_DATABASE[dialect];
  const parserName = dialect === 'PostgreSql' ? 'libpg-query 18 (PostgreSQL 18 grammar)' : nsp ? `node-sql-parser 5.4 (${nsp.database})` : null;

  content.beginObject()
    .field('dialect', dialect)
    .field('encoding', decoded.encoding)
    .field('splitter', SPLITTERS[dialect])
    .field('parser', parserName)
    .key('statements')
    .beginArray();

  const types: Record<string, number> = {};
  const allTables = new Set<string>();
  let parsed = 0;
  let attempted = 0;
  for (let i = 0; i < statements.length; i++) {
    const raw: RawStatement = statements[i];
    const sql = text.slice(raw.start, raw.end);
    const p = parseOne(dialect, sql, raw.psqlCopy);
    if (p.parseStatus !== 'skipped' || p.parseError) attempted++;
    if (p.parseStatus === 'parsed') parsed++;
    types[p.type] = (types[p.type] ?? 0) + 1;
    for (const t of p.tables) allTables.add(t);
    const st: SqlStatementT = {
      index: i,
      text: sql,
      span: { start: lines.position(raw.start), end: lines.position(raw.end) },
      terminator: raw.terminator,
      ...(raw.repeat !== undefined ? { repeat: raw.repeat } : {}),
      ...(raw.psqlCopy ? { psqlCopy: true } : {}),
      ...(raw.parts
        ? { parts: raw.parts.map(([a, b]) => ({ text: text.slice(a, b), span: { start: lines.position(a), end: lines.position(b) }, type: classifyStatement(text.slice(a, b)) })) }
        : {}),
      type: p.type,
      parseStatus: p.parseStatus,
      parser: p.parseStatus === 'skipped' && !p.parseError ? null : parserName,
      ...(p.ast !== undefined ? (sql.length > MAX_AST_CHARS ? { astOmitted: true } : { ast: p.ast }) : {}),
      ...(p.parseError
        ? {
            parseError: {
              message: p.parseError.message,
              ...(typeof p.parseError.offset === 'number' ? (({ line, column }) => ({ line, column }))(lines.position(raw.start + p.parseError.offset)) : {}),
            },
          }
        : {}),
      tables: p.tables,
      columns: p.columns,
    };
    content.value(st);
    await content.maybeFlush();
    if ((i & 63) === 0) input.progress(i / statements.length);
  }
  content.endArray();

  const directives: { kind: string; line: number; text: string }[] = [];
  for (const d of (extras.psqlMetaCommands as { offset: number; text: string }[] | undefined) ?? []) directives.push({ kind: 'psql', line: lines.position(d.offset).line, text: d.text });
  for (const d of (extras.delimiterDirectives as { offset: number; text: string }[] | undefined) ?? []) directives.push({ kind: 'delimiter', line: lines.position(d.offset).line, text: d.text });
  for (const d of (extras.sqlplusCommands as { offset: number; text: string }[] | undefined) ?? []) directives.push({ kind: 'sqlplus', line: lines.position(d.offset).line, text: d.text });

  const parseRate = attempted ? Math.round((parsed / attempted) * 10000) / 10000 : null;
  content.field('statementCount', statements.length)
    .field('parsedCount', parsed)
    .field('parseRate', parseRate)
    .field('statementTypes', types)
    .field('tables', [...allTables].sort())
    .field('directives', directives)
    .endObject();

  if (!statements.length) warnings.push('no SQL statements found');
  return {
    documentFormat: 'sql',
    documentUnits: statements.length,
    metadata: { dialect, encoding: decoded.encoding, statementCount: statements.length, parsedCount: parsed, parseRate, bytes: size },
    warnings,
  };
};
