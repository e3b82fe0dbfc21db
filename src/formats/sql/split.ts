// Dialect-aware statement splitting for the dialects without a native splitter in this
// service (PostgreSQL goes through libpg-query: postgres.ts; T-SQL through its grammar:
// tsql.ts). One pass of the shared lexer (lexer.ts), so a ';' inside a string, comment,
// quoted identifier or dollar body never splits. Then per dialect:
//   Snowflake — ';' ends a statement, except inside $$ bodies and scripting blocks
//               (DECLARE … BEGIN … END, BEGIN … END, also after `AS` in tasks/procedures,
//               and IF / CASE / LOOP / WHILE / FOR / REPEAT … END … inside them).
//   BigQuery  — the same, and scripting statements (IF … END IF, loops) at the top level too;
//               triple-quoted and raw strings.
//   MySql     — ';' or the current `DELIMITER` (a client directive, reported, not counted),
//               except inside the BEGIN … END body of a stored program (procedure, function,
//               trigger, event), which the server's grammar reads as one statement.
//   Sqlite    — ';' outside CREATE TRIGGER … BEGIN … END.
//   Oracle    — ';' for SQL; PL/SQL units (DECLARE/BEGIN/CREATE PROCEDURE|FUNCTION|
//               PACKAGE|TRIGGER|TYPE) run to a line holding only '/'; SQL*Plus lines are directives.
// The split can run over a prefix of the script (streaming): it then returns only statements
// more text cannot change, and where to resume.

import { LEX, Lexer, type GenericDialect, type Token } from './lexer.js';
import { splitTsql } from './tsql.js';
import type { Dialect, RawStatement } from './statements.js';

export type { GenericDialect } from './lexer.js';

export const DIALECTS: readonly Dialect[] = ['PostgreSql', 'MsSql', 'Snowflake', 'MySql', 'BigQuery', 'Sqlite', 'Oracle'];

const DIALECT_ALIASES: Record<string, Dialect> = {
  postgresql: 'PostgreSql',
  postgres: 'PostgreSql',
  pg: 'PostgreSql',
  pgsql: 'PostgreSql',
  mssql: 'MsSql',
  tsql: 'MsSql',
  transactsql: 'MsSql',
  sqlserver: 'MsSql',
  snowflake: 'Snowflake',
  mysql: 'MySql',
  mariadb: 'MySql',
  bigquery: 'BigQuery',
  sqlite: 'Sqlite',
  sqlite3: 'Sqlite',
  oracle: 'Oracle',
  plsql: 'Oracle',
};

/** Canonical dialect for a spelling (case-insensitive; '-', '_' and spaces ignored). */
export function normalizeDialect(v: string | undefined): Dialect | null {
  if (!v) return null;
  return DIALECT_ALIASES[v.toLowerCase().replace(/[-_\s]/g, '')] ?? null;
}

export interface SplitResult {
  statements: RawStatement[];
  warnings: string[];
  extras: Record<string, unknown>;
}

const SLASH_LINE = /[ \t]*\/[ \t]*(?=\r?\n|$)/y;
const DELIMITER_LINE = /[ \t]*delimiter[ \t]+(\S+)[ \t]*(?=\r?\n|$)/iy;
/** SQL*Plus client commands, one line each, between statements (not SQL, not counted). */
const SQLPLUS_LINE =
  /[ \t]*(?:rem(?:ark)?\b|pro(?:mpt)?\b|spo(?:ol)?\b|@@?|whenever\b|def(?:ine)?\b|undef(?:ine)?\b|col(?:umn)?\b|conn(?:ect)?\b|exit\b|quit\b|show\s+err|sho(?:w)?\s+errors|set\s+(?:serveroutput|serverout|define|echo|feedback|verify|linesize|lines|pagesize|pages|heading|timing|termout|trimspool|trimout|sqlblanklines|long|scan|escape|autocommit|sqlprompt|colsep|newpage|wrap|arraysize|head|term|ver|feed)\b)[^\r\n]*/iy;
const PLSQL_UNIT = /^(declare|begin|create(\s+or\s+replace)?(\s+(editionable|noneditionable))?\s+(function|procedure|package|trigger|type|library|java))\b/i;

/** Scripting statements that open a block closed by END [word] (BigQuery, Snowflake scripting). */
const BLOCK_OPENERS = new Set(['if', 'loop', 'while', 'repeat', 'for', 'case']);
/** Words after which the next word stands at the start of a statement inside a script. */
const STATEMENT_BEFORE = new Set([';', 'begin', 'then', 'else', 'do', 'loop', 'repeat', 'as']);

/** MySQL: CREATE [DEFINER = …] PROCEDURE | FUNCTION | TRIGGER | EVENT (first words, lower case). */
function routine(words: string[]): boolean {
  return words[0] === 'create' && words.slice(1, 5).some((x) => x === 'procedure' || x === 'function' || x === 'trigger' || x === 'event');
}

function matchAt(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

export interface GenericState {
  /** MySQL: the current DELIMITER. */
  delimiter: string;
  /** T-SQL: the batch index. */
  batch: number;
}

export interface PartialSplit extends SplitResult {
  /** Offset where a pass over more text starts again (text.length when final). */
  resume: number;
  state: GenericState;
  directives: { offset: number; text: string; kind: string }[];
}

export const INITIAL_STATE: GenericState = { delimiter: ';', batch: 0 };

/** Splits a whole text for every dialect except PostgreSql (see the header comment). */
export function splitGeneric(text: string, dialect: GenericDialect): SplitResult {
  const r = splitGenericPart(text, dialect, true, INITIAL_STATE);
  const extras: Record<string, unknown> = {};
  if (dialect === 'MySql') extras.delimiterDirectives = r.directives;
  if (dialect === 'Oracle') extras.sqlplusCommands = r.directives;
  if (dialect === 'MsSql') extras.tsqlDirectives = r.directives;
  return { statements: r.statements, warnings: r.warnings, extras };
}

/**
 * Splits `text`; when `final` is false the text is a prefix of the script (ending at a line
 * break) and only statements that more text cannot change are returned, with where to resume.
 */
export function splitGenericPart(text: string, dialect: GenericDialect, final: boolean, state: GenericState): PartialSplit {
  if (dialect === 'MsSql') {
    const r = splitTsql(text, final, state.batch);
    return { statements: r.statements, warnings: r.warnings, extras: {}, resume: r.resume, state: { ...state, batch: r.batch }, directives: r.directives };
  }
  const lx = new Lexer(text, LEX[dialect]);
  const statements: RawStatement[] = [];
  const warnings: string[] = [];
  const directives: { offset: number; text: string; kind: string }[] = [];
  const directiveKind = dialect === 'MySql' ? 'delimiter' : 'sqlplus';
  let delimiter = state.delimiter;
  let safe = 0;
  let safeDelimiter = delimiter;
  let needMore = false;

  // State of the statement being read.
  let start = -1;
  let last = -1;
  let paren = 0;
  let blocks: string[] = []; // open scripting / trigger blocks
  let declarePending = false;
  let plsql = false;
  let bodyDone = false; // MySQL: the BEGIN … END body of a stored program has closed
  let words: string[] = []; // first words of the statement, lower case
  let prev = ''; // previous significant token, lower case

  const reset = (): void => {
    start = -1;
    last = -1;
    paren = 0;
    blocks = [];
    declarePending = false;
    plsql = false;
    bodyDone = false;
    words = [];
    prev = '';
  };
  const close = (terminator: string | null, termEnd: number): void => {
    if (start >= 0) statements.push({ start, end: last, terminator, termEnd });
    reset();
    safe = termEnd;
    safeDelimiter = delimiter;
  };

  /** Next significant word or punct after `pos` (peek without consuming). */
  const peek = (pos: number): string => {
    const saved = lx.pos;
    const savedU = lx.unterminated;
    lx.pos = pos;
    let tok: Token | null;
    let out = '';
    while ((tok = lx.next())) {
      if (tok.kind === 'space' || tok.kind === 'comment') continue;
      out = text.slice(tok.start, tok.end).toLowerCase();
      break;
    }
    if (!out && !final) needMore = true;
    lx.pos = saved;
    lx.unterminated = savedU;
    return out;
  };

  const atLineStart = (p: number): boolean => p === 0 || text[p - 1] === '\n' || (text[p - 1] === '\r' && text[p] !== '\n');

  for (;;) {
    const p = lx.pos;
    if (p >= text.length) break;
    if (atLineStart(p)) {
      if (dialect === 'Oracle') {
        const m = matchAt(SLASH_LINE, text, p);
        if (m && (start < 0 || plsql || paren === 0)) {
          lx.pos = p + m[0].length;
          close('/', lx.pos);
          continue;
        }
        const sp = start < 0 ? matchAt(SQLPLUS_LINE, text, p) : null;
        if (sp) {
          directives.push({ offset: p, text: sp[0].trim(), kind: directiveKind });
          lx.pos = p + sp[0].length;
          continue;
        }
      } else if (dialect === 'MySql' && start < 0) {
        const m = matchAt(DELIMITER_LINE, text, p);
        if (m) {
          delimiter = m[1];
          directives.push({ offset: p, text: m[0].trim(), kind: directiveKind });
          lx.pos = p + m[0].length;
          continue;
        }
      }
    }
    if (delimiter !== ';' && text.startsWith(delimiter, p)) {
      lx.pos = p + delimiter.length;
      close(delimiter, lx.pos);
      continue;
    }
    const tok = lx.next();
    if (!tok) break;
    if (!final && (tok.end >= text.length || needMore)) break;
    if (tok.kind === 'space' || tok.kind === 'comment') continue;
    const s = text.slice(tok.start, tok.end);
    if (tok.kind === 'punct' && s === ';' && delimiter === ';') {
      if (start < 0) continue;
      if (paren === 0 && blocks.length === 0 && !declarePending && !plsql) {
        close(';', tok.end);
        continue;
      }
    }
    // MySQL scripts read by a grammar, not the client, may omit the ';' after a stored program.
    if (bodyDone && s !== ';') close(null, last);
    if (start < 0) start = tok.start;
    last = tok.end;
    if (tok.kind === 'punct') {
      if (s === '(') paren++;
      else if (s === ')' && paren > 0) paren--;
      prev = s;
      continue;
    }
    if (tok.kind !== 'word') {
      prev = '';
      continue;
    }
    const w = s.toLowerCase();
    if (words.length < 6) {
      words.push(w);
      if (dialect === 'Oracle' && PLSQL_UNIT.test(words.join(' '))) plsql = true;
    }
    if (paren > 0) {
      prev = w;
      continue;
    }
    if (dialect === 'Snowflake' || dialect === 'BigQuery') {
      const atStatement = words.length === 1 || STATEMENT_BEFORE.has(prev) || (words[0] === 'create' && words.includes('procedure') && blocks.length === 0);
      if (w === 'declare' && dialect === 'Snowflake' && atStatement && blocks.length === 0) declarePending = true;
      else if (w === 'begin' && (atStatement || declarePending)) {
        const nx = peek(tok.end);
        const transaction = nx === ';' || nx === '' || nx === 'transaction' || nx === 'work' || nx === 'name';
        if (!transaction) {
          blocks.push('begin');
          declarePending = false;
        }
      } else if (w === 'end' && blocks.length > 0) {
        const opened = blocks.pop()!;
        // END IF / END LOOP / END CASE …: the word after END names the block it closes.
        if (opened !== 'begin' && opened !== 'case-expr' && peek(tok.end) === opened) {
          let t2: Token | null;
          while ((t2 = lx.next()) && (t2.kind === 'space' || t2.kind === 'comment'));
          if (t2) last = t2.end;
        }
      } else if (w === 'case') blocks.push(atStatement && (blocks.length > 0 || dialect === 'BigQuery') ? 'case' : 'case-expr');
      else if (BLOCK_OPENERS.has(w) && w !== 'case' && atStatement && (blocks.length > 0 || (dialect === 'BigQuery' && words.length === 1))) {
        if (!(w === 'if' && peek(tok.end) === 'exists') && !(w === 'for' && dialect === 'Snowflake' && peek(tok.end) === 'update')) blocks.push(w);
      }
    } else if (dialect === 'MySql') {
      // A stored program (procedure, function, trigger, event) is one statement to the server's
      // grammar, ';'s of its BEGIN … END body included; DELIMITER is only the mysql client's way
      // to send it whole. Scripts without DELIMITER (e.g. run by a driver or an IDE) rely on that.
      if (routine(words)) {
        const atStatement = blocks.length === 0 || STATEMENT_BEFORE.has(prev) || prev === ':';
        // Inside a stored program BEGIN always opens a block (transactions start with START TRANSACTION there).
        if (w === 'begin') blocks.push('begin');
        else if (w === 'end' && blocks.length > 0) {
          const opened = blocks.pop()!;
          if (opened !== 'begin' && opened !== 'case-expr' && peek(tok.end) === opened) {
            let t2: Token | null;
            while ((t2 = lx.next()) && (t2.kind === 'space' || t2.kind === 'comment'));
            if (t2) last = t2.end;
          }
          // The body is the last part of a stored program: its END ends the statement.
          if (blocks.length === 0) bodyDone = true;
        } else if (w === 'case' && blocks.length > 0) blocks.push(atStatement ? 'case' : 'case-expr');
        else if (BLOCK_OPENERS.has(w) && blocks.length > 0 && atStatement) blocks.push(w);
      }
    } else if (dialect === 'Sqlite') {
      const trigger = words[0] === 'create' && (words[1] === 'trigger' || words[2] === 'trigger');
      if (trigger) {
        if (w === 'begin') blocks.push('begin');
        else if (w === 'case' && blocks.length > 0) blocks.push('case-expr');
        else if (w === 'end' && blocks.length > 0) blocks.pop();
      }
    }
    prev = w;
  }
  if (final) {
    if (start >= 0) close(null, text.length);
    if (lx.unterminated) warnings.push(`${lx.unterminated}: the statement runs to the end of the file`);
    if (blocks.length > 0 || declarePending) warnings.push('a scripting block (BEGIN … END) is not closed at the end of the file');
    safe = text.length;
  }
  return {
    statements,
    warnings,
    extras: {},
    resume: safe,
    state: { ...state, delimiter: final ? delimiter : safeDelimiter },
    directives: directives.filter((d) => d.offset < safe),
  };
}

export interface PgPrepass {
  /** psql meta-command lines: [start, end) up to the line break. */
  meta: [number, number][];
  /** Inline data of COPY … FROM STDIN, through its terminating "\\." line. */
  copyData: [number, number][];
  /** Offsets just after a ';' where PostgreSQL's lexer can start afresh (statement boundaries
   *  outside parentheses and outside CREATE FUNCTION/PROCEDURE, whose BEGIN ATOMIC bodies hold ';'). */
  cuts: number[];
  /** Offsets inside statements where PostgreSQL's lexer can start afresh too (a run of
   *  whitespace, or just after ',', '(' or ')', outside strings and comments), about
   *  PG_BREAK_CHARS apart: a statement of any length is scanned in bounded pieces. */
  breaks: number[];
  /** Not final: offset of a COPY … FROM STDIN whose data does not end in the text (cuts stop before it). */
  incompleteAt?: number;
  /** Not final: where the data of a COPY … FROM STDIN begins that runs on past COPY_HOLD_CHARS (the last cut is the COPY's end). */
  copyDataFrom?: number;
}

/** Streaming: COPY data not ended within this many chars is taken to be data (as psql reads it) and skipped as it streams. */
export const COPY_HOLD_CHARS = 16 * 1024 * 1024;

/** Least distance between two `breaks` (chars). */
export const PG_BREAK_CHARS = 32 * 1024;

function lineEndAt(text: string, at: number): number {
  let end = text.indexOf('\n', at);
  if (end < 0) end = text.length;
  if (end > at && text[end - 1] === '\r') end--;
  return end;
}

/**
 * One linear pass over PostgreSQL text with the fallback lexer: finds psql meta-command
 * lines (a backslash first on a line, outside strings, comments and dollar bodies), the
 * inline data of COPY … FROM STDIN (which psql reads up to a "\\." line), and safe cut points.
 */
export function pgPrepass(text: string, final = true): PgPrepass {
  const lx = new Lexer(text, LEX.PgFallback);
  const out: PgPrepass = { meta: [], copyData: [], cuts: [], breaks: [] };
  let lastBreak = 0;
  let words: string[] = [];
  let statementStart = -1;
  let paren = 0;
  let copyStdin = false;
  for (;;) {
    const tok = lx.next();
    if (!tok) break;
    const c = text.charCodeAt(tok.start);
    if (tok.start - lastBreak >= PG_BREAK_CHARS && (tok.kind === 'space' || (tok.kind === 'punct' && (c === 44 || c === 40 || c === 41)))) {
      // No PostgreSQL token runs on across whitespace or past ',', '(' and ')'.
      lastBreak = tok.kind === 'space' ? tok.start : tok.end;
      out.breaks.push(lastBreak);
    }
    if (tok.kind === 'space' || tok.kind === 'comment') continue;
    if (tok.kind === 'punct' && c === 92) {
      let i = tok.start - 1;
      while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
      if (i < 0 || text[i] === '\n' || text[i] === '\r') {
        const end = lineEndAt(text, tok.start);
        out.meta.push([tok.start, end]);
        lx.pos = end;
        continue;
      }
    }
    if (tok.kind === 'punct' && c === 59 && paren === 0) {
      const fn =
        words[0] === 'create' &&
        (words[1] === 'function' || words[1] === 'procedure' || (words[1] === 'or' && (words[3] === 'function' || words[3] === 'procedure')));
      if (copyStdin) {
        // Data starts on the next line and runs to a line holding only "\.". Scripts with the
        // data removed (no such line before the next FROM STDIN) have no inline data.
        const eol = text.indexOf('\n', tok.end);
        const dataStart = eol < 0 ? text.length : eol + 1;
        const re = /^\\\.[ \t]*\r?$|\bfrom\s+stdin\b/gim;
        re.lastIndex = dataStart;
        const m = re.exec(text);
        if (m && m[0].startsWith('\\')) {
          const dataEnd = lineEndAt(text, m.index);
          if (dataEnd > dataStart) out.copyData.push([dataStart, dataEnd]);
          lx.pos = dataEnd;
        } else if (!m && !final) {
          if (text.length - dataStart < COPY_HOLD_CHARS) {
            // The data may end a little further on: nothing from this COPY on is certain yet.
            out.incompleteAt = statementStart;
          } else {
            // A large data block (pg_dump): the COPY is a statement, its data is skipped as it streams.
            out.cuts.push(tok.end);
            out.copyDataFrom = dataStart;
          }
          return out;
        }
      }
      if (!fn) out.cuts.push(lx.pos > tok.end ? lx.pos : tok.end);
      statementStart = -1;
      words = [];
      paren = 0;
      copyStdin = false;
      continue;
    }
    if (statementStart < 0) statementStart = tok.start;
    if (tok.kind === 'punct') {
      if (c === 40) paren++;
      else if (c === 41 && paren > 0) paren--;
      continue;
    }
    if (tok.kind === 'word') {
      const w = text.slice(tok.start, tok.end).toLowerCase();
      if (words.length < 4) words.push(w);
      if (words[0] === 'copy' && w === 'stdin' && paren === 0) copyStdin = true;
    }
  }
  return out;
}
