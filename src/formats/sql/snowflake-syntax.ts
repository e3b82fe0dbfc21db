// What the Snowflake grammars share (snowflake-objects.ts, snowflake-show.ts,
// snowflake-scripting.ts): the statement's tokens (the shared SQL lexer with Snowflake's rules),
// a cursor that reads them and fails with "expected X, found Y at offset N", names, literals,
// data types, and the hand-off of an embedded statement to the dialect's parser chain.

import { ParseFailure, type EngineResult } from './engine.js';
import { LEX, Lexer } from './lexer.js';
import { DATA_TYPES, RESERVED } from './snowflake-object-kinds.js';

export type InnerParser = (sql: string) => EngineResult | null;

// ---- Tokens ----

type TokKind = 'word' | 'qident' | 'string' | 'number' | 'var' | 'punct' | 'other' | 'eof';

export interface Tok {
  kind: TokKind;
  text: string;
  /** Words upper-cased, strings unescaped, "quoted" identifiers unquoted, $variables without '$'. */
  value: string;
  start: number;
  end: number;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0' };

/** A '…' literal's text: '' and backslash escapes. */
function unquote(raw: string): string {
  return raw.slice(1, -1).replace(/''|\\(.)/gs, (m, ch: string | undefined) => (ch === undefined ? "'" : (ESCAPES[ch] ?? ch)));
}

/** The statement's tokens (the shared SQL lexer, Snowflake rules), without spaces and comments. */
export function tokenize(sql: string): Tok[] {
  const lexer = new Lexer(sql, LEX.Snowflake);
  const out: Tok[] = [];
  for (let t = lexer.next(); t; t = lexer.next()) {
    if (t.kind === 'space' || t.kind === 'comment') continue;
    const text = sql.slice(t.start, t.end);
    const prev = out[out.length - 1];
    const glued = prev && prev.end === t.start;
    // `$name` is a session variable; `->` introduces a policy body.
    if (glued && prev.text === '$' && t.kind === 'word') out[out.length - 1] = { kind: 'var', text: `$${text}`, value: text, start: prev.start, end: t.end };
    else if (glued && prev.text === '-' && text === '>') out[out.length - 1] = { kind: 'punct', text: '->', value: '->', start: prev.start, end: t.end };
    else out.push(token(t.kind, text, t.start, t.end));
  }
  if (lexer.unterminated) {
    const at = /offset (\d+)/.exec(lexer.unterminated);
    throw new ParseFailure(lexer.unterminated, at ? Number(at[1]) : null);
  }
  out.push({ kind: 'eof', text: '', value: '', start: sql.length, end: sql.length });
  return out;
}

function token(kind: string, text: string, start: number, end: number): Tok {
  const tok = (k: TokKind, value = text): Tok => ({ kind: k, text, value, start, end });
  if (kind === 'word') return tok('word', text.toUpperCase());
  if (kind === 'ident') return tok('qident', text.slice(1, -1).replace(/""/g, '"'));
  if (kind === 'string' && text.startsWith('$$')) return tok('string', text.slice(2, -2));
  if (kind === 'string' && text.startsWith("'")) return tok('string', unquote(text));
  if (kind === 'other' && /^\d+(\.\d+)?$/.test(text)) return tok('number');
  return tok(kind === 'punct' ? 'punct' : 'other');
}

function describe(t: Tok): string {
  if (t.kind === 'eof') return 'end of statement';
  const text = t.text.length > 40 ? `${t.text.slice(0, 37)}...` : t.text;
  return t.kind === 'string' ? `string ${text}` : `'${text}'`;
}

// ---- Cursor ----

export class Cursor {
  i = 0;
  constructor(
    readonly sql: string,
    readonly toks: Tok[],
  ) {}

  get tok(): Tok {
    return this.toks[this.i];
  }
  get prev(): Tok {
    return this.toks[Math.max(0, this.i - 1)];
  }
  peek(n = 0): Tok {
    return this.toks[Math.min(this.i + n, this.toks.length - 1)];
  }
  next(): Tok {
    const t = this.tok;
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  isWord(w: string, n = 0): boolean {
    const t = this.peek(n);
    return t.kind === 'word' && t.value === w;
  }
  isWords(ws: readonly string[], n = 0): boolean {
    return ws.every((w, k) => this.isWord(w, n + k));
  }
  /** Consumes the keyword sequence if it is next. */
  accept(...ws: string[]): boolean {
    if (!this.isWords(ws)) return false;
    this.i += ws.length;
    return true;
  }
  expect(...ws: string[]): void {
    for (const w of ws) {
      if (!this.isWord(w)) this.fail(w);
      this.i++;
    }
  }
  isPunct(p: string, n = 0): boolean {
    const t = this.peek(n);
    return t.kind === 'punct' && t.text === p;
  }
  acceptPunct(p: string): boolean {
    if (!this.isPunct(p)) return false;
    this.i++;
    return true;
  }
  expectPunct(p: string, context = ''): void {
    if (!this.acceptPunct(p)) this.fail(`'${p}'${context}`);
  }
  /** Whether the next token is `word =` (a property assignment). */
  isAssignment(): boolean {
    return this.tok.kind === 'word' && this.isPunct('=', 1);
  }
  fail(expected: string, t: Tok = this.tok): never {
    throw new ParseFailure(`expected ${expected}, found ${describe(t)} at offset ${t.start}`, t.start);
  }
  failAt(message: string, t: Tok): never {
    throw new ParseFailure(`${message} at offset ${t.start}`, t.start);
  }
  expectEnd(expected = 'end of statement'): void {
    if (this.tok.kind !== 'eof') this.fail(expected);
  }
  /** The statement's text from the start of `from` to the end of the last token read. */
  textFrom(from: Tok): string {
    return this.sql.slice(from.start, this.prev.end);
  }
}

// ---- Values and properties ----

export type Value = string | number | boolean | null | { variable: string } | Value[] | Property[];

export interface Property {
  name: string;
  value: Value;
}

export interface Ctx {
  c: Cursor;
  parseInner: InnerParser;
  tables: string[];
  columns: string[];
  /** Where each parsed property's name stands (for checks made after the list is read). */
  at: Map<Property, Tok>;
  /** CREATE OR ALTER: the object's tags and policies cannot be set (the docs' "data governance" limitation). */
  orAlter?: boolean;
}

/** `IDENTIFIER( $var | '…' )` or a dotted name of identifiers and "quoted" identifiers, as written. */
export function objectName(c: Cursor, what = 'a name'): string {
  const first = c.tok;
  if (c.isWord('IDENTIFIER') && c.isPunct('(', 1)) {
    c.i += 2;
    if (c.tok.kind !== 'var' && c.tok.kind !== 'string') c.fail('a $variable or a string literal in IDENTIFIER( … )');
    c.next();
    c.expectPunct(')', ' closing IDENTIFIER(');
    return c.textFrom(first);
  }
  do {
    const named = c.tok.kind === 'qident' || (c.tok.kind === 'word' && !RESERVED.has(c.tok.value));
    if (!named) c.fail(c.prev.text !== '.' || c.tok === first ? what : "a name after '.'");
    c.next();
  } while (c.acceptPunct('.'));
  return c.textFrom(first);
}

/** `name [ , name … ]`; with `bare`, a ',' ends the list when the next word starts an assignment. */
export function nameList(c: Cursor, what: string, bare = false): string[] {
  const out = [objectName(c, what)];
  while (c.isPunct(',') && !(bare && c.peek(1).kind === 'word' && c.isPunct('=', 2))) {
    c.next();
    out.push(objectName(c, what));
  }
  return out;
}

export function parenthesised<T>(c: Cursor, what: string, item: () => T, allowEmpty = false): T[] {
  c.expectPunct('(', ` to open ${what}`);
  const out: T[] = [];
  if (!(allowEmpty && c.isPunct(')'))) {
    do out.push(item());
    while (c.acceptPunct(','));
  }
  c.expectPunct(')', ` to close ${what}`);
  return out;
}

export function stringLiteral(c: Cursor, what: string): string {
  if (c.tok.kind !== 'string') c.fail(what);
  return c.next().value;
}

export function integer(c: Cursor, what: string): number {
  const neg = c.isPunct('-') && c.peek(1).kind === 'number' ? (c.next(), -1) : 1;
  if (c.tok.kind !== 'number' || c.tok.text.includes('.')) c.fail(what);
  return neg * Number(c.next().text);
}

/** Structured types nested deeper than this are refused (the recursion would otherwise follow the input down the stack). */
const MAX_TYPE_NESTING = 100;

/** A Snowflake data type: NUMBER(38, 0), VARCHAR, DOUBLE PRECISION, ARRAY(INT), OBJECT(a INT) … */
export function dataType(c: Cursor, what: string, depth = 0): string {
  const first = c.tok;
  if (depth > MAX_TYPE_NESTING) c.failAt(`a data type nested deeper than ${MAX_TYPE_NESTING} levels`, first);
  if (first.kind !== 'word' || !DATA_TYPES.has(first.value)) c.fail(what);
  c.next();
  if (first.value === 'DOUBLE') c.accept('PRECISION');
  else if (['CHAR', 'CHARACTER', 'NCHAR'].includes(first.value)) c.accept('VARYING');
  // Arguments: a length / precision, an element type (ARRAY(INT), VECTOR(FLOAT, 256)) or a field (OBJECT(a INT)).
  if (c.isPunct('('))
    parenthesised(c, `the ${first.value} arguments`, () => {
      if (c.tok.kind === 'number') return c.next();
      const elementType = c.tok.kind === 'word' && DATA_TYPES.has(c.tok.value) && c.peek(1).kind !== 'word' && c.peek(1).kind !== 'qident';
      if (!elementType) objectName(c, 'a field name or a data type');
      return dataType(c, 'a data type', depth + 1);
    });
  return c.textFrom(first);
}

/** `( <arg type> [ , … ] )` after a procedure's name. */
export function argTypes(c: Cursor): string[] {
  return parenthesised(c, 'the argument types', () => dataType(c, 'an argument data type'), true);
}

// ---- Embedded statements and expressions ----

export interface Body {
  parser: string | null;
  type: string | null;
  ast: unknown;
}

export function innerResult(ctx: Ctx, r: EngineResult, withColumns: boolean): Body {
  ctx.tables.push(...r.tables);
  if (withColumns) ctx.columns.push(...r.columns);
  return { parser: (r as { parser?: string }).parser ?? null, type: r.type, ast: r.ast };
}

/** A statement embedded in this one (`text`, starting at `at`), offered to the dialect's parsers; `$1`-style result references are not tables. */
export function innerStatement(ctx: Ctx, text: string, at: Tok, what: string): Body {
  const r = ctx.parseInner(text);
  if (!r) return ctx.c.failAt(`no Snowflake parser accepts ${what}`, at);
  return innerResult(ctx, { ...r, tables: r.tables.filter((t) => !/^\$\d+$/.test(t)) }, true);
}

export type Statement = { ast: Record<string, unknown>; type: string };
