// PostgreSQL's tokens as the statement splitter sees them, read by our lexer (lexer.ts) instead
// of libpg-query's scanner wherever the two cannot differ. The scanner hands back every token
// of its input as JSON — ~0.7 s of CPU per MiB of dense INSERT rows — where our lexer reads the
// same text in ~0.015 s. The splitter looks only at ';', brackets, words (their offsets and
// text) and where each token starts and ends; a stretch is read here only when every token in
// it is one whose reading is certain to match the scanner's in those respects, and one the
// scanner accepts (its errors are listed in PostgreSQL's scan.l). Anything else — a prefixed string other than plain E'', B'' and X'', a number
// followed by letters, an operator our lexer reads as a word (@, #) or one of 32 characters or
// more, a parameter past $999999999, a backslash outside strings, non-ASCII whitespace, an
// unterminated string or comment, control characters the scanner's JSON cannot carry — makes
// the caller give that stretch to the scanner.
import { LEX, Lexer } from './lexer.js';

/** Where each token goes: its offsets, and its text when it is ';', a bracket or word-like (else ''). */
export type TokenSink = (start: number, end: number, token: string) => void;

/** Control characters but tab, line feed and carriage return: libpg-query's JSON output breaks on them. */
const JSON_BREAKING = /[\x00-\x08\x0b\x0c\x0e-\x1f]/;
/** Plain numbers (PostgreSQL: ICONST / FCONST), and one whose exponent sign our lexer reads apart. */
const NUMBER = /^[0-9]+(?:\.[0-9]*)?(?:[eE][0-9]+)?$/;
const NUMBER_BEFORE_SIGN = /^[0-9]+(?:\.[0-9]*)?[eE]$/;
/** After `1e`: the signed exponent, ending where PostgreSQL's number ends too (else it reports trailing junk). */
const EXPONENT = /[+-][0-9]+(?![0-9A-Za-z_.$\u0080-\uffff])/y;
/** Operator and punctuation characters both lexers read alike ('@' and '#' start words in ours). */
const PLAIN_PUNCT = new Set(',:.+-*/<>=~!%^&|?'.split('').map((c) => c.charCodeAt(0)));
/** Characters PostgreSQL runs together into one operator, which it rejects at 64 characters. */
const OPERATOR = new Set('+-*/<>=~!%^&|?'.split('').map((c) => c.charCodeAt(0)));
const LONG_OPERATOR = 32;
/** A parameter ($n) of more digits than this may be past 2^31 - 1, which PostgreSQL rejects. */
const PARAM_DIGITS = 9;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Reads `part` (a piece PostgreSQL's lexer would start afresh on) and feeds `sink` its tokens,
 * comments left out, with offsets from `base`. Returns false as soon as a token is one the
 * scanner might read otherwise; the caller then discards what was fed and scans the piece.
 */
export function lexLikePostgres(part: string, base: number, sink: TokenSink): boolean {
  if (JSON_BREAKING.test(part)) return false;
  const lx = new Lexer(part, LEX.PgFallback);
  let operatorEnd = -1; // where the run of operator characters being read ends
  let operatorRun = 0;
  for (let tok = lx.next(); tok; tok = lx.next()) {
    // An unterminated string, identifier or comment: the scanner fails on it.
    if (lx.unterminated) return false;
    const s = tok.start;
    const e = tok.end;
    const c = part.charCodeAt(s);
    switch (tok.kind) {
      case 'space':
        // Non-ASCII spaces are identifier characters to PostgreSQL.
        for (let i = s + 1; i < e; i++) if (part.charCodeAt(i) > 127) return false;
        continue;
      case 'comment': {
        // PostgreSQL's `--` comment also ends at a lone carriage return.
        const cr = c === 45 ? part.indexOf('\r', s) : -1;
        if (cr >= 0 && cr < e - 1) return false;
        continue;
      }
      case 'ident':
        if (e - s === 2) return false; // "" is an error to PostgreSQL
        sink(base + s, base + e, '');
        continue;
      case 'string':
        if (c === 39 || c === 36) {
          sink(base + s, base + e, '');
          continue;
        }
        if (part.charCodeAt(s + 1) !== 39) return false; // two-letter prefixes are an identifier and a string to PostgreSQL
        if (c === 69 || c === 101) {
          // E'…': its escapes can make the scanner reject it (\u, invalid bytes): only without them.
          if (part.lastIndexOf('\\', e - 1) > s) return false;
          sink(base + s, base + e, '');
          continue;
        }
        if (c === 66 || c === 98 || c === 88 || c === 120) {
          // B'…', X'…': one token to PostgreSQL, not a string constant (so the splitter sees a word);
          // a doubled quote ends it there.
          if (part.slice(s + 2, e - 1).includes("''")) return false;
          sink(base + s, base + e, part.slice(s, e));
          continue;
        }
        return false; // N'…' is NCHAR and a string; U&'…' and others
      case 'word': {
        const w = part.slice(s, e);
        if (w.includes('@') || w.includes('#')) return false;
        if (e - s === 1 && (c === 85 || c === 117) && part.charCodeAt(e) === 38) return false; // U&'…' / U&"…"
        sink(base + s, base + e, w);
        continue;
      }
      case 'other': {
        // Our lexer's number: digits, then letters, digits, '_' and '.'.
        const n = part.slice(s, e);
        if (part.charCodeAt(e) > 127) return false; // a number followed by an identifier
        if (!NUMBER.test(n)) {
          if (!NUMBER_BEFORE_SIGN.test(n)) return false;
          EXPONENT.lastIndex = e;
          if (!EXPONENT.test(part)) return false;
        }
        sink(base + s, base + e, '');
        continue;
      }
      case 'punct':
        if (OPERATOR.has(c)) {
          // Our lexer reads an operator a character at a time; PostgreSQL rejects a long one.
          operatorRun = s === operatorEnd ? operatorRun + 1 : 1;
          operatorEnd = e;
          if (operatorRun >= LONG_OPERATOR) return false;
        }
        if (c === 59 || c === 40 || c === 41 || c === 91 || c === 93) sink(base + s, base + e, part[s]);
        else if (PLAIN_PUNCT.has(c)) sink(base + s, base + e, '');
        else if (c === 36 && isDigit(part.charCodeAt(e))) {
          // $n, a parameter.
          let d = e;
          while (isDigit(part.charCodeAt(d))) d++;
          if (d - e > PARAM_DIGITS) return false;
          sink(base + s, base + e, '');
        } else return false; // a backslash, a backtick, braces, '$' not before a digit
        continue;
    }
  }
  return true;
}
