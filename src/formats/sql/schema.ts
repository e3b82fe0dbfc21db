// JSON Schema (TypeBox) of the SQL family's artifact `content`.
import { Type, type Static } from '@sinclair/typebox';

const Position = Type.Object({
  offset: Type.Integer({ minimum: 0, description: 'Offset in the decoded text, in UTF-16 code units.' }),
  line: Type.Integer({ minimum: 1 }),
  column: Type.Integer({ minimum: 1, description: '1-based, in UTF-16 code units.' }),
});

export const SqlStatement = Type.Object({
  index: Type.Integer({ minimum: 0, description: '0-based position in the file; one Document Unit each.' }),
  text: Type.String({ description: 'Exact source text, from the first token to the last (leading comments and the terminator excluded).' }),
  span: Type.Object({ start: Position, end: Position }, { description: 'end is exclusive.' }),
  terminator: Type.Union([Type.String(), Type.Null()], { description: "';', 'GO', 'GO n', '/', a MySQL DELIMITER, or null at end of file." }),
  repeat: Type.Optional(Type.Integer({ minimum: 1, description: 'T-SQL `GO n`: times the batch runs (still one unit).' })),
  parts: Type.Optional(
    Type.Array(Type.Object({ text: Type.String(), span: Type.Object({ start: Position, end: Position }), type: Type.String() }), {
      description: "T-SQL: the batch's ';'-terminated statements, when it has more than one (informational; the batch is the unit).",
    }),
  ),
  psqlCopy: Type.Optional(Type.Boolean({ description: 'A psql \\copy line: the client-side COPY it runs.' })),
  type: Type.String({ description: 'Statement type, e.g. SELECT, INSERT, CREATE TABLE, CREATE FUNCTION; BATCH types name the first statement.' }),
  parseStatus: Type.Union([Type.Literal('parsed'), Type.Literal('error'), Type.Literal('skipped')]),
  parser: Type.Union([Type.String(), Type.Null()]),
  ast: Type.Optional(Type.Unknown({ description: "The parser's AST: libpg-query (PostgreSQL's parse tree as JSON) or node-sql-parser." })),
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
  parser: Type.Union([Type.String(), Type.Null()], { description: 'Engine that parsed each statement, or null when none exists for the dialect.' }),
  statements: Type.Array(SqlStatement),
  statementCount: Type.Integer({ minimum: 0 }),
  parsedCount: Type.Integer({ minimum: 0 }),
  parseRate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
  statementTypes: Type.Record(Type.String(), Type.Integer({ minimum: 1 })),
  tables: Type.Array(Type.String(), { description: 'Every table referenced by any statement.' }),
  directives: Type.Array(
    Type.Object({ kind: Type.String(), line: Type.Integer({ minimum: 1 }), text: Type.String() }),
    { description: 'Client directives that are not statements (psql meta-commands, MySQL DELIMITER, SQL*Plus commands).' },
  ),
});

export type SqlContentT = Static<typeof SqlContent>;
export type SqlStatementT = Static<typeof SqlStatement>;
