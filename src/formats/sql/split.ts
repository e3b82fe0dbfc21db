// Dialect-aware statement splitting for the dialects without a native parser in this
// service (PostgreSQL goes through libpg-query: postgres.ts). One pass of a small lexer
// that knows each dialect's strings, quoted identifiers, comments and dollar bodies, so a
// ';' inside any of them never splits. Then per dialect:
//   MsSql     — GO batches (a line holding only `GO` or `GO n`); the batch is the unit, as
//               SQL Server executes it (semicolons are optional in T-SQL and do not split).
//   Snowflake — ';' ends a statement, except inside $$ bodies and scripting blocks
//               (DECLARE … BEGIN … END, BEGIN … END, also after `AS` in tasks/procedures).
//   BigQuery  — ';' outside BEGIN … END scripting blocks; triple-quoted and raw strings.
//   MySql     — ';' or the current `DELIMITER`; backslash escapes; `#` comments.
//   Sqlite    — ';' outside CREATE TRIGGER … BEGIN … END.
//   Oracle    — ';' for SQL; PL/SQL units (DECLARE/BEGIN/CREATE PROCEDURE|FUNCTION|
//               PACKAGE|TRIGGER|TYPE) run to a line holding only '/'.

export type Dialect = 'PostgreSql' | 'MsSql' | 'Snowflake' | 'MySql' | 'BigQuery' | 'Sqlite' | 'Oracle';

export const DIALECTS: readonly Dialect[] = ['PostgreSql', 'MsSql', 'Snowflake', 'MySql', 'BigQuery', 'Sqlite', 'Oracle'];

const DIALECT_ALIASES: Record<string, Dialect> = {
  postgresql: 'PostgreSql', postgres: 'PostgreSql', pg: 'PostgreSql', pgsql: 'PostgreSql',
  mssql: 'MsSql', tsql: 'MsSql', transactsql: 'MsSql', sqlserver: 'MsSql',
  snowflake: 'Snowflake', mysql: 'MySql', mariadb: 'MySql', bigquery: 'BigQuery',
  sqlite: 'Sqlite', sqlite3: 'Sqlite', oracle: 'Oracle', plsql: 'Oracle',
};

/** Canonical dialect for a spelling (case-insensitive; '-', '_' and spaces ignored). */
export function normalizeDialect(v: string | undefined): Dialect | null {
  if (!v) return null;
  return DIALECT_ALIASES[v.toLowerCase().replace(/[-_\s]/g, '')] ?? null;
}

export interface RawStatement {
  /** String offset of the statement's first token (leading comments excluded). */
  start: number;
  /** String offset just after its last token (terminator excluded). */
  end: number;
  /** What ended it: ';', 'GO', '/', a custom MySQL delimiter, or null at end of file. */
  terminator: string | null;
  /** Offset just after the terminator. */
  termEnd: number;
  /** T-SQL `GO n`: how many times the batch is executed. */
  repeat?: number;
  /** T-SQL: the batch's ';'-terminated statements (outside BEGIN … END and CASE … END), when more than one. */
  parts?: [number, number][];
  /** PostgreSQL: a psql `\copy` line (client-side COPY), counted as a statement. */
  psqlCopy?: boolean;
}

export interface SplitResult {
  statements: RawStatement[];
  warnings: string[];
  extras: Record<string, unknown>;
}

interface LexConfig {
  backslashEscapes: boolean;
  doubleQuoteString: boolean;
  backtickIdent: boolean;
  bracketIdent: boolean;
  hashComment: boolean;
  slashSlashComment: boolean;
  nestedComments: boolean;
  dollarBodies: boolean;
  tripleQuotes: boolean;
  oracleQQuote: boolean;
  mysqlDashComment: boolean;
  /** PostgreSQL: $tag$ … $tag$ bodies and E'…' escapes (fallback lexer only). */
  pgStrings: boolean;
}

const BASE: LexConfig = {
  backslashEscapes: false, doubleQuoteString: false, backtickIdent: false, bracketIdent: false, hashComment: false,
  slashSlashComment: false, nestedComments: false, dollarBodies: false, tripleQuotes: false, oracleQQuote: false, mysqlDashComment: false,
  pgStrings: false,
};

/** Dialects splitGeneric handles; PgFallback is PostgreSQL when its own lexer gives up. */
export type GenericDialect = Exclude<Dialect, 'PostgreSql'> | 'PgFallback';

const LEX: Record<GenericDialect, LexConfig> = {
  PgFallback: { ...BASE, nestedComments: true, pgStrings: true },
  MsSql: { ...BASE, bracketIdent: true, nestedComments: true },
  Snowflake: { ...BASE, backslashEscapes: true, slashSlashComment: true, dollarBodies: true },
  MySql: { ...BASE, backslashEscapes: true, doubleQuoteString: true, backtickIdent: true, hashComment: true, mysqlDashComment: true },
  BigQuery: { ...BASE, backslashEscapes: true, doubleQuoteString: true, backtickIdent: true, hashComment: true, tripleQuotes: true },
  Sqlite: { ...BASE, backtickIdent: true, bracketIdent: true },
  Oracle: { ...BASE, oracleQQuote: true },
};

type Kind = 'space' | 'comment' | 'string' | 'ident' | 'word' | 'punct' | 'other';

interface Token {
  kind: Kind;
  start: number;
  end: number;
}

const isWordStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128 || c === 64 || c === 35;
const isWordChar = (c: number): boolean => isWordStart(c) || (c >= 48 && c <= 57) || c === 36;

class Lexer {
  pos = 0;
  unterminated: string | null = null;

  constructor(private readonly text: string, private readonly cfg: LexConfig) {}

  /** Next token at `pos`, or null at the end. */
  next(): Token | null {
    const t = this.text;
    const n = t.length;
    const s = this.pos;
    if (s >= n) return null;
    const c = t.charCodeAt(s);
    const c2 = t.charCodeAt(s + 1);
    let e = s + 1;
    let kind: Kind = 'other';
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11) {
      while (e < n && /[\s]/.test(t[e])) e++;
      kind = 'space';
    } else if ((c === 45 && c2 === 45 && (!this.cfg.mysqlDashComment || s + 2 >= n || /\s/.test(t[s + 2]))) || (c === 35 && this.cfg.hashComment) || (c === 47 && c2 === 47 && this.cfg.slashSlashComment)) {
      e = t.indexOf('\n', s);
      if (e < 0) e = n;
      kind = 'comment';
    } else if (c === 47 && c2 === 42) {
      e = this.blockComment(s);
      kind = 'comment';
    } else if (c === 39) {
      e = this.tripleOr(s, "'") ?? this.quoted(s, "'", this.cfg.backslashEscapes);
      kind = 'string';
    } else if (c === 34) {
      if (this.cfg.doubleQuoteString) {
        e = this.tripleOr(s, '"') ?? this.quoted(s, '"', this.cfg.backslashEscapes);
        kind = 'string';
      } else {
        e = this.quoted(s, '"', false);
        kind = 'ident';
      }
    } else if (c === 96 && this.cfg.backtickIdent) {
      e = this.quoted(s, '`', false);
      kind = 'ident';
    } else if (c === 91 && this.cfg.bracketIdent) {
      e = this.quoted(s, ']', false, 1);
      kind = 'ident';
    } else if (c === 36 && c2 === 36 && this.cfg.dollarBodies) {
      const close = t.indexOf('$$', s + 2);
      if (close < 0) {
        this.unterminated ??= `unterminated $$ body starting at offset ${s}`;
        e = n;
      } else e = close + 2;
      kind = 'string';
    } else if (c === 36 && this.cfg.pgStrings && /^\$([A-Za-z_][A-Za-z_0-9]*)?\$/.test(t.slice(s, s + 66))) {
      const tag = /^\$([A-Za-z_][A-Za-z_0-9]*)?\$/.exec(t.slice(s, s + 66))![0];
      const close = t.indexOf(tag, s + tag.length);
      if (close < 0) {
        this.unterminated ??= `unterminated ${tag} body starting at offset ${s}`;
        e = n;
      } else e = close + tag.length;
      kind = 'string';
    } else if (this.cfg.oracleQQuote && (c === 113 || c === 81) && c2 === 39 && s + 2 < n) {
      const open = t[s + 2];
      const closeCh = ({ '[': ']', '{': '}', '(': ')', '<': '>' } as Record<string, string>)[open] ?? open;
      const close = t.indexOf(closeCh + "'", s + 3);
      if (close < 0) {
        this.unterminated ??= `unterminated q-quoted string starting at offset ${s}`;
        e = n;
      } else e = close + 2;
      kind = 'string';
    } else if (isWordStart(c)) {
      while (e < n && isWordChar(t.charCodeAt(e))) e++;
      // String prefixes: N'..', E'..', r'..', b'..', X'..' are one string token.
      const next = t.charCodeAt(e);
      if ((next === 39 || (next === 34 && this.cfg.doubleQuoteString)) && e - s <= 2 && /^[nNeErRbBxX]{1,2}$/.test(t.slice(s, e))) {
        const prefix = t.slice(s, e);
        const raw = /[rR]/.test(prefix);
        const q = t[e];
        const esc = (this.cfg.backslashEscapes && !raw) || (this.cfg.pgStrings && /[eE]/.test(prefix));
        e = this.tripleOr(e, q) ?? this.quoted(e, q, esc);
        kind = 'string';
      } else kind = 'word';
    } else if (c >= 48 && c <= 57) {
      while (e < n && /[0-9A-Za-z_.]/.test(t[e])) e++;
      kind = 'other';
    } else kind = 'punct';
    this.pos = e;
    return { kind, start: s, end: e };
  }

  private blockComment(s: number): number {
    const t = this.text;
    let depth = 1;
    let i = s + 2;
    while (i < t.length) {
      if (t.charCodeAt(i) === 42 && t.charCodeAt(i + 1) === 47) {
        depth--;
        i += 2;
        if (depth === 0 || !this.cfg.nestedComments) return i;
      } else if (this.cfg.nestedComments && t.charCodeAt(i) === 47 && t.charCodeAt(i + 1) === 42) {
        depth++;
        i += 2;
      } else i++;
    }
    this.unterminated ??= `unterminated /* comment starting at offset ${s}`;
    return t.length;
  }

  private tripleOr(s: number, q: string): number | null {
    if (!this.cfg.tripleQuotes) return null;
    const t = this.text;
    if (t.startsWith(q + q + q, s)) {
      const close = t.indexOf(q + q + q, s + 3);
      if (close < 0) {
        this.unterminated ??= `unterminated triple-quoted string starting at offset ${s}`;
        return t.length;
      }
      return close + 3;
    }
    return null;
  }

  /** A quoted run from `s` (opening char at s) to just after the closing `q`; doubled q escapes. */
  private quoted(s: number, q: string, backslash: boolean, skip = 1): number {
    const t = this.text;
    let i = s + skip;
    const qc = q.charCodeAt(0);
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (backslash && c === 92) {
        i += 2;
        continue;
      }
      if (c === qc) {
        if (t.charCodeAt(i + 1) === qc) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    this.unterminated ??= `unterminated ${q === ']' ? '[identifier]' : q + '-quoted text'} starting at offset ${s}`;
    return t.length;
  }
}

const GO_LINE = /[ \t]*go(?:[ \t]+(\d+))?[ \t]*(?:--[^\n]*)?(?=\r?\n|$)/iy;
const SLASH_LINE = /[ \t]*\/[ \t]*(?=\r?\n|$)/y;
const DELIMITER_LINE = /[ \t]*delimiter[ \t]+(\S+)[ \t]*(?=\r?\n|$)/iy;
/** SQL*Plus client commands, one line each, between statements (not SQL, not counted). */
const SQLPLUS_LINE =
  /[ \t]*(?:rem(?:ark)?\b|pro(?:mpt)?\b|spo(?:ol)?\b|@@?|whenever\b|def(?:ine)?\b|undef(?:ine)?\b|col(?:umn)?\b|conn(?:ect)?\b|exit\b|quit\b|show\s+err|sho(?:w)?\s+errors|set\s+(?:serveroutput|serverout|define|echo|feedback|verify|linesize|lines|pagesize|pages|heading|timing|termout|trimspool|trimout|sqlblanklines|long|scan|escape|autocommit|sqlprompt|colsep|newpage|wrap|arraysize|head|term|ver|feed)\b)[^\r\n]*/iy;
const PLSQL_UNIT = /^(declare|begin|create(\s+or\s+replace)?(\s+(editionable|noneditionable))?\s+(function|procedure|package|trigger|type|library|java))\b/i;

function matchAt(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

/** Splits text for every dialect except PostgreSql (see the header comment). */
export function splitGeneric(text: string, dialect: GenericDialect): SplitResult {
  const lx = new Lexer(text, LEX[dialect]);
  const statements: RawStatement[] = [];
  const warnings: string[] = [];
  const directives: { offset: number; text: string }[] = [];
  let delimiter = ';';

  // State of the statement being read.
  let start = -1;
  let last = -1;
  let paren = 0;
  let depth = 0; // scripting/trigger/PL/SQL block depth
  let declarePending = false;
  let plsql = false;
  let words: string[] = []; // first words of the statement, lower case
  let pendingEnd = false; // previous word was END inside a block
  let prevWord = '';
  let parts: [number, number][] = []; // T-SQL statements inside the batch
  let partStart = -1;
  let partLast = -1;

  const reset = (): void => {
    start = -1;
    last = -1;
    paren = 0;
    depth = 0;
    declarePending = false;
    plsql = false;
    words = [];
    pendingEnd = false;
    prevWord = '';
    parts = [];
    partStart = -1;
    partLast = -1;
  };
  const close = (terminator: string | null, termEnd: number, repeat?: number): void => {
    if (partStart >= 0) parts.push([partStart, partLast]);
    if (start >= 0) statements.push({ start, end: last, terminator, termEnd, ...(repeat !== undefined ? { repeat } : {}), ...(parts.length > 1 ? { parts } : {}) });
    reset();
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
    lx.pos = saved;
    lx.unterminated = savedU;
    return out;
  };

  const atLineStart = (p: number): boolean => p === 0 || text[p - 1] === '\n' || (text[p - 1] === '\r' && text[p] !== '\n');

  for (;;) {
    const p = lx.pos;
    if (p >= text.length) break;
    if (atLineStart(p)) {
      if (dialect === 'MsSql') {
        const m = matchAt(GO_LINE, text, p);
        if (m) {
          lx.pos = p + m[0].length;
          const n = m[1] ? Number(m[1]) : undefined;
          close(n !== undefined ? `GO ${n}` : 'GO', lx.pos, n);
          continue;
        }
      } else if (dialect === 'Oracle') {
        const m = matchAt(SLASH_LINE, text, p);
        if (m && (start < 0 || plsql || paren === 0)) {
          lx.pos = p + m[0].length;
          close('/', lx.pos);
          continue;
        }
        const sp = start < 0 ? matchAt(SQLPLUS_LINE, text, p) : null;
        if (sp) {
          directives.push({ offset: p, text: sp[0].trim() });
          lx.pos = p + sp[0].length;
          continue;
        }
      } else if (dialect === 'MySql' && start < 0) {
        const m = matchAt(DELIMITER_LINE, text, p);
        if (m) {
          delimiter = m[1];
          directives.push({ offset: p, text: m[0].trim() });
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
    if (tok.kind === 'space' || tok.kind === 'comment') continue;
    const s = text.slice(tok.start, tok.end);
    if (tok.kind === 'punct' && s === ';' && dialect !== 'MsSql' && delimiter === ';') {
      if (start < 0) continue;
      if (paren === 0 && depth === 0 && !declarePending && !plsql) {
        close(';', tok.end);
        continue;
      }
    }
    if (start < 0) start = tok.start;
    last = tok.end;
    if (dialect === 'MsSql') {
      if (s === ';' && paren === 0 && depth === 0) {
        if (partStart >= 0) parts.push([partStart, partLast]);
        partStart = -1;
        continue;
      }
      if (s !== ';') {
        if (partStart < 0) partStart = tok.start;
        partLast = tok.end;
      }
      if (tok.kind === 'word' && paren === 0) {
        const w = s.toLowerCase();
        if (w === 'begin') {
          const nx = peek(tok.end);
          if (!/^(tran|transaction|distributed|dialog|conversation)$/.test(nx)) depth++;
        } else if (w === 'case') depth++;
        else if (w === 'end' && depth > 0 && peek(tok.end) !== 'conversation') depth--;
      }
    }
    if (tok.kind === 'punct') {
      if (s === '(') paren++;
      else if (s === ')' && paren > 0) paren--;
      prevWord = '';
      pendingEnd = false;
      continue;
    }
    if (tok.kind !== 'word') {
      prevWord = '';
      continue;
    }
    const w = s.toLowerCase();
    if (words.length < 6) {
      words.push(w);
      if (dialect === 'Oracle' && PLSQL_UNIT.test(words.join(' '))) plsql = true;
    }
    if (paren > 0) {
      prevWord = w;
      continue;
    }
    if (dialect === 'Snowflake' || dialect === 'BigQuery') {
      const head = words.length === 1 || prevWord === 'as' || (words[0] === 'create' && words.includes('procedure'));
      if (w === 'declare' && dialect === 'Snowflake' && head && depth === 0) declarePending = true;
      else if (w === 'begin') {
        const nx = peek(tok.end);
        const transaction = nx === ';' || nx === '' || nx === 'transaction' || nx === 'work' || nx === 'name';
        if (!transaction && (head || depth > 0 || declarePending)) {
          depth++;
          declarePending = false;
        }
      } else if (pendingEnd && /^(if|loop|for|while|repeat)$/.test(w)) {
        depth++; // END IF / END LOOP …: that END closed no block
      } else if (pendingEnd && w === 'case') {
        // END CASE closes the CASE counted below
      } else if (depth > 0) {
        if (w === 'case') depth++;
        else if (w === 'end') {
          depth--;
          pendingEnd = true;
          prevWord = w;
          continue;
        }
      }
      pendingEnd = false;
    } else if (dialect === 'Sqlite') {
      const trigger = words[0] === 'create' && (words[1] === 'trigger' || words[2] === 'trigger');
      if (trigger) {
        if (w === 'begin') depth++;
        else if (w === 'case' && depth > 0) depth++;
        else if (w === 'end' && depth > 0) depth--;
      }
    }
    prevWord = w;
  }
  if (start >= 0) close(null, text.length);
  if (lx.unterminated) warnings.push(`${lx.unterminated}: the statement runs to the end of the file`);
  if (depth > 0 || declarePending) warnings.push('a scripting block (BEGIN … END) is not closed at the end of the file');
  const extras: Record<string, unknown> = {};
  if (dialect === 'MySql') extras.delimiterDirectives = directives;
  if (dialect === 'Oracle') extras.sqlplusCommands = directives;
  return { statements, warnings, extras };
}

export interface PgPrepass {
  /** psql meta-command lines: [start, end) up to the line break. */
  meta: [number, number][];
  /** Inline data of COPY … FROM STDIN, through its terminating "\\." line. */
  copyData: [number, number][];
  /** Offsets just after a ';' where PostgreSQL's lexer can start afresh (statement boundaries
   *  outside parentheses and outside CREATE FUNCTION/PROCEDURE, whose BEGIN ATOMIC bodies hold ';'). */
  cuts: number[];
}

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
export function pgPrepass(text: string): PgPrepass {
  const lx = new Lexer(text, LEX.PgFallback);
  const out: PgPrepass = { meta: [], copyData: [], cuts: [] };
  let words: string[] = [];
  let paren = 0;
  let copyStdin = false;
  for (;;) {
    const tok = lx.next();
    if (!tok) break;
    if (tok.kind === 'space' || tok.kind === 'comment') continue;
    const c = text.charCodeAt(tok.start);
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
      const fn = words[0] === 'create' && (words[1] === 'function' || words[1] === 'procedure' || (words[1] === 'or' && (words[3] === 'function' || words[3] === 'procedure')));
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
        }
      }
      if (!fn) out.cuts.push(lx.pos > tok.end ? lx.pos : tok.end);
      words = [];
      paren = 0;
      copyStdin = false;
      continue;
    }
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
