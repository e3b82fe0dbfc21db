// SQL family parser. The file is read as a stream, split into top-level statements by a
// dialect-aware splitter (PostgreSQL: PostgreSQL's tokens with psql's rules; T-SQL: GO
// batches, then statements by the T-SQL grammar; others: split.ts), and each statement is
// parsed on its own by the dialect's parsers in turn (engines.ts) and written at once. One
// Document Unit per top-level statement: a compound statement (procedure, block, IF …)
// counts once, its inner statements listed beneath; client directives (GO, DELIMITER, psql
// and SQL*Plus commands) are not statements. A statement no parser accepts is still a
// statement, kept with its text and the parse error. Units are reserved as statements stream.
import { stat } from 'node:fs/promises';
import type { JsonWriter } from '../kit/json-writer.js';
import { StreamingUnits } from '../streaming-units.js';
import { ExtractionError, type FormatParser, type ParseOutcome } from '../kit/types.js';
import { excerpt } from '../kit/reasons.js';
import { CompletenessCounter } from '../kit/completeness.js';
import type { Provenance } from '../kit/provenance.js';
import { classifyStatement } from './classify.js';
import { SqlEngines, type ParsedStatement } from './engines.js';
import type { SqlStatementT } from './schema.js';
import { DIALECTS, normalizeDialect } from './split.js';
import type { Dialect } from './statements.js';
import { detectEncoding, streamStatements, type Directive, type StreamedStatement } from './stream.js';

export { normalizeDialect, splitGeneric } from './split.js';
export type { Dialect } from './statements.js';
export { splitPostgres, loadPostgres } from './postgres.js';
export { splitTsql } from './tsql.js';

/** Largest SQL file accepted: it is streamed, so this bounds work, not memory. */
export const MAX_SQL_BYTES = 4 * 1024 * 1024 * 1024;
/** ASTs of statements longer than this are not written (type, tables and columns still are). */
const MAX_AST_CHARS = 256 * 1024;
/** Directives kept in the artifact (GO lines can number one per statement). */
const MAX_DIRECTIVES = 10_000;

const SPLITTERS: Record<Dialect, string> = {
  PostgreSql: "PostgreSQL's tokens (libpg-query's scanner, or our lexer where it reads exactly as the scanner does) with psql statement rules",
  MsSql: 'GO batch lines (GO / GO n), then statements by the T-SQL grammar (semicolons optional)',
  Snowflake: "';' outside strings, comments, $$ bodies and scripting blocks",
  MySql: "';' or the current DELIMITER, outside strings and comments",
  BigQuery: "';' outside strings, comments and scripting blocks (BEGIN … END, IF … END IF, loops)",
  Sqlite: "';' outside strings, comments and CREATE TRIGGER … BEGIN … END",
  Oracle: "';' for SQL; '/' lines for PL/SQL units; SQL*Plus command lines are directives",
};

/** Oracle: the SQL inside PL/SQL bodies is parsed statement by statement (PL/SQL's own statements — IF, loops, assignments — stay unparsed). */
const PARSE_INNER = new Set<Dialect>(['Oracle']);

function innerRecord(x: StreamedStatement['inner'][number], p: ParsedStatement | null): NonNullable<SqlStatementT['innerStatements']>[number] {
  const base = { text: x.text, span: { start: x.start, end: x.end }, depth: x.depth };
  if (!p) return { ...base, type: classifyStatement(x.text) };
  return { ...base, type: p.type, parseStatus: p.parseStatus, parser: p.parser, tables: p.tables };
}

/** Where a statement is: its lines (from 1) and its bytes in the upload (the last one included). */
function statementProvenance(within: Provenance | undefined, s: StreamedStatement): Provenance {
  return { ...within, lines: [s.start.line, s.end.line], offsets: [s.bytes.start, s.bytes.end - 1] };
}

/**
 * Counts a statement: emitted when parsed (its AST is in the artifact); failed when no parser
 * of the dialect accepts it, skipped when it was not offered to one (too large, or a dialect
 * without a parser) — with why. Either way its text stays in `statements`, a unit as before.
 */
function countStatement(counter: CompletenessCounter, p: ParsedStatement, provenance: Provenance): void {
  if (p.parseStatus === 'parsed') counter.emitted('statements');
  else if (p.parseStatus === 'error') {
    const why = p.parseError ? ` (${excerpt(p.parseError.message, 200)})` : '';
    counter.missed('statements', 'failed', `Not parsed: no parser of the dialect accepts the statement${why}; its text is kept, without an AST.`, provenance);
  } else {
    // The too-large message is already a sentence that starts "not parsed: ".
    const why = p.parseError ? excerpt(p.parseError.message, 300) : 'not parsed: the dialect has no parser; its text is kept';
    counter.missed('statements', 'skipped', `${why.charAt(0).toUpperCase()}${why.slice(1)}.`, provenance);
  }
}

function statementRecord(index: number, s: StreamedStatement, p: ParsedStatement, inner: (ParsedStatement | null)[], provenance: Provenance): SqlStatementT {
  const { raw } = s;
  const errorAt = p.parseError && typeof p.parseError.offset === 'number' ? positionIn(s, p.parseError.offset) : null;
  return {
    index,
    text: s.text,
    span: { start: s.start, end: s.end },
    provenance,
    terminator: raw.terminator,
    ...(raw.batch !== undefined ? { batch: raw.batch } : {}),
    ...(raw.repeat !== undefined ? { repeat: raw.repeat } : {}),
    ...(raw.psqlCopy ? { psqlCopy: true } : {}),
    ...(s.inner.length ? { innerStatements: s.inner.map((x, i) => innerRecord(x, inner[i] ?? null)) } : {}),
    type: p.type,
    parseStatus: p.parseStatus,
    parser: p.parser,
    ...(p.headParsed ? { headParsed: { rows: p.headParsed.rows, rowsParsed: p.headParsed.rowsParsed } } : {}),
    // The AST is as large as what was parsed: a head-parsed INSERT's is its head's.
    ...(p.ast !== undefined ? ((p.headParsed?.chars ?? s.text.length) > MAX_AST_CHARS ? { astOmitted: true } : { ast: p.ast }) : {}),
    // A parser's message quotes the statement: shown printably and briefly (src/formats/kit/reasons.ts).
    ...(p.parseError
      ? { parseError: { message: excerpt(p.parseError.message, 400), ...(errorAt ? { line: errorAt.line, column: errorAt.column } : {}) } }
      : {}),
    tables: p.tables,
    columns: p.columns,
  };
}

/** Writes a statement's record with its text in slices: a 50 MiB statement is not copied again whole into JSON. */
function writeRecord(content: JsonWriter, record: SqlStatementT): void {
  content.beginObject();
  for (const [key, v] of Object.entries(record)) {
    if (v === undefined) continue;
    if (typeof v === 'string') content.key(key).string(v);
    else content.field(key, v);
  }
  content.endObject();
}

/** Line and column of an offset inside a statement's text. */
function positionIn(s: StreamedStatement, offset: number): { line: number; column: number } {
  const before = s.text.slice(0, offset);
  const nl = before.lastIndexOf('\n');
  const lines = before.split('\n').length - 1;
  return lines === 0 ? { line: s.start.line, column: s.start.column + offset } : { line: s.start.line + lines, column: offset - nl };
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
  if (size > MAX_SQL_BYTES) throw new ExtractionError(`SQL file is ${size} bytes; the largest accepted is ${MAX_SQL_BYTES} bytes`, 'document_too_large');
  const enc = await detectEncoding(input.filePath, size);
  const engines = await SqlEngines.forDialect(dialect);
  const units = new StreamingUnits(input.units);

  content
    .beginObject()
    .field('dialect', dialect)
    .field('encoding', enc.encoding)
    .field('splitter', SPLITTERS[dialect])
    .field('parser', engines.describe())
    .key('statements')
    .beginArray();

  const warnings: string[] = [];
  const directives: Directive[] = [];
  let directivesOmitted = 0;
  const types: Record<string, number> = {};
  const parsers: Record<string, number> = {};
  const allTables = new Set<string>();
  let count = 0;
  let parsed = 0;
  let headParsed = 0;
  let attempted = 0;
  let batchCount = 0;
  const counter = new CompletenessCounter().kind('statements');
  const stream = streamStatements(input.filePath, enc, dialect, {
    onDirective: (d) => {
      if (directives.length < MAX_DIRECTIVES) directives.push(d);
      else directivesOmitted++;
    },
    onWarning: (w) => warnings.push(w),
    onProgress: (bytes) => input.progress(size ? bytes / size : 1),
  });
  for await (const s of stream) {
    await units.need(count + 1);
    const innerEnds = dialect === 'MsSql' ? s.inner.map((x) => x.end.offset - s.start.offset) : [];
    const p = engines.parse(s.text, s.raw.psqlCopy, innerEnds);
    if (p.parseStatus !== 'skipped' || p.parseError) attempted++;
    if (p.headParsed) headParsed++;
    if (p.parseStatus === 'parsed') {
      parsed++;
      parsers[p.parser!] = (parsers[p.parser!] ?? 0) + 1;
    }
    types[p.type] = (types[p.type] ?? 0) + 1;
    if (s.raw.batch !== undefined) batchCount = Math.max(batchCount, s.raw.batch + 1);
    for (const t of p.tables) allTables.add(t);
    const inner = PARSE_INNER.has(dialect) ? s.inner.map((x) => engines.parse(x.text)) : [];
    const provenance = statementProvenance(input.within, s);
    countStatement(counter, p, provenance);
    writeRecord(content, statementRecord(count, s, p, inner, provenance));
    count++;
    await content.maybeFlush();
  }
  content.endArray();

  const parseRate = attempted ? Math.round((parsed / attempted) * 10000) / 10000 : null;
  content
    .field('statementCount', count)
    .field('parsedCount', parsed)
    .field('parseRate', parseRate)
    .field('statementTypes', types)
    .field('parsers', parsers)
    .field('tables', [...allTables].sort())
    .field('directives', directives);
  if (headParsed) content.field('headParsedCount', headParsed);
  if (directivesOmitted) content.field('directivesOmitted', directivesOmitted);
  if (dialect === 'MsSql') content.field('batchCount', batchCount);
  content.endObject();

  if (!count) warnings.push('no SQL statements found');
  return {
    documentFormat: 'sql',
    documentUnits: count,
    metadata: { dialect, encoding: enc.encoding, statementCount: count, parsedCount: parsed, parseRate, bytes: size },
    warnings,
    completeness: counter.result(),
  };
};
