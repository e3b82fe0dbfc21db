// A multi-row INSERT whose row list makes it too large to parse (mysqldump's ~1 MB extended
// inserts, pg_dump --rows-per-insert, an INSERT of tens of MB) still says what a user wants to
// know — its type, its table and columns — in its first row and in what surrounds the rows. So
// the statement is offered to the parsers with its VALUES list cut to the first row: the text
// before the rows, the first row, and the text after the last row (ON CONFLICT …, ON DUPLICATE
// KEY UPDATE …, RETURNING …). The rows are found by the dialect's lexer, so parentheses and
// commas inside strings, quoted names and comments do not count; only a plain list of
// parenthesised rows is cut.
import { countTokens, Lexer, type LexConfig, type Token } from './lexer.js';

const OPEN = 40; // (
const CLOSE = 41; // )
const COMMA = 44;

export interface ValuesHead {
  /** The statement with its row list cut to the first row. */
  text: string;
  /** Rows in the VALUES list. */
  rows: number;
  /** Offsets in the statement where the first row ends and where the last row ends: `text` is
   *  statement[0, firstRowEnd) + statement[lastRowEnd, …). */
  firstRowEnd: number;
  lastRowEnd: number;
}

/**
 * The head of `sql` when it is INSERT / REPLACE … VALUES (…), (…)[, …] … with at least two rows,
 * and the statement without rows 2… has at most `maxTokens` tokens; else null (not that shape,
 * or large for another reason).
 */
export function valuesHead(sql: string, lex: LexConfig, maxTokens: number): ValuesHead | null {
  const lx = new Lexer(sql, lex);
  /** The next token that is neither whitespace nor a comment, or null at the end. */
  const next = (): Token | null => {
    let t = lx.next();
    while (t && (t.kind === 'space' || t.kind === 'comment')) t = lx.next();
    return t;
  };
  const punct = (t: Token | null, c: number): boolean => t !== null && t.kind === 'punct' && sql.charCodeAt(t.start) === c;
  const word = (t: Token | null, w: string): boolean =>
    t !== null && t.kind === 'word' && t.end - t.start === w.length && sql.slice(t.start, t.end).toLowerCase() === w;
  /** Reads a parenthesised row whose '(' was just read; its end, or -1 when it never closes. */
  const row = (): number => {
    let depth = 1;
    for (let t = next(); t; t = next()) {
      if (t.kind !== 'punct') continue;
      const c = sql.charCodeAt(t.start);
      if (c === OPEN) depth++;
      else if (c === CLOSE && --depth === 0) return t.end;
    }
    return -1;
  };

  let t = next();
  if (!word(t, 'insert') && !word(t, 'replace')) return null;
  // Up to VALUES outside parentheses: more than maxTokens before it and the head is too large anyway.
  let tokens = 0;
  let depth = 0;
  for (; t && !(depth === 0 && word(t, 'values')); t = next()) {
    if (++tokens > maxTokens) return null;
    if (punct(t, OPEN)) depth++;
    else if (punct(t, CLOSE)) depth--;
  }
  if (!t || !punct(next(), OPEN)) return null;
  const firstRowEnd = row();
  if (firstRowEnd < 0) return null;
  let rows = 1;
  let lastRowEnd = firstRowEnd;
  let after = next();
  while (punct(after, COMMA)) {
    if (!punct(next(), OPEN)) return null; // not a plain row list (VALUES ROW(…), DEFAULT …)
    const end = row();
    if (end < 0) return null;
    rows++;
    lastRowEnd = end;
    after = next();
  }
  if (rows < 2) return null;
  const text = sql.slice(0, firstRowEnd) + sql.slice(lastRowEnd);
  // What is left must be small enough to parse: the words before the rows, the first row, the tail.
  if (countTokens(text, lex, maxTokens) > maxTokens) return null;
  return { text, rows, firstRowEnd, lastRowEnd };
}
