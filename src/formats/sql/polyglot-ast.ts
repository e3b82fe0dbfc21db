// polyglot-sql ASTs (sqlglot's expression tree, ported to Rust; JSON from @polyglot-sql/sdk):
// the statement type, the tables and columns referenced, and the AST without source spans,
// comments and empty fields. polyglot keeps statements it cannot parse as `raw` or `command`
// text, and a CREATE TASK's properties as one unparsed string: those are not parses.

import { ParseFailure, type EngineResult } from './engine.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);

/** Expression kinds holding text polyglot did not parse. */
const UNPARSED = new Set(['raw', 'command']);

/**
 * Statements polyglot reads as SQL does. Anything else at the root is an expression it took as
 * a statement (`FROBNICATE everything` → alias, `x` → column), or a form it reads as a bag of
 * words: SHOW (`SHOW NONSENSE`), DESCRIBE and COMMENT ON any word, and its COPY INTO accepts
 * `FROM FROM @stage`. None of those is a parse of the statement (Snowflake's SHOW and DESCRIBE
 * go to the object grammar).
 */
const STATEMENT_KINDS =
  /^(select|union|intersect|except|values|insert|update|delete|merge|truncate|grant|revoke|use|undrop|transaction|commit|rollback|set_statement|put|(create|drop|alter)_\w+)$/;

/** Statement kinds whose parts polyglot keeps as unparsed text. */
const UNPARSED_PARTS: Record<string, string> = { create_task: 'its properties' };

const TYPE_NAMES: Record<string, string> = {
  select: 'SELECT',
  union: 'SELECT',
  intersect: 'SELECT',
  except: 'SELECT',
  transaction: 'BEGIN TRANSACTION',
  set_statement: 'SET',
};

/** A TableRef serialises every field; `alias_explicit_as` is only ever on one. */
function tableName(node: JsonObject): string | null {
  if (!('alias_explicit_as' in node) || !isObject(node.name) || typeof node.name.name !== 'string') return null;
  const part = (v: Json | undefined) => (isObject(v) && typeof v.name === 'string' ? v.name : null);
  return [part(node.catalog), part(node.schema), node.name.name].filter((x) => x !== null).join('.');
}

function columnName(node: Json | undefined): string | null {
  if (!isObject(node) || !isObject(node.name) || typeof node.name.name !== 'string') return null;
  const table = isObject(node.table) && typeof node.table.name === 'string' ? node.table.name : null;
  return table ? `${table}.${node.name.name}` : node.name.name;
}

/** The facts of one parsed statement; a ParseFailure when polyglot kept any of it as text. */
export function polyglotFacts(statement: unknown): EngineResult {
  const root = statement as Json;
  const kind = isObject(root) ? Object.keys(root)[0] : undefined;
  if (!kind || UNPARSED.has(kind)) throw new ParseFailure('polyglot-sql kept the statement as unparsed text', null);
  if (!STATEMENT_KINDS.test(kind)) throw new ParseFailure(`polyglot-sql read it as ${kind.replace(/_/g, ' ')}, not as a statement`, null);
  // A SQL procedure's body is Snowflake Scripting, which polyglot keeps as text or reads word by
  // word (`BEGIN FROBNICATE; END`); the Scripting grammar reads it. Other languages' bodies are opaque.
  const body = isObject(root) ? root[kind] : null;
  if (kind === 'create_procedure' && isObject(body) && (body.language == null || String(body.language).toUpperCase() === 'SQL'))
    throw new ParseFailure("polyglot-sql does not read a SQL procedure's body", null);
  // CREATE TABLE … AS takes a query; polyglot also takes any statement there (AS DROP TABLE x).
  const asSelect = isObject(body) && isObject(body.as_select) ? Object.keys(body.as_select)[0] : null;
  if (asSelect && !/^(select|union|intersect|except|values|subquery)$/.test(asSelect))
    throw new ParseFailure(`polyglot-sql read ${asSelect.replace(/_/g, ' ')} as a table's query`, null);
  if (UNPARSED_PARTS[kind]) throw new ParseFailure(`polyglot-sql keeps ${UNPARSED_PARTS[kind]} as unparsed text`, null);
  const tables = new Set<string>();
  const columns = new Set<string>();
  const ctes = new Set<string>();
  // The name a CREATE FUNCTION (PROCEDURE, SEQUENCE …) defines is written like a table's.
  const namesTable = /table|view/.test(kind);
  const strip = (n: Json, depth: number, key: string | null): Json => {
    if (depth > 400 || n === null || typeof n !== 'object') return n;
    if (Array.isArray(n)) return n.map((x) => strip(x, depth + 1, null));
    const table = depth === 2 && key === 'name' && !namesTable ? null : tableName(n);
    if (table) tables.add(table);
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(n)) {
      if (UNPARSED.has(k)) throw new ParseFailure(`polyglot-sql kept part of the statement as unparsed text (${k})`, null);
      if (k === 'span' || k === 'trailing_comments' || k === 'leading_comments' || v === null || (Array.isArray(v) && !v.length)) continue;
      if (k === 'column') {
        const c = columnName(v);
        if (c) columns.add(c);
      } else if (k === 'ctes' && Array.isArray(v)) {
        for (const c of v) {
          const alias = isObject(c) && isObject(c.cte) ? c.cte.alias : isObject(c) ? c.alias : null;
          if (isObject(alias) && typeof alias.name === 'string') ctes.add(alias.name);
        }
      }
      out[k] = strip(v, depth + 1, k);
    }
    return out;
  };
  const ast = strip(root, 0, null);
  for (const c of ctes) tables.delete(c);
  return { ast, type: TYPE_NAMES[kind] ?? kind.replace(/_/g, ' ').toUpperCase(), tables: [...tables], columns: [...columns] };
}
