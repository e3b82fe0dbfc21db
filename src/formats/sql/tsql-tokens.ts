// T-SQL text as a compact token array (typed arrays: a 100 MB batch stays a few hundred MB
// at most), with the client's batch separators folded in: a line holding only `GO` or
// `GO n` becomes one GO token, a SQLCMD line (`:setvar`, `:r`, `!!`) one DIRECTIVE token.
// Spaces and comments are dropped; strings, [identifiers] and "identifiers" are one token.
import { LEX, Lexer } from './lexer.js';

export const enum TokKind {
  Word = 1,
  Ident = 2,
  String = 3,
  Punct = 4,
  Other = 5,
  Go = 6,
  Directive = 7,
}

const GO_LINE = /[ \t]*go(?:[ \t]+(\d+))?[ \t]*;?[ \t]*(?:--[^\n]*)?(?=\r?\n|$)/iy;
const SQLCMD_LINE = /[ \t]*(?::(?:setvar|r|on[ \t]+error|connect|out|error|exit|quit|reset|ed|list|listvar|serverlist|help|xml|perftrace)\b|!!)[^\r\n]*/iy;

export class TsqlTokens {
  start = new Int32Array(1024);
  end = new Int32Array(1024);
  kind = new Uint8Array(1024);
  count = 0;
  /** GO n: repeat count by token index. */
  readonly repeat = new Map<number, number>();
  /** Index of the first token that reaches the end of the text (more text could change it), or count. */
  touchesEnd: number;
  unterminated: string | null = null;

  constructor(readonly text: string) {
    const lx = new Lexer(text, LEX.MsSql);
    const atLineStart = (p: number): boolean => p === 0 || text[p - 1] === '\n' || (text[p - 1] === '\r' && text[p] !== '\n');
    let touches = -1;
    for (;;) {
      const p = lx.pos;
      if (p >= text.length) break;
      if (atLineStart(p)) {
        GO_LINE.lastIndex = p;
        const go = GO_LINE.exec(text);
        if (go) {
          lx.pos = p + go[0].length;
          const at = this.push(TokKind.Go, p + go[0].length - go[0].trimStart().length, lx.pos);
          if (go[1]) this.repeat.set(at, Number(go[1]));
          continue;
        }
        SQLCMD_LINE.lastIndex = p;
        const cmd = SQLCMD_LINE.exec(text);
        if (cmd) {
          lx.pos = p + cmd[0].length;
          this.push(TokKind.Directive, p + cmd[0].length - cmd[0].trimStart().length, lx.pos);
          continue;
        }
      }
      const t = lx.next();
      if (!t) break;
      if (t.end >= text.length && touches < 0) touches = this.count;
      if (t.kind === 'space' || t.kind === 'comment') continue;
      const k =
        t.kind === 'word'
          ? TokKind.Word
          : t.kind === 'ident'
            ? TokKind.Ident
            : t.kind === 'string'
              ? TokKind.String
              : t.kind === 'punct'
                ? TokKind.Punct
                : TokKind.Other;
      this.push(k, t.start, t.end);
    }
    this.unterminated = lx.unterminated;
    this.touchesEnd = touches < 0 ? this.count : touches;
  }

  private push(k: TokKind, s: number, e: number): number {
    if (this.count === this.start.length) {
      const grow = <T extends Int32Array | Uint8Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.start = grow(this.start);
      this.end = grow(this.end);
      this.kind = grow(this.kind);
    }
    this.start[this.count] = s;
    this.end[this.count] = e;
    this.kind[this.count] = k;
    return this.count++;
  }

  /** Lower-case word or punctuation at i; '' for strings, identifiers, numbers and past the end. */
  word(i: number): string {
    if (i < 0 || i >= this.count) return '';
    const k = this.kind[i];
    if (k !== TokKind.Word && k !== TokKind.Punct) return '';
    return this.text.slice(this.start[i], this.end[i]).toLowerCase();
  }
}
