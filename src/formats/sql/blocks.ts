// Inner statements of a compound statement in the procedural dialects (Snowflake and BigQuery
// scripting, MySQL compound statements, Oracle PL/SQL, SQLite triggers, PL/pgSQL bodies):
// the statements of a BEGIN … END block, IF … END IF, LOOP / WHILE / FOR / REPEAT … END …,
// CASE … END CASE, and of a procedure, function, trigger or EXECUTE IMMEDIATE / DO body,
// also inside a $$ … $$ body. The compound statement is the unit; these are listed beneath it.
import { LEX, Lexer, type GenericDialect } from './lexer.js';
import type { InnerStatement } from './statements.js';

interface Tok {
  s: number;
  e: number;
  /** Lower-case word or punctuation; '' for strings, quoted identifiers and numbers. */
  w: string;
  dollar: number; // length of a dollar-quote delimiter ($$ = 2, $tag$ …), 0 otherwise
}

const STOP = new Set(['end', 'else', 'elsif', 'elseif', 'when', 'exception', 'until']);
const ROUTINE = new Set(['procedure', 'function', 'trigger', 'event', 'task', 'package']);
const FOREIGN_LANGUAGE = new Set(['javascript', 'python', 'java', 'scala', 'c', 'plpythonu', 'plpython3u', 'plperl', 'plv8', 'internal']);
const TRANSACTION_NEXT = new Set([';', 'transaction', 'tran', 'work', 'name', '']);

function tokens(text: string, from: number, to: number, dialect: GenericDialect): Tok[] {
  const lx = new Lexer(text.slice(0, to), LEX[dialect]);
  lx.pos = from;
  const out: Tok[] = [];
  for (let t = lx.next(); t; t = lx.next()) {
    if (t.kind === 'space' || t.kind === 'comment') continue;
    const raw = text.slice(t.start, t.end);
    const dollar = t.kind === 'string' ? (/^\$[A-Za-z_0-9]*\$/.exec(raw)?.[0].length ?? 0) : 0;
    out.push({ s: t.start, e: t.end, w: t.kind === 'word' || t.kind === 'punct' ? raw.toLowerCase() : '', dollar });
  }
  return out;
}

class BodyParser {
  i = 0;
  readonly out: InnerStatement[] = [];

  constructor(
    private readonly t: Tok[],
    private readonly declareSection: boolean,
  ) {}

  w(i = this.i): string {
    return this.t[i]?.w ?? '';
  }

  done(): boolean {
    return this.i >= this.t.length;
  }

  /** Statements up to a word that closes the enclosing construct. */
  seq(depth: number): void {
    for (;;) {
      while (!this.done() && this.w() === ';') this.i++;
      if (this.done() || STOP.has(this.w())) return;
      this.statement(depth);
    }
  }

  /** Moves past the next occurrence of one of `words` at parenthesis depth 0. */
  skipTo(words: Set<string>): void {
    let paren = 0;
    while (!this.done()) {
      const w = this.w();
      if (w === '(') paren++;
      else if (w === ')') paren = Math.max(0, paren - 1);
      else if (paren === 0 && words.has(w)) {
        this.i++;
        return;
      }
      this.i++;
    }
  }

  /** At END [word]: consumes it and the word naming the block (or a label). */
  end(named: string): void {
    if (this.w() !== 'end') return;
    this.i++;
    if (named && this.w() === named) this.i++;
    // END [word] label;
    const next = this.w(this.i + 1);
    if (!this.done() && /^[a-z_]/.test(this.w()) && !STOP.has(this.w()) && (next === ';' || next === '')) this.i++;
  }

  block(depth: number): void {
    // BEGIN statements [EXCEPTION WHEN … THEN statements …] END
    this.i++;
    this.seq(depth);
    if (this.w() === 'exception') {
      this.i++;
      while (this.w() === 'when') {
        this.skipTo(new Set(['then']));
        this.seq(depth);
      }
    }
    this.end('');
  }

  statement(depth: number): void {
    const first = this.i;
    const entry: InnerStatement = { start: this.t[first].s, end: this.t[first].e, depth };
    this.out.push(entry);
    // Labels: `name:` (SQL/PSM) and `<<name>>` (PL/SQL).
    if (this.w(this.i + 1) === ':' && this.w(this.i + 2) !== '=') this.i += 2;
    else if (this.w() === '<' && this.w(this.i + 1) === '<') {
      this.skipTo(new Set(['>']));
      if (this.w() === '>') this.i++;
    }
    const w = this.w();
    if (w === 'begin' && !TRANSACTION_NEXT.has(this.w(this.i + 1))) this.block(depth + 1);
    else if (w === 'declare' && this.declareSection) {
      this.skipTo(new Set(['begin']));
      this.i--;
      this.block(depth + 1);
    } else if (w === 'declare' && this.handlerBlock()) {
      // MySQL: DECLARE … HANDLER FOR … BEGIN … END — the handler's body is a block.
      this.skipTo(new Set(['begin']));
      this.i--;
      this.block(depth + 1);
    } else if (w === 'if') this.conditional(depth);
    else if (w === 'case' && this.isCaseStatement()) {
      this.skipTo(new Set(['when']));
      this.i--;
      while (this.w() === 'when') {
        this.skipTo(new Set(['then']));
        this.seq(depth + 1);
      }
      if (this.w() === 'else') {
        this.i++;
        this.seq(depth + 1);
      }
      this.end('case');
    } else if (w === 'loop') {
      this.i++;
      this.seq(depth + 1);
      this.end('loop');
    } else if (w === 'while' || w === 'for') {
      this.skipTo(new Set(['loop', 'do']));
      this.seq(depth + 1);
      this.end(this.w(this.i + 1) === 'loop' ? 'loop' : w);
    } else if (w === 'repeat') {
      this.i++;
      this.seq(depth + 1);
      this.skipTo(new Set(['end']));
      this.i--;
      this.end('repeat');
    } else this.simple();
    entry.end = this.t[Math.max(first, Math.min(this.i, this.t.length) - 1)].e;
    if (this.t[this.i - 1]?.w === ';' && this.i - 1 > first) entry.end = this.t[this.i - 2].e;
  }

  private conditional(depth: number): void {
    // IF cond THEN … [ELSIF|ELSEIF cond THEN …] [ELSE …] END IF
    this.skipTo(new Set(['then']));
    this.seq(depth + 1);
    while (this.w() === 'elsif' || this.w() === 'elseif') {
      this.skipTo(new Set(['then']));
      this.seq(depth + 1);
    }
    if (this.w() === 'else') {
      this.i++;
      this.seq(depth + 1);
    }
    this.end('if');
  }

  /** At DECLARE: a handler whose body is BEGIN … END (BEGIN before the first ';'). */
  private handlerBlock(): boolean {
    let handler = false;
    let paren = 0;
    for (let j = this.i; j < this.t.length; j++) {
      const w = this.w(j);
      if (w === '(') paren++;
      else if (w === ')') paren = Math.max(0, paren - 1);
      else if (w === ';') return false;
      else if (w === 'handler') handler = true;
      else if (w === 'begin' && paren === 0) return handler;
    }
    return false;
  }

  private isCaseStatement(): boolean {
    // A CASE statement's branches hold statements ending in ';' before its END CASE.
    let cases = 0;
    for (let j = this.i; j < this.t.length; j++) {
      const w = this.w(j);
      if (w === 'case') cases++;
      else if (w === 'end') {
        if (--cases === 0) return this.w(j + 1) === 'case';
      } else if (w === ';' && cases === 1) return true;
    }
    return false;
  }

  /** A statement without inner statements: to ';' outside parentheses and CASE … END. */
  private simple(): void {
    let paren = 0;
    let cases = 0;
    const first = this.i;
    while (!this.done()) {
      const w = this.w();
      if (w === '(') paren++;
      else if (w === ')') paren = Math.max(0, paren - 1);
      else if (paren === 0 && w === 'case') cases++;
      else if (paren === 0 && w === 'end' && cases > 0) cases--;
      else if (paren === 0 && cases === 0 && (w === ';' || (STOP.has(w) && this.i > first))) break;
      this.i++;
    }
    if (this.w() === ';') this.i++;
  }
}

/** The body of a compound statement [from, to): where its inner statements start, or null. */
function findBody(t: Tok[], dialect: GenericDialect): { at: number; dollar?: Tok; declare: boolean } | null {
  const words = t.slice(0, 40).map((x) => x.w);
  const first = words[0];
  const procedural = dialect === 'Snowflake' || dialect === 'Oracle' || dialect === 'PgFallback';
  if (first === 'begin' && !TRANSACTION_NEXT.has(words[1] ?? '')) return { at: 0, declare: procedural };
  if (first === 'declare' && procedural) return { at: 0, declare: true };
  if (dialect === 'BigQuery' && ['if', 'loop', 'while', 'repeat', 'for', 'case'].includes(first)) return { at: 0, declare: false };
  const routine = (first === 'create' || first === 'alter') && words.slice(1, 10).some((w) => ROUTINE.has(w));
  const immediate = (first === 'execute' && words[1] === 'immediate') || first === 'do' || first === 'call';
  if (!routine && !immediate) return null;
  const lang = words.indexOf('language');
  if (lang >= 0 && FOREIGN_LANGUAGE.has(words[lang + 1] ?? '')) return null;
  const dollar = t.find((x) => x.dollar > 0);
  if (dollar) return { at: -1, dollar, declare: procedural };
  if (!routine) return null;
  let paren = 0;
  for (let i = 1; i < t.length; i++) {
    const w = t[i].w;
    if (w === '(') paren++;
    else if (w === ')') paren = Math.max(0, paren - 1);
    else if (paren === 0 && w === 'begin' && !TRANSACTION_NEXT.has(t[i + 1]?.w ?? '')) return { at: i, declare: procedural };
    else if (paren === 0 && dialect === 'Oracle' && (w === 'is' || w === 'as')) return { at: i, declare: true };
  }
  return null;
}

/** Statement heads that can hold inner statements (checked before the statement is lexed). */
const COMPOUND_HEAD =
  /^\s*(?:(?:--[^\n]*\n|\/\*[\s\S]*?\*\/|#[^\n]*\n)\s*)*(?:begin|declare|if|loop|while|repeat|for|case|do|call|execute\s+immediate|(?:create|alter)\b[\s\S]{0,200}?\b(?:procedure|function|trigger|event|task|package))\b/i;

/** Inner statements of the statement text[start, end), in order, with their depth. */
export function innerStatements(text: string, start: number, end: number, dialect: GenericDialect, nested = 0): InnerStatement[] {
  if (nested > 2 || end - start < 10) return [];
  if (!COMPOUND_HEAD.test(text.slice(start, Math.min(end, start + 400)))) return [];
  const t = tokens(text, start, end, dialect);
  const body = findBody(t, dialect);
  if (!body) return [];
  if (body.dollar) {
    // A $$ body: its content is a script of its own.
    const from = body.dollar.s + body.dollar.dollar;
    const to = body.dollar.e - body.dollar.dollar;
    if (to <= from) return [];
    const inner = tokens(text, from, to, dialect);
    const p = new BodyParser(inner, body.declare);
    if (inner[0]?.w === 'begin' || inner[0]?.w === 'declare') {
      p.statement(0);
      return p.out.slice(1);
    }
    p.seq(1);
    return p.out;
  }
  const p = new BodyParser(t.slice(body.at), body.declare);
  if (body.at > 0 && (t[body.at].w === 'is' || t[body.at].w === 'as')) {
    // Oracle routine: declarations, then BEGIN … END.
    p.skipTo(new Set(['begin']));
    p.i--;
  }
  p.statement(0);
  return p.out.slice(1);
}
