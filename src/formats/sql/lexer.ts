// The small SQL lexer the splitters share: strings, quoted identifiers, comments and dollar
// bodies per dialect, so a ';' (or a keyword) inside any of them is never read as syntax.
// It never fails: an unterminated string or comment runs to the end of the text and is noted.

import type { Dialect } from './statements.js';

export interface LexConfig {
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
  backslashEscapes: false,
  doubleQuoteString: false,
  backtickIdent: false,
  bracketIdent: false,
  hashComment: false,
  slashSlashComment: false,
  nestedComments: false,
  dollarBodies: false,
  tripleQuotes: false,
  oracleQQuote: false,
  mysqlDashComment: false,
  pgStrings: false,
};

/** Dialects splitGeneric handles; PgFallback is PostgreSQL when its own lexer gives up. */
export type GenericDialect = Exclude<Dialect, 'PostgreSql'> | 'PgFallback';

export const LEX: Record<GenericDialect, LexConfig> = {
  PgFallback: { ...BASE, nestedComments: true, pgStrings: true },
  MsSql: { ...BASE, bracketIdent: true, nestedComments: true },
  Snowflake: { ...BASE, backslashEscapes: true, slashSlashComment: true, dollarBodies: true },
  MySql: { ...BASE, backslashEscapes: true, doubleQuoteString: true, backtickIdent: true, hashComment: true, mysqlDashComment: true },
  BigQuery: { ...BASE, backslashEscapes: true, doubleQuoteString: true, backtickIdent: true, hashComment: true, tripleQuotes: true },
  Sqlite: { ...BASE, backtickIdent: true, bracketIdent: true },
  Oracle: { ...BASE, oracleQQuote: true },
};

export type Kind = 'space' | 'comment' | 'string' | 'ident' | 'word' | 'punct' | 'other';

export interface Token {
  kind: Kind;
  start: number;
  end: number;
}

/** JavaScript's \s, by char code (a regular expression per character is what made lexing slow). */
const isSpace = (c: number): boolean =>
  (c >= 9 && c <= 13) ||
  c === 32 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
/** What a number runs on with: digits, letters, '_' and '.'. */
const isNumberChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46;
const isWordStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128 || c === 64 || c === 35;
const isWordChar = (c: number): boolean => isWordStart(c) || (c >= 48 && c <= 57) || c === 36;

export class Lexer {
  pos = 0;
  unterminated: string | null = null;

  constructor(
    private readonly text: string,
    private readonly cfg: LexConfig,
  ) {}

  /** Next token at `pos`, or null at the end. */
  next(): Token | null {
    const t = this.text;
    const n = t.length;
    const s = this.pos;
    if (s >= n) return null;
    const c = t.charCodeAt(s);
    const c2 = t.charCodeAt(s + 1);
    let e = s + 1;
    let kind: Kind;
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11) {
      while (e < n && isSpace(t.charCodeAt(e))) e++;
      kind = 'space';
    } else if (
      (c === 45 && c2 === 45 && (!this.cfg.mysqlDashComment || s + 2 >= n || isSpace(t.charCodeAt(s + 2)))) ||
      (c === 35 && this.cfg.hashComment) ||
      (c === 47 && c2 === 47 && this.cfg.slashSlashComment && !this.afterUrlScheme(s))
    ) {
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
      while (e < n && isNumberChar(t.charCodeAt(e))) e++;
      kind = 'other';
    } else {
      // A URL's slashes (file:///…) are one token, so a long run is read in one step.
      if (c === 47 && this.cfg.slashSlashComment && this.afterUrlScheme(s)) while (e < n && t.charCodeAt(e) === 47) e++;
      kind = 'punct';
    }
    this.pos = e;
    return { kind, start: s, end: e };
  }

  /** Whether the slashes at `s` follow a URL scheme (PUT file:///tmp/x, FROM s3://bucket/): a path, not a `//` comment. */
  private afterUrlScheme(s: number): boolean {
    return this.text.charCodeAt(s - 1) === 58 && /[A-Za-z][\w+.-]{0,31}:$/.test(this.text.slice(Math.max(0, s - 33), s));
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

/** Tokens of `text` other than whitespace and comments, counted up to `limit + 1` at most. */
export function countTokens(text: string, cfg: LexConfig, limit: number): number {
  const lx = new Lexer(text, cfg);
  let n = 0;
  let tok: Token | null;
  while (n <= limit && (tok = lx.next())) if (tok.kind !== 'space' && tok.kind !== 'comment') n++;
  return n;
}
