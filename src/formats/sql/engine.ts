// What every per-statement SQL parser in engines.ts offers: parse one statement, give its
// AST, type, tables and columns, or throw a ParseFailure saying where it stopped.

export interface EngineResult {
  ast: unknown;
  type: string | null;
  tables: string[];
  columns: string[];
}

export interface Engine {
  name: string;
  maxChars: number;
  /** T-SQL: whether a rejected compound statement is worth offering again with ';' after each inner statement (default true). */
  wantsSemicolons?: boolean;
  /** Throws a ParseFailure when the statement is rejected. */
  parse(sql: string): EngineResult;
}

export class ParseFailure extends Error {
  constructor(
    message: string,
    readonly offset: number | null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Offset in `sql` of a 1-based line and column. */
export function offsetOf(sql: string, line: number, column: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const nl = sql.indexOf('\n', at);
    if (nl < 0) break;
    at = nl + 1;
  }
  return Math.min(sql.length, at + Math.max(0, column - 1));
}
