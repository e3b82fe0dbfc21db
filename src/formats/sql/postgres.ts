// PostgreSQL: statements are split by the rules psql applies (a ';' ends a statement only
// outside parentheses and outside a BEGIN ... END body of CREATE FUNCTION/PROCEDURE) over
// PostgreSQL's own tokens: libpg-query's scanner (WASM), or our lexer where it reads a piece
// exactly as the scanner would (pg-tokens.ts), which is ten times faster. Each statement is
// parsed alone by PostgreSQL's own grammar. psql meta-command lines (\set, \d, \copy …) are
// not SQL: they are reported, never counted.
import * as pg from 'libpg-query';
import { ByteOffsets } from './text.js';
import { lexLikePostgres } from './pg-tokens.js';
import { pgPrepass, splitGeneric, type PgPrepass, type SplitResult } from './split.js';
import type { RawStatement } from './statements.js';

let loading: Promise<void> | null = null;

/** Loads the WASM module once per thread. */
export function loadPostgres(): Promise<void> {
  loading ??= pg.loadModule();
  return loading;
}

/** Text is read in pieces of at most about this many chars, cut where PostgreSQL's lexer can
 *  start afresh (pgPrepass's cuts and breaks). The scanner returns every token of a piece as
 *  JSON at once (some 30 bytes per source char), and past ~3.6 million tokens it returns none
 *  at all: a piece must stay well below that. */
const SCAN_CHUNK = 256 * 1024;

/** libpg-query's scanner returned no tokens for text that has some. */
class ScannerGaveUp extends Error {}

/** What PostgreSQL's lexer did, in words (its own message is lost: libpg-query hands it back
 *  where JSON was expected, and only its first characters survive in JSON.parse's error). */
function lexerFault(e: unknown): string {
  if (e instanceof ScannerGaveUp) return 'gave up on a stretch with no space, comma or parenthesis';
  const msg = String((e as Error)?.message ?? e);
  if (/"unterminat/.test(msg)) return 'found an unterminated string, quoted identifier or comment';
  if (/"zero-lengt/.test(msg)) return 'found a zero-length quoted identifier ("")';
  if (/"trailing j/.test(msg)) return 'found a number followed by letters';
  return 'failed';
}

/** psql's rules over PostgreSQL's tokens, fed in order: a ';' ends a statement outside
 *  parentheses and brackets and outside the BEGIN … END body of CREATE FUNCTION/PROCEDURE. */
class PsqlStatements {
  readonly statements: RawStatement[] = [];
  /** Offset of the first token of the statement being read, or -1 between statements. */
  start = -1;
  private last = -1;
  private paren = 0;
  private begin = 0;
  private idents: string[] = [];

  /** One token: `token` is its text when it can matter (';', a bracket, a word), else ''. A
   *  string constant is never a word; other tokens starting with a letter are (B'01' too). */
  readonly take = (start: number, end: number, token: string): void => {
    if (token === ';' && this.paren === 0 && this.begin === 0) {
      if (this.start >= 0) this.close(';', end); // else an empty statement
      return;
    }
    if (this.start < 0) this.start = start;
    this.last = end;
    if (token === '(' || token === '[') this.paren++;
    else if ((token === ')' || token === ']') && this.paren > 0) this.paren--;
    else if (/^[A-Za-z_]/.test(token)) {
      const w = token.length > 16 ? '' : token.toLowerCase();
      if (this.idents.length < 4) this.idents.push(w);
      if (this.paren === 0 && this.isFuncDef()) {
        if (w === 'begin') this.begin++;
        else if (w === 'case' && this.begin >= 1) this.begin++;
        else if (w === 'end' && this.begin > 0) this.begin--;
      }
    }
  };

  /** The state before a piece, to go back to when its reading is abandoned. */
  mark(): () => void {
    const { start, last, paren, begin } = this;
    const count = this.statements.length;
    const idents = [...this.idents];
    return () => {
      Object.assign(this, { start, last, paren, begin, idents });
      this.statements.length = count;
    };
  }

  private close(terminator: string | null, termEnd: number): void {
    if (this.start >= 0) this.statements.push({ start: this.start, end: this.last, terminator, termEnd });
    this.start = -1;
    this.last = -1;
    this.paren = 0;
    this.begin = 0;
    this.idents = [];
  }

  /** The end of the text ends the statement being read, without a terminator. */
  finish(): void {
    this.close(null, this.last);
  }

  private isFuncDef(): boolean {
    const w = this.idents;
    return (
      w[0] === 'create' &&
      (w[1] === 'function' || w[1] === 'procedure' || (w[1] === 'or' && w[2] === 'replace' && (w[3] === 'function' || w[3] === 'procedure')))
    );
  }
}

/** libpg-query's tokens of `part`, comments included. Throws when its lexer rejects the text. */
function scanTokens(part: string): pg.ScanToken[] {
  const res = pg.scanSync(part);
  // A piece too large for its scanner comes back empty rather than failing: never silently.
  if (!res.tokens.length && /\S/.test(part)) throw new ScannerGaveUp();
  return res.tokens;
}

/** Hands scanned tokens but comments to `rules` (UTF-8 byte offsets become string offsets). */
function feedScanned(part: string, from: number, tokens: pg.ScanToken[], rules: PsqlStatements): void {
  const map = new ByteOffsets(part);
  for (const t of tokens) {
    if (t.tokenName === 'SQL_COMMENT' || t.tokenName === 'C_COMMENT') continue;
    rules.take(from + map.toChar(t.start), from + map.toChar(t.end), t.tokenName === 'SCONST' ? '' : t.text);
  }
}

/**
 * Reads text[from, to) with libpg-query's scanner: up to `cut` (the next statement boundary our
 * lexer found) when the scanner ends there too — its last token is that ';', so scanning on
 * would have read the same tokens and restarts there — else to `to`, the piece's end, as one.
 * Returns where it stopped; throws when the scanner rejects text[from, to).
 */
function scanFrom(text: string, from: number, cut: number, to: number, rules: PsqlStatements): number {
  if (cut < to) {
    const part = text.slice(from, cut);
    let tokens: pg.ScanToken[] | null = null;
    try {
      tokens = scanTokens(part);
    } catch {
      // Our boundary is not PostgreSQL's (it fell inside something only PostgreSQL reads whole).
    }
    const last = tokens?.[tokens.length - 1];
    if (tokens && last && last.tokenName === 'ASCII_59' && last.end === Buffer.byteLength(part)) {
      feedScanned(part, from, tokens, rules);
      return cut;
    }
  }
  const part = text.slice(from, to);
  feedScanned(part, from, scanTokens(part), rules);
  return to;
}

/** Index of the first value above `x` in sorted `xs`. */
function firstAbove(xs: number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Reads the piece text[from, to) stretch by stretch (between restart points): with our lexer
 * where it reads the stretch as the scanner would (pg-tokens.ts), else with the scanner from
 * there to the next statement boundary (scanFrom). A piece longer than SCAN_CHUNK has no
 * restart point inside: the scanner reads it, and may give up on it (so does every piece with
 * `scannerOnly`, the reading before pg-tokens.ts). When the scanner rejects
 * the text, `rules` is left as it was before the piece and the error thrown.
 */
function readPiece(text: string, from: number, to: number, restarts: number[], cuts: number[], rules: PsqlStatements, scannerOnly: boolean): void {
  const before = rules.mark();
  try {
    if (scannerOnly || to - from > SCAN_CHUNK) {
      scanFrom(text, from, to, to, rules);
      return;
    }
    let i = firstAbove(restarts, from);
    for (let at = from; at < to;) {
      while (i < restarts.length && restarts[i] <= at) i++;
      const end = i < restarts.length && restarts[i] < to ? restarts[i] : to;
      const back = rules.mark();
      if (lexLikePostgres(text.slice(at, end), at, rules.take)) {
        at = end;
        continue;
      }
      back();
      const c = firstAbove(cuts, at);
      at = scanFrom(text, at, c < cuts.length ? Math.min(cuts[c], to) : to, to, rules);
    }
  } catch (e) {
    before();
    throw e;
  }
}

/** Where the piece read from `from` ends: the furthest restart point at most SCAN_CHUNK
 *  on, or the first one past it when none is nearer (a single long token). */
function pieceEnd(restarts: number[], from: number, length: number): number {
  if (length - from <= SCAN_CHUNK) return length;
  const lo = firstAbove(restarts, from + SCAN_CHUNK);
  // restarts[lo - 1] is the last within reach.
  if (lo > 0 && restarts[lo - 1] > from) return restarts[lo - 1];
  return lo < restarts.length ? restarts[lo] : length;
}

/** The warning for the COPY … FROM STDIN data blocks of a script. */
export function copyDataWarning(blocks: number): string {
  return `${blocks} COPY … FROM STDIN data blocks are data, not statements`;
}

/** Splits PostgreSQL text into statements (see the header comment). `scannerOnly`: every piece
 *  read by libpg-query's scanner, the reference the tests hold the faster reading to. */
export function splitPostgres(text: string, { scannerOnly = false } = {}): SplitResult {
  const r = splitText(text, scannerOnly);
  if (r.copyDataBlocks) r.warnings.splice(r.fallbackAt, 0, copyDataWarning(r.copyDataBlocks));
  return { statements: r.statements, warnings: r.warnings, extras: r.extras };
}

/** splitPostgres without the COPY data warning: the blocks are counted, and `fallbackAt` is
 *  where that warning stands among the others. `prepass`: pgPrepass(text), when the caller has it. */
function splitText(text: string, scannerOnly: boolean, prepass?: PgPrepass): SplitResult & { copyDataBlocks: number; fallbackAt: number } {
  const warnings: string[] = [];
  const metaCommands: { offset: number; text: string }[] = [];
  const copies: RawStatement[] = [];
  // psql meta-command lines and COPY … FROM STDIN data are blanked (same length, so offsets
  // hold) before PostgreSQL's lexer sees the text; `\copy` lines run one COPY each and are
  // statements of the script.
  const pre = prepass ?? pgPrepass(text);
  const blanks = [...pre.meta.map(([s, e]) => ({ s, e, meta: true })), ...pre.copyData.map(([s, e]) => ({ s, e, meta: false }))].sort((x, y) => x.s - y.s);
  let scanText = text;
  if (blanks.length) {
    const parts: string[] = [];
    let at = 0;
    for (const { s, e, meta } of blanks) {
      parts.push(text.slice(at, s), text.slice(s, e).replace(/[^\r\n]/g, ' '));
      at = e;
      if (!meta) continue;
      const line = text.slice(s, e);
      if (/^\\copy\b/i.test(line)) {
        const body = line.replace(/[\s;]+$/, '');
        copies.push({ start: s, end: s + body.length, terminator: line.trimEnd().endsWith(';') ? ';' : null, termEnd: e, psqlCopy: true });
      } else metaCommands.push({ offset: s, text: line });
    }
    parts.push(text.slice(at));
    scanText = parts.join('');
  }
  const restarts = mergeSorted(pre.cuts, pre.breaks);
  const rules = new PsqlStatements();
  const statements = rules.statements;
  let tail: number | null = null;
  for (let from = 0; from < scanText.length;) {
    const to = pieceEnd(restarts, from, scanText.length);
    try {
      readPiece(scanText, from, to, restarts, pre.cuts, rules, scannerOnly);
    } catch (e) {
      // Whatever was open before the failure point joins the fallback's first statement.
      tail = rules.start >= 0 ? rules.start : from;
      warnings.push(`PostgreSQL's lexer ${lexerFault(e)} in the text from offset ${tail}; the rest was split by the fallback lexer`);
      break;
    }
    from = to;
  }
  const fallbackAt = warnings.length;
  if (tail !== null) {
    const fb = splitGeneric(scanText.slice(tail), 'PgFallback');
    for (const st of fb.statements) statements.push({ ...st, start: tail + st.start, end: tail + st.end, termEnd: tail + st.termEnd });
    warnings.push(...fb.warnings);
  } else rules.finish();
  if (copies.length) {
    statements.push(...copies);
    statements.sort((a, b) => a.start - b.start);
  }
  return { statements, warnings, extras: { psqlMetaCommands: metaCommands }, copyDataBlocks: pre.copyData.length, fallbackAt };
}

function mergeSorted(a: number[], b: number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++]);
  return out;
}

export interface PgParse {
  ok: boolean;
  ast?: unknown;
  error?: { message: string; offset: number | null };
}

export function parsePostgres(sql: string): PgParse {
  try {
    const r = pg.parseSync(sql) as { stmts?: { stmt: Record<string, unknown> }[] };
    const stmts = r.stmts ?? [];
    return { ok: true, ast: stmts.length === 1 ? stmts[0].stmt : stmts.map((s) => s.stmt) };
  } catch (e) {
    const err = e as pg.SqlError;
    const pos = err.sqlDetails?.cursorPosition;
    let offset: number | null = null;
    if (typeof pos === 'number' && pos >= 0) offset = new ByteOffsets(sql).toChar(pos);
    return { ok: false, error: { message: err.message, offset } };
  }
}

/** Tables (RangeVar) and column references found in a libpg-query AST. */
export function pgReferences(ast: unknown): { tables: string[]; columns: string[] } {
  const tables = new Set<string>();
  const columns = new Set<string>();
  const cteNames = new Set<string>();
  const walk = (n: unknown, depth: number): void => {
    if (depth > 400 || n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      for (const x of n) walk(x, depth + 1);
      return;
    }
    const o = n as Record<string, unknown>;
    // A RangeVar appears wrapped ({RangeVar: {...}}) in FROM lists and bare in typed fields
    // (InsertStmt.relation, CreateStmt.relation, …): both carry relname.
    if (typeof o.relname === 'string' && ('relpersistence' in o || 'inh' in o || 'location' in o)) {
      const rv = o as { catalogname?: string; schemaname?: string; relname: string };
      tables.add([rv.catalogname, rv.schemaname, rv.relname].filter(Boolean).join('.'));
    }
    for (const [k, v] of Object.entries(o)) {
      if (k === 'RangeVar' && v && typeof v === 'object') {
        const rv = v as { catalogname?: string; schemaname?: string; relname?: string };
        if (rv.relname) tables.add([rv.catalogname, rv.schemaname, rv.relname].filter(Boolean).join('.'));
      } else if (k === 'CommonTableExpr' && v && typeof v === 'object') {
        const name = (v as { ctename?: string }).ctename;
        if (name) cteNames.add(name);
      } else if (k === 'ColumnRef' && v && typeof v === 'object') {
        const fields = (v as { fields?: Record<string, { sval?: string }>[] }).fields ?? [];
        const parts = fields.map((f) => (f.String ? f.String.sval : f.A_Star ? '*' : '?'));
        if (parts.length && !parts.every((p) => p === '*')) columns.add(parts.join('.'));
      }
      walk(v, depth + 1);
    }
  };
  walk(ast, 0);
  for (const c of cteNames) tables.delete(c);
  return { tables: [...tables], columns: [...columns] };
}

const NODE_TYPES: Record<string, string> = {
  SelectStmt: 'SELECT',
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  CreateStmt: 'CREATE TABLE',
  CreateTableAsStmt: 'CREATE TABLE AS',
  ViewStmt: 'CREATE VIEW',
  IndexStmt: 'CREATE INDEX',
  CreateSeqStmt: 'CREATE SEQUENCE',
  AlterSeqStmt: 'ALTER SEQUENCE',
  CreateSchemaStmt: 'CREATE SCHEMA',
  CreateDomainStmt: 'CREATE DOMAIN',
  CreateTrigStmt: 'CREATE TRIGGER',
  RuleStmt: 'CREATE RULE',
  CreateExtensionStmt: 'CREATE EXTENSION',
  CompositeTypeStmt: 'CREATE TYPE',
  CreateEnumStmt: 'CREATE TYPE',
  CreateRangeStmt: 'CREATE TYPE',
  CreateRoleStmt: 'CREATE ROLE',
  AlterRoleStmt: 'ALTER ROLE',
  DropRoleStmt: 'DROP ROLE',
  AlterTableStmt: 'ALTER TABLE',
  AlterDomainStmt: 'ALTER DOMAIN',
  RenameStmt: 'ALTER RENAME',
  AlterObjectSchemaStmt: 'ALTER SET SCHEMA',
  AlterOwnerStmt: 'ALTER OWNER',
  AlterFunctionStmt: 'ALTER FUNCTION',
  AlterEnumStmt: 'ALTER TYPE',
  AlterPolicyStmt: 'ALTER POLICY',
  CreatePolicyStmt: 'CREATE POLICY',
  TruncateStmt: 'TRUNCATE',
  CopyStmt: 'COPY',
  ExplainStmt: 'EXPLAIN',
  VariableSetStmt: 'SET',
  VariableShowStmt: 'SHOW',
  DoStmt: 'DO',
  CallStmt: 'CALL',
  GrantStmt: 'GRANT',
  GrantRoleStmt: 'GRANT ROLE',
  CommentStmt: 'COMMENT',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
  DeallocateStmt: 'DEALLOCATE',
  DeclareCursorStmt: 'DECLARE CURSOR',
  FetchStmt: 'FETCH',
  ClosePortalStmt: 'CLOSE',
  LockStmt: 'LOCK',
  VacuumStmt: 'VACUUM',
  ClusterStmt: 'CLUSTER',
  ReindexStmt: 'REINDEX',
  CheckPointStmt: 'CHECKPOINT',
  DiscardStmt: 'DISCARD',
  ListenStmt: 'LISTEN',
  NotifyStmt: 'NOTIFY',
  UnlistenStmt: 'UNLISTEN',
  LoadStmt: 'LOAD',
  CreatedbStmt: 'CREATE DATABASE',
  DropdbStmt: 'DROP DATABASE',
  RefreshMatViewStmt: 'REFRESH MATERIALIZED VIEW',
  CreateFdwStmt: 'CREATE FOREIGN DATA WRAPPER',
  CreateForeignServerStmt: 'CREATE SERVER',
  CreateForeignTableStmt: 'CREATE FOREIGN TABLE',
  CreateUserMappingStmt: 'CREATE USER MAPPING',
  ImportForeignSchemaStmt: 'IMPORT FOREIGN SCHEMA',
  CreateEventTrigStmt: 'CREATE EVENT TRIGGER',
  CreatePublicationStmt: 'CREATE PUBLICATION',
  CreateSubscriptionStmt: 'CREATE SUBSCRIPTION',
  CreateStatsStmt: 'CREATE STATISTICS',
  CreateCastStmt: 'CREATE CAST',
  CreateOpClassStmt: 'CREATE OPERATOR CLASS',
  CreateOpFamilyStmt: 'CREATE OPERATOR FAMILY',
  CreateConversionStmt: 'CREATE CONVERSION',
  CreateTransformStmt: 'CREATE TRANSFORM',
  CreatePLangStmt: 'CREATE LANGUAGE',
  CreateAmStmt: 'CREATE ACCESS METHOD',
  CreateTableSpaceStmt: 'CREATE TABLESPACE',
  AlterDefaultPrivilegesStmt: 'ALTER DEFAULT PRIVILEGES',
  AlterSystemStmt: 'ALTER SYSTEM',
  SecLabelStmt: 'SECURITY LABEL',
  ReassignOwnedStmt: 'REASSIGN OWNED',
  DropOwnedStmt: 'DROP OWNED',
  AlterExtensionStmt: 'ALTER EXTENSION',
  AlterCollationStmt: 'ALTER COLLATION',
  AlterDatabaseStmt: 'ALTER DATABASE',
  AlterDatabaseSetStmt: 'ALTER DATABASE',
  AlterStatsStmt: 'ALTER STATISTICS',
  ConstraintsSetStmt: 'SET CONSTRAINTS',
  AlterOperatorStmt: 'ALTER OPERATOR',
  AlterTypeStmt: 'ALTER TYPE',
  AlterTSDictionaryStmt: 'ALTER TEXT SEARCH DICTIONARY',
  AlterTSConfigurationStmt: 'ALTER TEXT SEARCH CONFIGURATION',
  ReturnStmt: 'RETURN',
};

const OBJECT_TYPES: Record<string, string> = {
  OBJECT_TABLE: 'TABLE',
  OBJECT_VIEW: 'VIEW',
  OBJECT_MATVIEW: 'MATERIALIZED VIEW',
  OBJECT_INDEX: 'INDEX',
  OBJECT_SEQUENCE: 'SEQUENCE',
  OBJECT_FUNCTION: 'FUNCTION',
  OBJECT_PROCEDURE: 'PROCEDURE',
  OBJECT_ROUTINE: 'ROUTINE',
  OBJECT_AGGREGATE: 'AGGREGATE',
  OBJECT_TYPE: 'TYPE',
  OBJECT_DOMAIN: 'DOMAIN',
  OBJECT_SCHEMA: 'SCHEMA',
  OBJECT_TRIGGER: 'TRIGGER',
  OBJECT_RULE: 'RULE',
  OBJECT_EXTENSION: 'EXTENSION',
  OBJECT_FOREIGN_TABLE: 'FOREIGN TABLE',
  OBJECT_POLICY: 'POLICY',
  OBJECT_COLLATION: 'COLLATION',
  OBJECT_OPERATOR: 'OPERATOR',
  OBJECT_CAST: 'CAST',
  OBJECT_ROLE: 'ROLE',
  OBJECT_DATABASE: 'DATABASE',
  OBJECT_TABLESPACE: 'TABLESPACE',
  OBJECT_STATISTIC_EXT: 'STATISTICS',
  OBJECT_COLUMN: 'COLUMN',
};

/** Statement type from a libpg-query node, e.g. CreateFunctionStmt → CREATE FUNCTION. */
export function pgStatementType(ast: unknown): string | null {
  const node = Array.isArray(ast) ? ast[0] : ast;
  if (!node || typeof node !== 'object') return null;
  const name = Object.keys(node)[0];
  const body = (node as Record<string, Record<string, unknown>>)[name] ?? {};
  switch (name) {
    case 'CreateFunctionStmt':
      return body.is_procedure ? 'CREATE PROCEDURE' : 'CREATE FUNCTION';
    case 'DefineStmt': {
      const kind = OBJECT_TYPES[String(body.kind)] ?? String(body.kind ?? '').replace(/^OBJECT_/, '');
      return `CREATE ${kind}`;
    }
    case 'DropStmt':
      return `DROP ${OBJECT_TYPES[String(body.removeType)] ?? String(body.removeType ?? '').replace(/^OBJECT_/, '')}`.trim();
    case 'CreateTableAsStmt':
      return body.objtype === 'OBJECT_MATVIEW' ? 'CREATE MATERIALIZED VIEW' : 'CREATE TABLE AS';
    case 'AlterTableStmt': {
      const k = OBJECT_TYPES[String(body.objtype)];
      return k ? `ALTER ${k}` : 'ALTER TABLE';
    }
    case 'TransactionStmt': {
      const kind = String(body.kind ?? '')
        .replace(/^TRANS_STMT_/, '')
        .replace(/_/g, ' ');
      return kind || 'TRANSACTION';
    }
    case 'SelectStmt':
      return body.intoClause ? 'SELECT INTO' : 'SELECT';
    default:
      return (
        NODE_TYPES[name] ??
        name
          .replace(/Stmt$/, '')
          .replace(/([a-z])([A-Z])/g, '$1 $2')
          .toUpperCase()
      );
  }
}

/**
 * Splits a prefix of a script (ending at a line break): only up to the last statement
 * boundary PostgreSQL's lexer can start afresh from, and before any COPY … FROM STDIN whose
 * data runs on past the prefix. `resume` is where the next pass starts; `copyDataBlocks` counts
 * the COPY data blocks passed over (the caller warns once for the script), the one running on
 * past the prefix included.
 */
export function splitPostgresPart(text: string, final: boolean): SplitResult & { resume: number; inCopyData: boolean; copyDataBlocks: number } {
  if (final) return { ...splitText(text, false), resume: text.length, inCopyData: false };
  const pre = pgPrepass(text, false);
  const limit = pre.incompleteAt ?? text.length;
  let cut = 0;
  for (const c of pre.cuts) if (c <= limit && c < text.length) cut = c;
  if (cut === 0) return { statements: [], warnings: [], extras: { psqlMetaCommands: [] }, resume: 0, inCopyData: false, copyDataBlocks: 0 };
  // The prepass of the text up to `cut` is this one's up to there (a cut ends a token and no
  // meta-command line or COPY data runs across it): it is not run again.
  const before = (x: number): boolean => x < cut;
  const r = splitText(text.slice(0, cut), false, {
    meta: pre.meta.filter(([s]) => before(s)),
    copyData: pre.copyData.filter(([s]) => before(s)),
    cuts: pre.cuts.filter((c) => c <= cut),
    breaks: pre.breaks.filter(before),
  });
  if (pre.copyDataFrom !== undefined) return { ...r, resume: pre.copyDataFrom, inCopyData: true, copyDataBlocks: r.copyDataBlocks + 1 };
  return { ...r, resume: cut, inCopyData: false };
}

/** Inside streamed COPY data: where it ends (just past its `\.` line), or null when not in this text. */
export function copyDataEnd(text: string): number | null {
  const m = /^\\\.[ \t]*\r?$/m.exec(text);
  if (!m) return null;
  const nl = text.indexOf('\n', m.index);
  return nl < 0 ? text.length : nl + 1;
}
