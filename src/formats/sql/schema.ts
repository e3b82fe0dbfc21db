// JSON Schema (TypeBox) of the SQL family's artifact `content`.
import { Type, type Static } from '@sinclair/typebox';
import { ProvenanceSchema } from '../kit/provenance.js';

const Position = Type.Object({
  offset: Type.Integer({ minimum: 0, description: 'Offset in the decoded text, in UTF-16 code units.' }),
  line: Type.Integer({ minimum: 1 }),
  column: Type.Integer({ minimum: 1, description: '1-based, in UTF-16 code units.' }),
});

export const SqlStatement = Type.Object({
  index: Type.Integer({ minimum: 0, description: '0-based position in the file; one Document Unit each (a top-level statement as written).' }),
  text: Type.String({ description: 'Exact source text, from the first token to the last (leading comments and the terminator excluded).' }),
  span: Type.Object({ start: Position, end: Position }, { description: 'end is exclusive.' }),
  provenance: ProvenanceSchema,
  terminator: Type.Union([Type.String(), Type.Null()], {
    description: "';', '/', a MySQL DELIMITER; T-SQL: ';', or 'GO' / 'GO n' for the last statement of a batch without one; null when none.",
  }),
  batch: Type.Optional(Type.Integer({ minimum: 0, description: 'T-SQL: 0-based index of the GO batch the statement is in.' })),
  repeat: Type.Optional(Type.Integer({ minimum: 1, description: 'T-SQL `GO n`: times its batch runs (each statement is still one unit).' })),
  parts: Type.Optional(
    Type.Array(Type.Object({ text: Type.String(), span: Type.Object({ start: Position, end: Position }), type: Type.String() }), {
      description: 'No longer written (T-SQL statements are units now, see innerStatements); kept for compatibility.',
    }),
  ),
  innerStatements: Type.Optional(
    Type.Array(
      Type.Object({
        text: Type.String(),
        span: Type.Object({ start: Position, end: Position }),
        type: Type.String(),
        depth: Type.Integer({ minimum: 1, description: '1 = directly inside this statement, 2 = inside one of those, …' }),
        parseStatus: Type.Optional(
          Type.Union([Type.Literal('parsed'), Type.Literal('error'), Type.Literal('skipped')], {
            description:
              'Oracle: the inner statement offered to the dialect’s parsers on its own (PL/SQL statements such as IF, loops and assignments are not SQL and stay "error").',
          }),
        ),
        parser: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        tables: Type.Optional(Type.Array(Type.String())),
      }),
      {
        description:
          'Statements inside a compound statement (procedure, function or trigger body, BEGIN … END, IF … ELSE, loops, EXECUTE IMMEDIATE / DO bodies), in source order; not units.',
      },
    ),
  ),
  psqlCopy: Type.Optional(Type.Boolean({ description: 'A psql \\copy line: the client-side COPY it runs.' })),
  type: Type.String({ description: 'Statement type, e.g. SELECT, INSERT, CREATE TABLE, CREATE FUNCTION; BATCH types name the first statement.' }),
  parseStatus: Type.Union([Type.Literal('parsed'), Type.Literal('error'), Type.Literal('skipped')]),
  parser: Type.Union([Type.String(), Type.Null()], {
    description: 'The parser that produced the AST (the first of the dialect’s parsers to accept the statement).',
  }),
  headParsed: Type.Optional(
    Type.Object(
      {
        rows: Type.Integer({ minimum: 2, description: 'Rows in the VALUES list.' }),
        rowsParsed: Type.Integer({ minimum: 1, description: 'Rows the parser read (the first).' }),
      },
      {
        description:
          'A multi-row INSERT … VALUES too large to parse whole (more than 250,000 tokens) was offered to the parsers with its VALUES list cut to its first row: type, parser, AST, tables, columns and any parse error come from that reading (text, span and the unit are the whole statement’s). The other rows were read by the lexer only, as parenthesised lists.',
      },
    ),
  ),
  ast: Type.Optional(
    Type.Unknown({
      description:
        "The parser's AST: libpg-query (PostgreSQL's parse tree as JSON), sqlparser-rs (its Statement as JSON, without source spans), node-sql-parser, or antlr4ts-sql (the grammar's parse tree: { rule: [children] }, terminals as text, chains of single rules collapsed to the innermost, table and column names as strings).",
    }),
  ),
  astOmitted: Type.Optional(Type.Boolean({ description: 'The statement parsed but is longer than 256 KiB: its AST is not written.' })),
  parseError: Type.Optional(
    Type.Object({
      message: Type.String(),
      line: Type.Optional(Type.Integer({ minimum: 1 })),
      column: Type.Optional(Type.Integer({ minimum: 1 })),
    }),
  ),
  tables: Type.Array(Type.String(), { description: 'Tables referenced, schema-qualified when written so (from the AST).' }),
  columns: Type.Array(Type.String(), { description: 'Column references (from the AST), qualified as written.' }),
});

export const SqlContent = Type.Object({
  dialect: Type.String(),
  encoding: Type.String(),
  splitter: Type.String({ description: 'How statements were delimited.' }),
  parser: Type.Union([Type.String(), Type.Null()], {
    description: "The dialect's parsers in the order each statement is offered to them, or null when none exists.",
  }),
  statements: Type.Array(SqlStatement),
  statementCount: Type.Integer({ minimum: 0 }),
  parsedCount: Type.Integer({ minimum: 0 }),
  parseRate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
  statementTypes: Type.Record(Type.String(), Type.Integer({ minimum: 1 })),
  parsers: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 1 }), { description: 'Statements parsed, by the parser that produced the AST.' })),
  batchCount: Type.Optional(Type.Integer({ minimum: 0, description: 'T-SQL: GO batches holding statements.' })),
  headParsedCount: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Statements parsed from their head (see a statement’s headParsed); counted in parsedCount when parsed.' }),
  ),
  directivesOmitted: Type.Optional(Type.Integer({ minimum: 1, description: 'Directives past the first 10,000, not listed.' })),
  tables: Type.Array(Type.String(), { description: 'Every table referenced by any statement.' }),
  directives: Type.Array(Type.Object({ kind: Type.String(), line: Type.Integer({ minimum: 1 }), text: Type.String() }), {
    description: 'Client directives that are not statements: psql meta-commands, MySQL DELIMITER, SQL*Plus commands, T-SQL GO lines and SQLCMD commands.',
  }),
});

export type SqlContentT = Static<typeof SqlContent>;
export type SqlStatementT = Static<typeof SqlStatement>;
