// Snowflake Scripting blocks, written from the Snowflake Scripting reference
// (docs.snowflake.com/en/developer-guide/snowflake-scripting, sql-reference/snowflake-scripting/*):
// `[ DECLARE … ] BEGIN … [ EXCEPTION … ] END` as a statement of its own, as a task's body and as
// the body of a LANGUAGE SQL procedure (after AS, bare or in $$ … $$). A block is one statement;
// its inner SQL statements, conditions and values are offered to the dialect's whole parser chain
// through `parseInner` (expressions as `SELECT <expr>`), and the tables and columns they name are
// the block's. The scripting statements themselves (LET, :=, IF, CASE, loops, RETURN, RAISE,
// cursors …) are read here, strictly: anything else must be a statement one of the parsers reads.
//
// Bind references (`:var`, `INTO :var`) are Snowflake Scripting syntax inside SQL that the other
// parsers may not take. An inner statement or expression they reject as written is offered once
// more with its binds read as plain names and its `INTO :var …` clause left out; when that is
// accepted, the inner statement is recorded as not parsed as written (`parser: null`,
// `readWithoutBinds: <parser>`) with the type, tables and columns of that reading, and the block
// still parses. One still rejected rejects the block.

import { ParseFailure, type EngineResult } from './engine.js';
import { Cursor, dataType, objectName, stringLiteral, integer, tokenize, type Ctx, type Statement, type Tok } from './snowflake-syntax.js';

/** Blocks and control statements nested deeper than this are refused (the recursion would otherwise follow the input down the stack). */
const MAX_DEPTH = 100;

/** Words after BEGIN that make it BEGIN [ TRANSACTION | WORK ] [ NAME … ], not a block. */
const TRANSACTION_NEXT = ['TRANSACTION', 'WORK', 'NAME'];

type Node = Record<string, unknown>;

interface Sql {
  text: string;
  parser: string | null;
  type?: string | null;
  readWithoutBinds?: string | null;
  ast?: unknown;
}

/** Whether the cursor stands at a Snowflake Scripting block (DECLARE, or BEGIN not starting a transaction). */
export function atBlock(c: Cursor): boolean {
  if (c.isWord('DECLARE')) return true;
  if (!c.isWord('BEGIN')) return false;
  const next = c.peek(1);
  return !(next.kind === 'eof' || (next.kind === 'punct' && next.text === ';') || TRANSACTION_NEXT.some((w) => c.isWord(w, 1)));
}

/** An anonymous block: the whole statement. */
export function anonymousBlock(ctx: Ctx): Statement {
  return { ast: scriptingBody(ctx), type: 'BLOCK' };
}

/**
 * The block standing at the cursor and running to the end of the text (an optional ';' after its
 * END, as in a $$ body): its AST. Used for anonymous blocks, task bodies and procedure bodies.
 */
export function scriptingBody(ctx: Ctx): Node {
  const { c } = ctx;
  const block = readBlock(ctx, 0);
  c.acceptPunct(';');
  c.expectEnd('end of statement after the block');
  return block;
}

/** A $$ … $$ string token holding a block: its content is tokenised in place (offsets stay those of the statement). */
export function dollarBody(ctx: Ctx, t: Tok): Node {
  if (t.kind !== 'string' || !t.text.startsWith('$$')) return ctx.c.fail('a Snowflake Scripting block after AS', t);
  const base = t.start + 2;
  const inner = tokenize(t.value).map((x) => ({ ...x, start: x.start + base, end: x.end + base }));
  const sub = new Cursor(ctx.c.sql, inner);
  if (!atBlock(sub)) sub.fail('DECLARE or BEGIN (a Snowflake Scripting block) in the $$ body');
  return scriptingBody({ ...ctx, c: sub });
}

// ---- Blocks ----

function readBlock(ctx: Ctx, depth: number): Node {
  const { c } = ctx;
  if (depth > MAX_DEPTH) c.failAt(`blocks and control statements nested deeper than ${MAX_DEPTH} levels`, c.tok);
  const declare: Node[] = [];
  if (c.accept('DECLARE')) {
    do declare.push(declaration(ctx, false));
    while (!c.isWord('BEGIN') && c.tok.kind !== 'eof');
  }
  c.expect('BEGIN');
  const body = statements(ctx, depth, ['EXCEPTION', 'END'], 'END');
  const exception: Node[] = [];
  if (c.accept('EXCEPTION')) {
    if (!c.isWord('WHEN')) c.fail('WHEN after EXCEPTION');
    while (c.accept('WHEN')) {
      const names: string[] = [];
      do {
        const t = c.tok;
        if (c.accept('OTHER')) names.push('OTHER');
        else names.push(objectName(c, 'an exception name (or OTHER) after WHEN'));
        if (names.length > 1 && names.includes('OTHER')) c.failAt('OTHER stands alone in its WHEN', t);
      } while (c.accept('OR'));
      c.expect('THEN');
      exception.push({ when: names, body: statements(ctx, depth, ['WHEN', 'END'], 'WHEN or END') });
    }
  }
  c.expect('END');
  return { statement: 'BLOCK', declare, body, exception };
}

/** A name of a variable, cursor, resultset or exception (a word that is not reserved, or a "quoted" name). */
function name(c: Cursor, what: string): string {
  const t = c.tok;
  if (t.kind !== 'qident' && t.kind !== 'word') c.fail(what);
  if (t.kind === 'word' && ['BEGIN', 'END', 'DECLARE', 'EXCEPTION', 'THEN', 'ELSE', 'WHEN', 'DO'].includes(t.value)) c.fail(what);
  c.next();
  return t.text;
}

/** Whether `:=` is next (two tokens, written together). */
function isAssign(c: Cursor, n = 0): boolean {
  return c.isPunct(':', n) && c.isPunct('=', n + 1) && c.peek(n).end === c.peek(n + 1).start;
}

function acceptAssignOrDefault(c: Cursor): boolean {
  if (isAssign(c)) {
    c.i += 2;
    return true;
  }
  return c.accept('DEFAULT');
}

/**
 * A DECLARE item or (with `let`) the part of a LET after the keyword:
 * `name CURSOR FOR <query | resultset>`, `name RESULTSET [ { DEFAULT | := } ( <query> ) ]`,
 * `name EXCEPTION [ ( <number>, '<message>' ) ]` (DECLARE only), `name [ <type> ] [ { DEFAULT | := } <expr> ]`.
 */
function declaration(ctx: Ctx, isLet: boolean): Node {
  const { c } = ctx;
  const first = c.tok;
  const n = name(c, isLet ? 'a variable, cursor or resultset name after LET' : 'a variable, cursor, resultset or exception declaration (or BEGIN)');
  let node: Node;
  if (c.accept('CURSOR')) {
    c.expect('FOR');
    // FOR <resultset name> or FOR <query>.
    const single = (c.tok.kind === 'word' || c.tok.kind === 'qident') && c.isPunct(';', 1);
    node = single
      ? { kind: 'cursor', name: n, for: name(c, 'a resultset name') }
      : { kind: 'cursor', name: n, query: sqlUntilSemicolon(ctx, 'the cursor query') };
  } else if (c.accept('RESULTSET')) {
    node = { kind: 'resultset', name: n };
    if (acceptAssignOrDefault(c)) node.query = resultsetQuery(ctx);
  } else if (!isLet && c.accept('EXCEPTION')) {
    node = { kind: 'exception', name: n };
    if (c.acceptPunct('(')) {
      node.number = integer(c, 'an exception number');
      c.expectPunct(',', ' after the exception number');
      node.message = stringLiteral(c, 'the exception message as a string literal');
      c.expectPunct(')', ' to close the exception declaration');
    }
  } else {
    node = { kind: 'variable', name: n };
    if (c.tok.kind === 'word' && !c.isWord('DEFAULT') && !isAssign(c)) node.type = dataType(c, `a data type, DEFAULT or := after ${n}`);
    if (acceptAssignOrDefault(c)) node.value = expr(ctx, `the value of ${n}`, []);
    else if (isLet) c.fail(`DEFAULT or := after LET ${n}${node.type ? ` ${String(node.type)}` : ''}`);
  }
  if (isLet) node.kind = `let ${String(node.kind)}`;
  terminator(c, first);
  return node;
}

/** `( <query> )` of a RESULTSET. */
function resultsetQuery(ctx: Ctx): Sql {
  const { c } = ctx;
  c.expectPunct('(', ' before the resultset query');
  const body = c.tok;
  scan(c, () => false, true);
  if (!c.isPunct(')')) c.fail("')' closing the resultset query");
  if (c.tok === body) c.fail('a query in RESULTSET ( … )');
  const r = inner(ctx, c.textFrom(body), body, 'the resultset query');
  c.next();
  return r;
}

/** `;` after a statement that began at `first`. */
function terminator(c: Cursor, first: Tok): void {
  if (!c.acceptPunct(';')) c.fail(`';' after the ${first.kind === 'word' ? first.value : 'statement'} statement`);
}

// ---- Statements ----

/** Statements up to one of `stops` (at least one, each ending in ';'). */
function statements(ctx: Ctx, depth: number, stops: string[], expected: string): Node[] {
  const { c } = ctx;
  if (depth > MAX_DEPTH) c.failAt(`blocks and control statements nested deeper than ${MAX_DEPTH} levels`, c.tok);
  const out: Node[] = [];
  while (!stops.some((w) => c.isWord(w))) {
    if (c.tok.kind === 'eof') c.fail(expected);
    out.push(statement(ctx, depth));
  }
  if (!out.length) c.fail(`a statement before ${c.tok.kind === 'word' ? c.tok.value : expected}`);
  return out;
}

function statement(ctx: Ctx, depth: number): Node {
  const { c } = ctx;
  const first = c.tok;
  if (first.kind === 'punct' && first.text === ';') c.fail('a statement');
  if (atBlock(c)) {
    const block = readBlock(ctx, depth + 1);
    terminator(c, first);
    return { kind: 'block', block };
  }
  if ((first.kind === 'word' || first.kind === 'qident') && isAssign(c, 1)) {
    const target = name(c, 'a variable name');
    c.i += 2;
    const value = c.isPunct('(') ? parenthesisedValue(ctx) : expr(ctx, `the value assigned to ${target}`, []);
    terminator(c, first);
    return { kind: 'assign', name: target, value };
  }
  const form = first.kind === 'word' ? FORMS[first.value] : undefined;
  if (form) return form(ctx, depth, first);
  // Any other statement: SQL, up to ';', read by the dialect's parsers.
  const sql = sqlUntilSemicolon(ctx, 'this statement of the block');
  terminator(c, first);
  return { kind: 'sql', ...sql };
}

type Form = (ctx: Ctx, depth: number, first: Tok) => Node;

/** END <word> [ <label> ] ; */
function endOf(c: Cursor, word: string, first: Tok, alternative?: string): string | null {
  c.expect('END');
  if (!c.accept(word) && !(alternative && c.accept(alternative))) c.fail(alternative ? `${word} or ${alternative} after END` : `${word} after END`);
  const label = c.tok.kind === 'word' || c.tok.kind === 'qident' ? name(c, 'a label') : null;
  terminator(c, first);
  return label;
}

/** `( <condition> )` as the reference writes IF, ELSEIF, WHILE and UNTIL conditions. */
function condition(ctx: Ctx, after: string): Sql {
  const { c } = ctx;
  if (!c.isPunct('(')) c.fail(`'(' opening the condition after ${after}`);
  c.next();
  const text = c.tok;
  scan(c, () => false, true);
  if (!c.isPunct(')')) c.fail(`')' closing the condition after ${after}`);
  if (c.tok === text) c.fail(`a condition after ${after}`);
  const r = expression(ctx, c.sql.slice(text.start, c.prev.end), text, `the condition after ${after}`);
  c.next();
  return r;
}

const FORMS: Record<string, Form> = {
  LET: (ctx) => {
    ctx.c.next();
    return declaration(ctx, true);
  },
  IF: (ctx, depth, first) => {
    const { c } = ctx;
    c.next();
    const branches: Node[] = [];
    let after = 'IF';
    do {
      const cond = condition(ctx, after);
      c.expect('THEN');
      branches.push({ condition: cond, body: statements(ctx, depth + 1, ['ELSEIF', 'ELSE', 'END'], 'ELSEIF, ELSE or END IF') });
      after = 'ELSEIF';
    } while (c.accept('ELSEIF'));
    const otherwise = c.accept('ELSE') ? statements(ctx, depth + 1, ['END'], 'END IF') : null;
    endOf(c, 'IF', first);
    return { kind: 'if', branches, ...(otherwise ? { else: otherwise } : {}) };
  },
  CASE: (ctx, depth, first) => {
    const { c } = ctx;
    c.next();
    const operand = c.isWord('WHEN') ? null : expr(ctx, 'the expression to match after CASE', ['WHEN'], [], true);
    if (!c.isWord('WHEN')) c.fail('WHEN after CASE');
    const branches: Node[] = [];
    while (c.accept('WHEN')) {
      const when = expr(ctx, 'an expression after WHEN', ['THEN'], [], true);
      c.expect('THEN');
      branches.push({ when, body: statements(ctx, depth + 1, ['WHEN', 'ELSE', 'END'], 'WHEN, ELSE or END CASE') });
    }
    const otherwise = c.accept('ELSE') ? statements(ctx, depth + 1, ['END'], 'END CASE') : null;
    c.expect('END');
    // The reference writes END [ CASE ].
    c.accept('CASE');
    terminator(c, first);
    return { kind: 'case', ...(operand ? { operand } : {}), branches, ...(otherwise ? { else: otherwise } : {}) };
  },
  FOR: (ctx, depth, first) => {
    const { c } = ctx;
    c.next();
    const variable = name(c, 'a counter or row variable after FOR');
    c.expect('IN');
    const reverse = c.accept('REVERSE');
    const fromTok = c.tok;
    const from = expr(ctx, 'a start value or a cursor name after IN', ['TO', 'DO', 'LOOP'], [], true);
    let node: Node;
    if (c.accept('TO'))
      node = { kind: 'for', variable, ...(reverse ? { reverse } : {}), from, to: expr(ctx, 'an end value after TO', ['DO', 'LOOP'], [], true) };
    else {
      if (reverse) c.fail('TO (REVERSE is for a counter loop)');
      if (!/^("[^"]*"|[A-Za-z_][\w$]*)$/.test(from.text)) c.failAt('expected a cursor name or a range <start> TO <end> after IN', fromTok);
      node = { kind: 'for', variable, cursor: from.text };
    }
    const kw = c.accept('DO') ? 'FOR' : c.accept('LOOP') ? 'LOOP' : c.fail('DO or LOOP');
    node.body = statements(ctx, depth + 1, ['END'], `END ${kw}`);
    const label = endOf(c, kw, first);
    return { ...node, ...(label ? { label } : {}) };
  },
  WHILE: (ctx, depth, first) => {
    const { c } = ctx;
    c.next();
    const cond = condition(ctx, 'WHILE');
    const kw = c.accept('DO') ? 'WHILE' : c.accept('LOOP') ? 'LOOP' : c.fail('DO or LOOP after the WHILE condition');
    const body = statements(ctx, depth + 1, ['END'], `END ${kw}`);
    const label = endOf(c, kw, first);
    return { kind: 'while', condition: cond, body, ...(label ? { label } : {}) };
  },
  REPEAT: (ctx, depth, first) => {
    const { c } = ctx;
    c.next();
    const body = statements(ctx, depth + 1, ['UNTIL'], 'UNTIL');
    c.expect('UNTIL');
    const until = condition(ctx, 'UNTIL');
    const label = endOf(c, 'REPEAT', first);
    return { kind: 'repeat', body, until, ...(label ? { label } : {}) };
  },
  LOOP: (ctx, depth, first) => {
    const { c } = ctx;
    c.next();
    const body = statements(ctx, depth + 1, ['END'], 'END LOOP');
    const label = endOf(c, 'LOOP', first);
    return { kind: 'loop', body, ...(label ? { label } : {}) };
  },
  BREAK: (ctx, _d, first) => jump(ctx, 'break', first),
  EXIT: (ctx, _d, first) => jump(ctx, 'break', first),
  CONTINUE: (ctx, _d, first) => jump(ctx, 'continue', first),
  ITERATE: (ctx, _d, first) => jump(ctx, 'continue', first),
  RETURN: (ctx, _d, first) => {
    const { c } = ctx;
    c.next();
    let value: Sql | null = null;
    if (c.isWord('TABLE') && c.isPunct('(', 1)) {
      // RETURN TABLE ( <resultset> | RESULTSET_FROM_CURSOR ( <cursor> ) ): a table of a procedure that RETURNS TABLE.
      c.next();
      const open = c.i;
      const close = matching(c, open);
      if (close < 0) c.fail("')' closing RETURN TABLE ( … )", c.toks[c.toks.length - 1]);
      if (close === open + 1) c.fail('a resultset in RETURN TABLE ( … )', c.toks[close]);
      const from = c.toks[open + 1];
      value = { ...expression(ctx, c.sql.slice(from.start, c.toks[close - 1].end), from, 'the resultset in RETURN TABLE ( … )'), table: true } as Sql;
      c.i = close + 1;
    } else if (!c.isPunct(';')) value = expr(ctx, 'a value after RETURN', []);
    terminator(c, first);
    return { kind: 'return', ...(value ? { value } : {}) };
  },
  RAISE: (ctx, _d, first) => {
    const { c } = ctx;
    c.next();
    const exception = c.isPunct(';') ? null : objectName(c, "an exception name or ';' after RAISE");
    terminator(c, first);
    return { kind: 'raise', ...(exception ? { exception } : {}) };
  },
  OPEN: (ctx, _d, first) => {
    const { c } = ctx;
    c.next();
    const cursor = name(c, 'a cursor name after OPEN');
    let using: string[] | null = null;
    if (c.accept('USING')) {
      c.expectPunct('(', ' after USING');
      using = [];
      do using.push(expr(ctx, 'a bind value in USING ( … )', [], [',', ')']).text);
      while (c.acceptPunct(','));
      c.expectPunct(')', ' to close USING ( … )');
    }
    terminator(c, first);
    return { kind: 'open', cursor, ...(using ? { using } : {}) };
  },
  FETCH: (ctx, _d, first) => {
    const { c } = ctx;
    c.next();
    const cursor = name(c, 'a cursor name after FETCH');
    c.expect('INTO');
    const into = [name(c, 'a variable after INTO')];
    while (c.acceptPunct(',')) into.push(name(c, "a variable after ','"));
    terminator(c, first);
    return { kind: 'fetch', cursor, into };
  },
  CLOSE: (ctx, _d, first) => {
    const { c } = ctx;
    c.next();
    const cursor = name(c, 'a cursor name after CLOSE');
    terminator(c, first);
    return { kind: 'close', cursor };
  },
  NULL: (ctx, _d, first) => {
    const { c } = ctx;
    c.next();
    terminator(c, first);
    return { kind: 'null' };
  },
};

function jump(ctx: Ctx, kind: string, first: Tok): Node {
  const { c } = ctx;
  c.next();
  const label = c.isPunct(';') ? null : name(c, `a label or ';' after ${first.value}`);
  terminator(c, first);
  return { kind, ...(label ? { label } : {}) };
}

// ---- Embedded SQL and expressions ----

/**
 * Moves to the next token at parenthesis depth 0 (outside CASE … END) that is ';', one of
 * `puncts`, or a word for which `stop` holds; with `inParens`, to the ')' closing the current
 * parenthesis. Returns the last token read.
 */
function scan(c: Cursor, stop: (t: Tok) => boolean, inParens = false, puncts: string[] = []): Tok {
  let depth = 0;
  let cases = 0;
  let last = c.prev;
  for (;;) {
    const t = c.tok;
    if (t.kind === 'eof') break;
    if (t.kind === 'punct') {
      if (t.text === '(') depth++;
      else if (t.text === ')') {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && cases === 0 && (t.text === ';' || puncts.includes(t.text))) break;
    } else if (t.kind === 'word' && depth === 0) {
      if (t.value === 'CASE') cases++;
      else if (t.value === 'END' && cases > 0) cases--;
      else if (cases === 0 && !inParens && stop(t)) break;
    }
    last = c.next();
  }
  return last;
}

/** Tokens up to a depth-0 ';' (not consumed): a SQL statement for the dialect's parsers. */
function sqlUntilSemicolon(ctx: Ctx, what: string): Sql {
  const { c } = ctx;
  const first = c.tok;
  if (first.kind === 'eof') c.fail(what);
  scan(c, () => false);
  if (c.isPunct(')')) c.fail("';' (unbalanced ')')");
  if (c.tok === first) c.fail(what);
  return inner(ctx, c.textFrom(first), first, what);
}

/** An expression up to a depth-0 ';', one of `puncts` or one of the words `stops` (not consumed), read as `SELECT <expr>`. */
function expr(ctx: Ctx, what: string, stops: string[], puncts: string[] = [], required = false): Sql {
  const { c } = ctx;
  const first = c.tok;
  scan(c, (t) => stops.includes(t.value), false, puncts);
  if (c.tok === first) c.fail(what);
  // A construct's keyword (THEN, DO …) missing: say so where the expression ran into ';'.
  if (required && !stops.some((w) => c.isWord(w))) c.fail(`${stops.join(' or ')} after ${clip(c.textFrom(first))}`);
  return expression(ctx, c.textFrom(first), first, what);
}

function expression(ctx: Ctx, text: string, at: Tok, what: string): Sql {
  // An expression keeps the parser that read it (or the one that read it without binds), not the SELECT's AST.
  // In parentheses, so the text must be one expression: not an alias, a list or a FROM clause.
  const { parser, readWithoutBinds } = inner(ctx, `SELECT (${text})`, at, what, false);
  return { text, parser, ...(readWithoutBinds !== undefined ? { readWithoutBinds } : {}) } as Sql;
}

/** `( … )` as a value: an expression, or a statement in parentheses (`rs := ( EXECUTE IMMEDIATE … )`). */
function parenthesisedValue(ctx: Ctx): Sql {
  const { c } = ctx;
  const open = c.tok;
  const start = c.i;
  scan(c, () => false);
  const text = c.textFrom(open);
  const whole = c.toks[start].text === '(' && matching(c, start) === c.i - 1;
  if (whole) {
    const r = tryInner(ctx, `SELECT ${text}`, false);
    if (r) return { text, parser: r.parser, ...(r.readWithoutBinds !== undefined ? { readWithoutBinds: r.readWithoutBinds } : {}) } as Sql;
    const body = c.toks[start + 1];
    return { ...inner(ctx, c.sql.slice(body.start, c.prev.start), body, 'the statement in ( … )'), text };
  }
  return { ...expression(ctx, text, open, 'a value'), text };
}

/** Index of the ')' matching the '(' at `i`. */
function matching(c: Cursor, i: number): number {
  let depth = 0;
  for (let k = i; k < c.toks.length; k++) {
    const t = c.toks[k];
    if (t.kind !== 'punct') continue;
    if (t.text === '(') depth++;
    else if (t.text === ')' && --depth === 0) return k;
  }
  return -1;
}

/** The parse of `text` by the chain, or of its reading without binds; null when neither is accepted. */
function tryInner(ctx: Ctx, text: string, withColumns = true): Omit<Sql, 'text'> | null {
  const r = ctx.parseInner(text);
  if (r) return record(ctx, r, withColumns, false);
  const unbound = withoutBinds(text);
  if (unbound.text === text) return null;
  const again = ctx.parseInner(unbound.text);
  if (!again) return null;
  const columns = again.columns.filter((col) => !unbound.names.has(col.toUpperCase()));
  return record(ctx, { ...again, columns }, withColumns, true);
}

function record(ctx: Ctx, r: EngineResult, withColumns: boolean, unbound: boolean): Omit<Sql, 'text'> {
  ctx.tables.push(...r.tables.filter((t) => !/^\$\d+$/.test(t)));
  if (withColumns) ctx.columns.push(...r.columns);
  const parser = (r as { parser?: string | null }).parser ?? null;
  return unbound ? { parser: null, readWithoutBinds: parser, type: r.type } : { parser, type: r.type, ast: r.ast };
}

/** `text` offered to the chain (see tryInner); a rejection rejects the block at `at`. */
function inner(ctx: Ctx, text: string, at: Tok, what: string, withColumns = true): Sql {
  const r = tryInner(ctx, text, withColumns);
  if (!r) return ctx.c.failAt(`no Snowflake parser accepts ${what} '${clip(text.replace(/^SELECT /, ''))}'`, at);
  return { text, ...r };
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 40 ? `${one.slice(0, 37)}...` : one;
}

/**
 * `text` with its bind references read as names (`:x` → ` x`) and its `INTO :x [ , :y … ]`
 * clause blanked out; offsets are kept. Casts (`::`) are left alone.
 */
function withoutBinds(text: string): { text: string; names: Set<string> } {
  let toks: Tok[];
  try {
    toks = tokenize(text);
  } catch (err) {
    if (err instanceof ParseFailure) return { text, names: new Set() };
    throw err;
  }
  const chars = text.split('');
  const names = new Set<string>();
  const isBind = (k: number) => {
    const t = toks[k];
    const next = toks[k + 1];
    const prev = toks[k - 1];
    const cast = (prev && prev.text === ':' && prev.end === t.start) || (next && next.text === ':' && next.start === t.end);
    return (
      t.kind === 'punct' && t.text === ':' && !cast && next && (next.kind === 'word' || next.kind === 'qident') && next.start === t.end && !isAssignAt(toks, k)
    );
  };
  for (let k = 0; k < toks.length; k++) {
    if (toks[k].kind === 'word' && toks[k].value === 'INTO' && isBind(k + 1)) {
      // INTO :a [ , :b … ]
      let j = k + 1;
      let end = toks[k].end;
      while (isBind(j)) {
        names.add(toks[j + 1].value);
        end = toks[j + 1].end;
        if (toks[j + 2]?.text === ',' && isBind(j + 3)) j += 3;
        else break;
      }
      for (let p = toks[k].start; p < end; p++) chars[p] = ' ';
      k = j + 1;
    } else if (isBind(k)) {
      chars[toks[k].start] = ' ';
      names.add(toks[k + 1].value);
    }
  }
  return { text: chars.join(''), names };
}

function isAssignAt(toks: Tok[], k: number): boolean {
  const next = toks[k + 1];
  return next !== undefined && next.kind === 'punct' && next.text === '=' && next.start === toks[k].end;
}

// ---- CREATE PROCEDURE … LANGUAGE SQL AS <block> ----

/** `CREATE [ OR REPLACE | OR ALTER ] [ TEMP | TEMPORARY ] [ SECURE ] PROCEDURE` next. */
export function isProcedure(c: Cursor): boolean {
  let n = 1;
  if (c.isWords(['OR', 'REPLACE'], n) || c.isWords(['OR', 'ALTER'], n)) n += 2;
  if (c.isWord('TEMP', n) || c.isWord('TEMPORARY', n)) n++;
  if (c.isWord('SECURE', n)) n++;
  return c.isWord('CREATE') && c.isWord('PROCEDURE', n);
}

const EXECUTE_AS = ['OWNER', 'CALLER', 'RESTRICTED CALLER'];

/**
 * A Snowflake Scripting procedure (CREATE PROCEDURE's page, "Snowflake Scripting" form):
 * `CREATE [ OR REPLACE ] [ { TEMP | TEMPORARY } ] [ SECURE ] PROCEDURE <name> ( [ <arg> <type> [ DEFAULT <value> ] , … ] )
 * [ COPY GRANTS ] RETURNS { <type> [ NOT NULL ] | TABLE ( [ <col> <type> , … ] ) } [ LANGUAGE SQL ]
 * [ { CALLED ON NULL INPUT | { RETURNS NULL ON NULL INPUT | STRICT } } ] [ { VOLATILE | IMMUTABLE } ] [ COMMENT = '…' ]
 * [ EXECUTE AS { OWNER | CALLER | RESTRICTED CALLER } ] AS { <block> | $$ <block> $$ }`. Other languages are not read here.
 */
export function createProcedure(ctx: Ctx): Statement {
  const { c } = ctx;
  c.expect('CREATE');
  const orReplace = c.accept('OR', 'REPLACE');
  const orAlter = !orReplace && c.accept('OR', 'ALTER');
  const temporary = c.accept('TEMP') || c.accept('TEMPORARY');
  const secure = c.accept('SECURE');
  c.expect('PROCEDURE');
  const procName = objectName(c, 'the procedure name');
  c.expectPunct('(', ' to open the argument list');
  const args: Node[] = [];
  if (!c.isPunct(')'))
    do {
      const arg = name(c, 'an argument name');
      const type = dataType(c, `a data type for argument ${arg}`);
      const dflt = c.accept('DEFAULT') ? expr(ctx, `a default value for ${arg}`, [], [',']).text : null;
      args.push({ name: arg, type, ...(dflt !== null ? { default: dflt } : {}) });
    } while (c.acceptPunct(','));
  c.expectPunct(')', ' to close the argument list');
  const copyGrants = c.accept('COPY', 'GRANTS');
  c.expect('RETURNS');
  let returns: Node;
  if (c.accept('TABLE')) {
    c.expectPunct('(', ' after RETURNS TABLE');
    const columns: Node[] = [];
    if (!c.isPunct(')'))
      do {
        const col = name(c, 'a column name');
        columns.push({ name: col, type: dataType(c, `a data type for column ${col}`) });
      } while (c.acceptPunct(','));
    c.expectPunct(')', ' to close RETURNS TABLE ( … )');
    returns = { table: columns };
  } else {
    returns = { type: dataType(c, 'the return data type or TABLE ( … )') };
    if (c.accept('NOT', 'NULL')) returns.notNull = true;
  }
  const properties: Node = {};
  const once = (key: string, t: Tok) => {
    if (key in properties) c.failAt(`${key} is given twice`, t);
  };
  for (;;) {
    const t = c.tok;
    if (c.accept('LANGUAGE')) {
      once('LANGUAGE', t);
      if (!c.accept('SQL')) c.fail('SQL after LANGUAGE (this grammar reads Snowflake Scripting procedures)');
      properties.LANGUAGE = 'SQL';
    } else if (c.accept('CALLED', 'ON', 'NULL', 'INPUT') || c.accept('RETURNS', 'NULL', 'ON', 'NULL', 'INPUT') || c.accept('STRICT')) {
      once('NULL INPUT', t);
      properties['NULL INPUT'] = t.value === 'CALLED' ? 'CALLED ON NULL INPUT' : 'RETURNS NULL ON NULL INPUT';
    } else if (c.accept('VOLATILE') || c.accept('IMMUTABLE')) {
      once('VOLATILITY', t);
      properties.VOLATILITY = t.value;
    } else if (c.accept('COMMENT')) {
      once('COMMENT', t);
      c.expectPunct('=', ' after COMMENT');
      properties.COMMENT = stringLiteral(c, 'a string literal for COMMENT');
    } else if (c.accept('EXECUTE', 'AS')) {
      once('EXECUTE AS', t);
      const as = EXECUTE_AS.find((w) => c.accept(...w.split(' ')));
      if (!as) c.fail('OWNER, CALLER or RESTRICTED CALLER after EXECUTE AS');
      properties['EXECUTE AS'] = as;
    } else break;
  }
  if (!c.accept('AS')) c.fail('LANGUAGE SQL, CALLED ON NULL INPUT, RETURNS NULL ON NULL INPUT, STRICT, VOLATILE, IMMUTABLE, COMMENT, EXECUTE AS or AS <block>');
  let block: Node;
  if (atBlock(c)) block = scriptingBody(ctx);
  else {
    block = dollarBody(ctx, c.next());
    c.expectEnd();
  }
  const ast = {
    statement: 'CREATE',
    objectType: 'PROCEDURE',
    name: procName,
    orReplace,
    ...(orAlter ? { orAlter } : {}),
    ...(temporary ? { temporary } : {}),
    ...(secure ? { secure } : {}),
    args,
    ...(copyGrants ? { copyGrants } : {}),
    returns,
    properties,
    body: block,
  };
  return { ast, type: 'CREATE PROCEDURE' };
}
