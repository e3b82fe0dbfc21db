// T-SQL statements, counted as SQL Server's own parser (ScriptDom) counts them. `GO` / `GO n`
// lines end a batch (client directives, not statements). Inside a batch semicolons are
// optional, so a statement ends where the grammar says the next one begins: at a statement
// keyword (SELECT, SET, DECLARE, …) in a position where it cannot continue the current
// statement (INSERT … SELECT, UNION SELECT, UPDATE … SET, MERGE … THEN DELETE, GRANT
// SELECT, ON DELETE SET NULL, FOR UPDATE, OFFSET … FETCH, WITH (NOLOCK) …). Compound
// statements are one statement with their inner statements beneath: BEGIN … END,
// BEGIN TRY … END TRY BEGIN CATCH … END CATCH, IF … ELSE, WHILE, and a procedure or trigger
// (its body runs to the end of the batch, as SQL Server reads it) or function (AS BEGIN … END,
// AS RETURN …). A label (`name:`) is a statement, as in ScriptDom; empty `;` are not.
import type { InnerStatement, RawStatement } from './statements.js';
import { TokKind, TsqlTokens } from './tsql-tokens.js';

/** Words after which a DDL `IF [NOT] EXISTS` belongs to the statement (DROP TABLE IF EXISTS t). */
const OBJECT_TYPES = new Set([
  'table',
  'view',
  'procedure',
  'proc',
  'function',
  'trigger',
  'index',
  'database',
  'schema',
  'login',
  'user',
  'role',
  'sequence',
  'synonym',
  'type',
  'assembly',
  'statistics',
  'default',
  'rule',
  'xml',
  'fulltext',
  'partition',
  'queue',
  'service',
  'route',
  'endpoint',
  'certificate',
  'symmetric',
  'asymmetric',
  'master',
  'credential',
  'event',
  'server',
  'application',
  'availability',
  'broker',
  'contract',
  'message',
  'remote',
  'resource',
  'workload',
  'search',
  'security',
  'spatial',
  'unique',
  'clustered',
  'nonclustered',
  'columnstore',
  'primary',
  'external',
  'aggregate',
  'audit',
  'cryptographic',
  'signature',
  'encryption',
  'selective',
]);

/** Words after which `IF [NOT] EXISTS` is part of a DDL statement (DROP TABLE IF EXISTS t, DROP COLUMN IF EXISTS c). */
const BEFORE_IF_EXISTS = new Set([...OBJECT_TYPES, 'column', 'constraint']);

/** Words after which an expression continues (so a keyword there is a name: SELECT close FROM prices). */
const EXPRESSION_BEFORE = new Set(['=', 'select', 'by', 'and', 'or', 'not', 'is', 'like', 'between', 'where', 'when', '+', '-', '*', '/', '<', '>', ':']);

/** Statement keywords that always begin a statement where they stand outside an expression. */
const ALWAYS = new Set([
  'declare',
  'print',
  'use',
  'truncate',
  'return',
  'break',
  'continue',
  'goto',
  'raiserror',
  'throw',
  'waitfor',
  'dbcc',
  'checkpoint',
  'kill',
  'reconfigure',
  'shutdown',
  'backup',
  'restore',
  'readtext',
  'writetext',
  'updatetext',
  'setuser',
  'deallocate',
  'open',
  'close',
  'commit',
  'rollback',
  'save',
  'while',
  'begin',
  'deny',
  'revoke',
  'receive',
]);

const TRANSACTION_WORDS = new Set(['tran', 'transaction', 'distributed', 'dialog', 'conversation']);
const SET_OPERATORS = new Set(['union', 'all', 'except', 'intersect']);
const DML = new Set(['select', 'insert', 'update', 'delete', 'merge']);

interface Ctx {
  head: string;
  head2: string;
  /** INSERT: its source (VALUES, SELECT, EXEC, DEFAULT VALUES) has not come yet. */
  insertSource: boolean;
  /** UPDATE / ALTER DATABASE: its SET has not come yet. */
  setPending: boolean;
  /** A CTE list was read: the next DML verb is the statement's own. */
  ctePending: boolean;
  /** GRANT / DENY / REVOKE: TO / FROM has not come yet (permission names are keywords). */
  permissions: boolean;
  /** Inline table-valued function: RETURN is followed by its SELECT. */
  returnSelect: boolean;
}

export interface TsqlNode {
  first: number; // token indexes
  last: number;
  /** Token index just past the statement (after its ';' when it has one). */
  next: number;
  semicolon: boolean;
  children: TsqlNode[];
}

export interface TsqlSplit {
  statements: RawStatement[];
  /** GO lines and SQLCMD commands read (offset, text), up to the resume point. */
  directives: { offset: number; text: string; kind: 'go' | 'sqlcmd' }[];
  warnings: string[];
  /** Offset where a later pass over more text must start again (the text length when final). */
  resume: number;
  /** Batch index at `resume`. */
  batch: number;
}

/** Open batches are held back (for their GO n) until they hold this much text. */
const HOLD_OPEN_BATCH_CHARS = 8 * 1024 * 1024;

class Parser {
  i = 0;
  /** Highest token index looked at. */
  seen = 0;

  constructor(private readonly t: TsqlTokens) {}

  w(i: number): string {
    if (i > this.seen) this.seen = i;
    return this.t.word(i);
  }

  kind(i: number): number {
    if (i > this.seen) this.seen = i;
    return i < this.t.count ? this.t.kind[i] : 0;
  }

  /** End of the batch: a GO line or the end of the text. */
  atBatchEnd(i = this.i): boolean {
    const k = this.kind(i);
    return k === 0 || k === TokKind.Go;
  }

  /** SQLCMD lines read (token indexes), wherever they stand. */
  readonly directives: number[] = [];

  /** Skips empty statements (';') and records SQLCMD lines. */
  skipNoise(): void {
    while (!this.atBatchEnd()) {
      if (this.kind(this.i) === TokKind.Directive) this.directives.push(this.i);
      else if (this.w(this.i) !== ';') return;
      this.i++;
    }
  }

  isLabel(i: number): boolean {
    return this.kind(i) === TokKind.Word && this.w(i + 1) === ':' && this.w(i + 2) !== ':' && this.w(i - 1) !== ':';
  }

  isBlockEnd(i: number): boolean {
    return this.w(i) === 'end' && this.w(i + 1) !== 'conversation';
  }

  /** WITH that opens a common table expression list (or WITH XMLNAMESPACES). */
  isCte(i: number): boolean {
    const n = this.w(i + 1);
    if (n === 'xmlnamespaces') return this.w(i + 2) === '(';
    const nk = this.kind(i + 1);
    if (nk !== TokKind.Word && nk !== TokKind.Ident) return false;
    let j = i + 2;
    if (this.w(j) === '(') {
      let depth = 0;
      for (; !this.atBatchEnd(j); j++) {
        const x = this.w(j);
        if (x === '(') depth++;
        else if (x === ')' && --depth === 0) break;
      }
      j++;
    }
    return this.w(j) === 'as' && this.w(j + 1) === '(';
  }

  /** Does the keyword at i begin a new statement, given the statement being read? */
  startsStatement(i: number, ctx: Ctx): boolean {
    if (this.kind(i) !== TokKind.Word) return false;
    const w = this.w(i);
    const prev = this.w(i - 1);
    const next = this.w(i + 1);
    if (prev === ',' || prev === '.' || next === '.' || EXPRESSION_BEFORE.has(prev)) return false;
    if (this.isLabel(i)) return true;
    if (ctx.permissions && (w === 'to' || w === 'from')) {
      ctx.permissions = false;
      return false;
    }
    if (ctx.permissions && w !== 'begin') return false;
    switch (w) {
      case 'select':
        if (SET_OPERATORS.has(prev) || prev === 'as' || prev === 'for') return false;
        if (ctx.returnSelect && prev === 'return') return false;
        return !this.takesVerb(w, ctx);
      case 'insert':
      case 'delete':
      case 'merge':
      case 'update':
        if (w === 'update' && (next === '(' || (next === 'statistics' && prev === 'or'))) return false;
        if (['then', 'for', 'on', 'after', 'of', 'grant', 'bulk', 'instead'].includes(prev)) return false;
        if (w === 'merge' && next === 'range') return false;
        return !this.takesVerb(w, ctx);
      case 'set':
        if (ctx.setPending) {
          ctx.setPending = false;
          return false;
        }
        if (prev === 'delete' || prev === 'update' || prev === 'then') return false;
        if (ctx.head === 'alter' && next === '(') return false;
        return true;
      case 'with':
        if (prev === 'as') {
          if (this.isCte(i)) ctx.ctePending = true;
          return false;
        }
        return this.isCte(i);
      case 'exec':
      case 'execute':
        if (prev === 'with' || prev === 'grant') return false;
        if (ctx.insertSource) {
          ctx.insertSource = false;
          return false;
        }
        return true;
      case 'create':
      case 'alter':
      case 'drop':
        if (prev === 'grant' || prev === 'or') return false;
        if (ctx.head === 'alter' && w !== 'create' && !OBJECT_TYPES.has(next)) return false;
        if (ctx.head === 'alter' && next === 'column') return false;
        return true;
      case 'grant':
        return prev !== 'with' && prev !== 'revoke';
      case 'if':
        return !BEFORE_IF_EXISTS.has(prev);
      case 'fetch':
        return prev !== 'rows' && prev !== 'row';
      case 'enable':
      case 'disable':
        return next === 'trigger' && ctx.head !== 'alter';
      case 'get':
      case 'move':
        return next === 'conversation';
      case 'send':
        return next === 'on';
      case 'end':
        return next === 'conversation';
      case 'revert':
        return prev !== 'no';
      default:
        return ALWAYS.has(w);
    }
  }

  /** A DML verb the current statement still expects (INSERT's SELECT/EXEC source, a CTE's statement). */
  private takesVerb(w: string, ctx: Ctx): boolean {
    if (ctx.ctePending && DML.has(w)) {
      ctx.ctePending = false;
      this.setHead(ctx, w);
      return true;
    }
    if (ctx.insertSource && w === 'select') {
      ctx.insertSource = false;
      return true;
    }
    return false;
  }

  private setHead(ctx: Ctx, head: string): void {
    ctx.head = head;
    ctx.insertSource = head === 'insert';
    ctx.setPending = head === 'update';
  }

  newCtx(at: number): Ctx {
    const head = this.w(at);
    const head2 = this.w(at + 1);
    const ctx: Ctx = { head, head2, insertSource: false, setPending: false, ctePending: false, permissions: false, returnSelect: false };
    this.setHead(ctx, head);
    if (head === 'update' && head2 === 'statistics') ctx.setPending = false;
    if (head === 'alter' && head2 === 'database') ctx.setPending = true;
    if (head === 'with') ctx.ctePending = true;
    if (head === 'grant' || head === 'deny' || head === 'revoke') ctx.permissions = true;
    return ctx;
  }

  /** A statement of no inner statements: from its first token to where the next begins. */
  simple(ctx?: Ctx): TsqlNode {
    const first = this.i;
    ctx ??= this.newCtx(first);
    let paren = 0;
    let cases = 0;
    let last = first;
    this.i++;
    while (!this.atBatchEnd() && this.kind(this.i) !== TokKind.Directive) {
      const i = this.i;
      const w = this.w(i);
      if (w === ';' && paren === 0 && cases === 0) {
        this.i++;
        return { first, last, next: this.i, semicolon: true, children: [] };
      }
      if (w === '(') paren++;
      else if (w === ')') paren = Math.max(0, paren - 1);
      else if (paren === 0 && this.kind(i) === TokKind.Word) {
        if (w === 'case') cases++;
        else if (w === 'end' && cases > 0) cases--;
        else if (cases === 0 && (w === 'else' || this.isBlockEnd(i))) break;
        else if (cases === 0 && this.startsStatement(i, ctx)) break;
        if (ctx.insertSource && (w === 'values' || w === 'default')) ctx.insertSource = false;
      }
      last = i;
      this.i++;
    }
    return { first, last, next: this.i, semicolon: false, children: [] };
  }

  /** Statements up to END (inside a block) or the end of the batch. */
  list(inBlock: boolean): TsqlNode[] {
    const out: TsqlNode[] = [];
    for (;;) {
      this.skipNoise();
      if (this.atBatchEnd() || (inBlock && this.isBlockEnd(this.i))) return out;
      out.push(this.statement());
    }
  }

  statement(): TsqlNode {
    const i = this.i;
    const w = this.w(i);
    const next = this.w(i + 1);
    if (this.isLabel(i)) {
      this.i += 2;
      return this.finish(i, i + 1, []);
    }
    if (w === 'begin' && next === 'try') return this.tryCatch();
    if (w === 'begin' && next === 'atomic') return this.block(true);
    if (w === 'begin' && !TRANSACTION_WORDS.has(next)) return this.block(false);
    if (w === 'if' || w === 'while') return this.conditional(w === 'if');
    if ((w === 'create' || w === 'alter') && this.routineKind(i)) return this.routine(this.routineKind(i)!);
    return this.simple();
  }

  /** Consumes an optional ';' after a compound statement. */
  private finish(first: number, last: number, children: TsqlNode[]): TsqlNode {
    const semicolon = !this.atBatchEnd() && this.w(this.i) === ';';
    if (semicolon) this.i++;
    return { first, last, next: this.i, semicolon, children };
  }

  private endOf(word: string): number {
    // At END [word]: returns the index of its last token and moves past it.
    const at = this.i;
    if (!this.isBlockEnd(at)) return Math.max(at - 1, 0);
    this.i++;
    if (word && this.w(this.i) === word) this.i++;
    return this.i - 1;
  }

  block(atomic: boolean): TsqlNode {
    const first = this.i;
    this.i++;
    if (atomic) {
      // BEGIN ATOMIC WITH (TRANSACTION ISOLATION LEVEL = …, LANGUAGE = …)
      this.i++;
      if (this.w(this.i) === 'with' && this.w(this.i + 1) === '(') this.skipParens(this.i + 1);
    }
    const children = this.list(true);
    const last = this.atBatchEnd() ? this.lastBefore(this.i) : this.endOf('');
    return this.finish(first, last, children);
  }

  tryCatch(): TsqlNode {
    const first = this.i;
    this.i += 2;
    const children = this.list(true);
    let last = this.endOf('try');
    this.skipNoise();
    if (this.w(this.i) === 'begin' && this.w(this.i + 1) === 'catch') {
      this.i += 2;
      children.push(...this.list(true));
      last = this.atBatchEnd() ? this.lastBefore(this.i) : this.endOf('catch');
    }
    return this.finish(first, last, children);
  }

  conditional(isIf: boolean): TsqlNode {
    const first = this.i;
    this.i++;
    // The condition runs to the first statement keyword outside parentheses and CASE.
    const cond = this.newCtx(first);
    let paren = 0;
    let cases = 0;
    while (!this.atBatchEnd()) {
      const w = this.w(this.i);
      if (w === '(') paren++;
      else if (w === ')') paren = Math.max(0, paren - 1);
      else if (paren === 0 && w === 'case') cases++;
      else if (paren === 0 && w === 'end' && cases > 0) cases--;
      else if (paren === 0 && cases === 0 && this.startsStatement(this.i, cond)) break;
      this.i++;
    }
    const children: TsqlNode[] = [];
    let last = this.lastBefore(this.i);
    if (!this.atBatchEnd() && !this.isBlockEnd(this.i)) {
      const body = this.statement();
      children.push(...this.flatten(body));
      last = this.lastOf(body);
      if (isIf && this.w(this.i) === 'else') {
        this.i++;
        if (!this.atBatchEnd() && !this.isBlockEnd(this.i)) {
          const other = this.statement();
          children.push(...this.flatten(other));
          last = this.lastOf(other);
        } else last = this.i - 1;
      }
    }
    return { first, last, next: this.i, semicolon: this.i > 0 && this.w(this.i - 1) === ';', children };
  }

  /** CREATE/ALTER [OR ALTER] PROCEDURE|PROC|FUNCTION|TRIGGER at i, or null. */
  routineKind(i: number): 'procedure' | 'function' | 'trigger' | null {
    let j = i + 1;
    if (this.w(j) === 'or' && this.w(j + 1) === 'alter') j += 2;
    const k = this.w(j);
    if (k === 'procedure' || k === 'proc') return 'procedure';
    if (k === 'function') return 'function';
    if (k === 'trigger') return 'trigger';
    return null;
  }

  routine(kind: 'procedure' | 'function' | 'trigger'): TsqlNode {
    const first = this.i;
    // The header runs to AS (not the AS of `@param AS type` or `EXECUTE AS`).
    let paren = 0;
    while (!this.atBatchEnd()) {
      const w = this.w(this.i);
      if (w === '(') paren++;
      else if (w === ')') paren = Math.max(0, paren - 1);
      else if (paren === 0 && w === 'as') {
        const prev = this.t.text.charCodeAt(this.t.start[this.i - 1]);
        const pw = this.w(this.i - 1);
        if (prev !== 64 && pw !== 'execute' && pw !== 'exec') break;
      }
      this.i++;
    }
    if (this.atBatchEnd()) return { first, last: this.lastBefore(this.i), next: this.i, semicolon: false, children: [] };
    this.i++;
    if (this.w(this.i) === 'external') {
      const body = this.simple();
      return { first, last: body.last, next: body.next, semicolon: body.semicolon, children: [] };
    }
    if (kind === 'function') {
      // AS BEGIN … END, or an inline function's AS RETURN [(] SELECT … [)].
      if (this.w(this.i) === 'begin') {
        const body = this.block(false);
        return { first, last: body.last, next: body.next, semicolon: body.semicolon, children: body.children };
      }
      if (this.atBatchEnd()) return { first, last: this.i - 1, next: this.i, semicolon: false, children: [] };
      const ctx = this.newCtx(this.i);
      ctx.returnSelect = true;
      const body = this.simple(ctx);
      return { first, last: body.last, next: body.next, semicolon: body.semicolon, children: [] };
    }
    // A procedure's or trigger's body is the rest of the batch.
    const body = this.list(false);
    const children = body.length === 1 && this.isBlock(body[0]) ? body[0].children : body;
    const last = body.length ? this.lastOf(body[body.length - 1]) : this.i - 1;
    return { first, last, next: this.i, semicolon: body.length > 0 && body[body.length - 1].semicolon, children };
  }

  private isBlock(n: TsqlNode): boolean {
    return this.w(n.first) === 'begin' && !TRANSACTION_WORDS.has(this.w(n.first + 1)) && this.w(n.first + 1) !== 'try';
  }

  /** The statements a body contributes beneath its parent: a BEGIN … END body is transparent. */
  private flatten(n: TsqlNode): TsqlNode[] {
    return this.isBlock(n) ? n.children : [n];
  }

  private lastOf(n: TsqlNode): number {
    return n.last;
  }

  private lastBefore(i: number): number {
    return Math.max(0, i - 1);
  }

  private skipParens(at: number): void {
    let depth = 0;
    let j = at;
    for (; !this.atBatchEnd(j); j++) {
      const w = this.w(j);
      if (w === '(') depth++;
      else if (w === ')' && --depth === 0) break;
    }
    this.i = j + 1;
  }
}

/**
 * Splits T-SQL text into top-level statements. When `final` is false the text is a prefix of
 * the script: only statements that more text cannot change are returned (and a batch's
 * statements only once its GO line is read, so they carry its repeat count, unless the batch
 * holds more than HOLD_OPEN_BATCH_CHARS), and `resume` says where to start again.
 */
export function splitTsql(text: string, final = true, firstBatch = 0): TsqlSplit {
  const t = new TsqlTokens(text);
  const p = new Parser(t);
  const limit = final ? Number.POSITIVE_INFINITY : t.touchesEnd;
  const statements: RawStatement[] = [];
  const goLines: number[] = [];
  const warnings: string[] = [];
  let batch = firstBatch;
  let held: RawStatement[] = []; // statements of the open batch
  let resume = 0;
  let resumeBatch = batch;
  const commit = (repeat?: number, goText?: string): void => {
    const lastSt = held[held.length - 1];
    if (lastSt && !lastSt.terminator && goText) lastSt.terminator = goText;
    for (const s of held) statements.push(repeat !== undefined ? { ...s, repeat } : s);
    held = [];
  };
  for (;;) {
    p.skipNoise();
    if (p.i >= t.count) break;
    if (t.kind[p.i] === TokKind.Go) {
      const at = p.i++;
      goLines.push(at);
      const repeat = t.repeat.get(at);
      commit(repeat, repeat !== undefined ? `GO ${repeat}` : 'GO');
      batch++;
      resume = t.end[at];
      resumeBatch = batch;
      continue;
    }
    const node = p.statement();
    if (!final && p.seen >= limit) break;
    held.push(toRaw(t, node, batch));
    if (!final && t.end[node.last] - resume > HOLD_OPEN_BATCH_CHARS) {
      // A very large batch is written as it is read; its GO n, if any, is in the directives.
      commit();
      resume = node.next < t.count ? t.start[node.next] : text.length;
      resumeBatch = batch;
    }
  }
  if (final) {
    commit();
    resume = text.length;
    resumeBatch = batch;
    if (t.unterminated) warnings.push(`${t.unterminated}: the statement runs to the end of the file`);
  }
  const directives: TsqlSplit['directives'] = [];
  for (const at of goLines) directives.push({ offset: t.start[at], text: text.slice(t.start[at], t.end[at]).trim(), kind: 'go' });
  for (const at of p.directives) directives.push({ offset: t.start[at], text: text.slice(t.start[at], t.end[at]).trim(), kind: 'sqlcmd' });
  directives.sort((a, b) => a.offset - b.offset);
  return { statements, directives: directives.filter((d) => d.offset < resume), warnings, resume, batch: resumeBatch };
}

function toRaw(t: TsqlTokens, n: TsqlNode, batch: number): RawStatement {
  const inner: InnerStatement[] = [];
  const walk = (nodes: TsqlNode[], depth: number): void => {
    for (const c of nodes) {
      inner.push({ start: t.start[c.first], end: t.end[c.last], depth });
      walk(c.children, depth + 1);
    }
  };
  walk(n.children, 1);
  return {
    start: t.start[n.first],
    end: t.end[n.last],
    terminator: n.semicolon ? ';' : null,
    termEnd: n.semicolon ? t.end[n.next - 1] : t.end[n.last],
    batch,
    ...(inner.length ? { inner } : {}),
  };
}
