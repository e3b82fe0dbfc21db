// What the splitter finds, apart from how it finds it: the dialects, a top-level statement's
// span and an inner statement's. The lexer, the splitters (split.ts, tsql.ts) and the parsers
// all read these types, so they live below every one of them.

export type Dialect = 'PostgreSql' | 'MsSql' | 'Snowflake' | 'MySql' | 'BigQuery' | 'Sqlite' | 'Oracle';

export interface RawStatement {
  /** String offset of the statement's first token (leading comments excluded). */
  start: number;
  /** String offset just after its last token (terminator excluded). */
  end: number;
  /** What ended it: ';', 'GO', '/', a custom MySQL delimiter, or null at end of file. */
  terminator: string | null;
  /** Offset just after the terminator. */
  termEnd: number;
  /** T-SQL: 0-based index of the GO batch. */
  batch?: number;
  /** T-SQL `GO n`: how many times the batch is executed. */
  repeat?: number;
  /** Statements inside a compound statement (procedure, function, trigger, block, IF, loop), in order. */
  inner?: InnerStatement[];
  /** T-SQL: the batch's ';'-terminated statements (outside BEGIN … END and CASE … END), when more than one. */
  parts?: [number, number][];
  /** PostgreSQL: a psql `\copy` line (client-side COPY), counted as a statement. */
  psqlCopy?: boolean;
}

export interface InnerStatement {
  start: number;
  end: number;
  /** 1 = directly inside the top-level statement. */
  depth: number;
}
