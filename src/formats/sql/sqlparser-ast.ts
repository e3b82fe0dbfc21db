// datafusion-sqlparser-rs ASTs (JSON from @guanmingchiu/sqlparser-ts): the statement type,
// the tables and columns referenced, and the AST itself without its source spans (every node
// carries one; the statement's own position is reported beside the AST).

export interface SqlparserFacts {
  ast: unknown;
  type: string | null;
  tables: string[];
  columns: string[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const TYPE_NAMES: Record<string, string> = {
  Query: 'SELECT',
  StartTransaction: 'BEGIN TRANSACTION',
  SetVariable: 'SET',
  Set: 'SET',
  ShowVariable: 'SHOW',
  ExplainTable: 'DESCRIBE',
  Explain: 'EXPLAIN',
  Copy: 'COPY',
  CopyIntoSnowflake: 'COPY INTO',
  Execute: 'EXECUTE',
  Use: 'USE',
  Call: 'CALL',
  Declare: 'DECLARE',
  If: 'IF',
  While: 'WHILE',
  Case: 'CASE',
  Raise: 'RAISE',
  Print: 'PRINT',
  Return: 'RETURN',
  Throw: 'THROW',
  Merge: 'MERGE',
};

/** CreateTable → CREATE TABLE; Drop {object_type: Table} → DROP TABLE. */
function typeOf(node: Json): string | null {
  if (typeof node === 'string') return node.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
  if (!node || typeof node !== 'object' || Array.isArray(node)) return null;
  const key = Object.keys(node)[0];
  if (!key) return null;
  const value = (node as Record<string, Json>)[key];
  const body: Record<string, Json> = value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  if (key === 'Drop' && typeof body.object_type === 'string') return `DROP ${body.object_type.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase()}`;
  if (key === 'Query' && body.with) return 'SELECT';
  // BEGIN <statements> END is a block, not a transaction (it reads both as StartTransaction).
  if (key === 'StartTransaction' && body.has_end_keyword === true) return 'BLOCK';
  // Snowflake's dynamic, external and Iceberg tables are objects of their own kind.
  const kind = key === 'CreateTable' ? (['dynamic', 'external', 'iceberg'] as const).filter((k) => body[k] === true) : [];
  if (kind.length) return `CREATE ${kind.join(' ').toUpperCase()} TABLE`;
  return TYPE_NAMES[key] ?? key.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
}

/** An ObjectName as JSON ([{Identifier: {value}}, …]) → "schema.table". */
function objectName(v: Json): string | null {
  if (!Array.isArray(v) || !v.length) return null;
  const parts: string[] = [];
  for (const p of v) {
    const id = p && typeof p === 'object' && !Array.isArray(p) ? (p.Identifier ?? p) : null;
    const value = id && typeof id === 'object' && !Array.isArray(id) ? id.value : null;
    if (typeof value !== 'string') return null;
    parts.push(value);
  }
  return parts.join('.');
}

/** Keys whose ObjectName value names a table (besides TableFactor::Table's `name`). */
const TABLE_KEYS = new Set(['table_name', 'TableName']);

/** Drop object types that are tables (or read like them). */
const TABLE_LIKE = new Set(['Table', 'View', 'MaterializedView']);

/** CreateTable keys naming the table it copies: CLONE t, LIKE t. */
const SOURCE_KEYS = new Set(['clone', 'like']);

/** `stages`: the dialect's `@name` is a stage (Snowflake), not a table (T-SQL's @table variables are). */
export function sqlparserFacts(statements: unknown[], stages = false): SqlparserFacts {
  const tables = new Set<string>();
  const columns = new Set<string>();
  const ctes = new Set<string>();
  // parentKey: the key holding this object (null inside arrays, where Identifier parts form names).
  const strip = (n: Json, depth: number, parentKey: string | null): Json => {
    if (depth > 400 || n === null || typeof n !== 'object') return n;
    if (Array.isArray(n)) return n.map((x) => strip(x, depth + 1, null));
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(n)) {
      if (k === 'span' || k.endsWith('_token')) continue;
      const obj = v && typeof v === 'object' && !Array.isArray(v) ? v : null;
      if (k === 'Table' && obj) {
        const name = objectName(obj.name);
        if (name) tables.add(name);
      } else if (
        TABLE_KEYS.has(k) ||
        (k === 'name' && (parentKey === 'CreateTable' || parentKey === 'AlterTable' || parentKey === 'CreateView' || parentKey === 'CreateIndex'))
      ) {
        const name = objectName(v);
        if (name) tables.add(name);
      } else if (parentKey === 'CopyIntoSnowflake' && ((k === 'into' && n.kind === 'Table') || (k === 'from_obj' && n.kind === 'Location'))) {
        const name = objectName(v); // COPY INTO <table> FROM @stage, or COPY INTO @stage FROM <table>
        if (name) tables.add(name);
      } else if (parentKey === 'CreateTable' && SOURCE_KEYS.has(k)) {
        const like = obj ? (obj.Plain ?? obj.Parenthesized ?? obj) : null; // LIKE wraps its name
        const name = objectName(Array.isArray(v) ? v : like && typeof like === 'object' && !Array.isArray(like) ? like.name : null);
        if (name) tables.add(name);
      } else if (k === 'names' && parentKey === 'Drop' && Array.isArray(v)) {
        // DROP TABLE / VIEW names tables; DROP STAGE, SCHEMA, PROCEDURE … do not.
        if (TABLE_LIKE.has(String(n.object_type)))
          for (const x of v) {
            const name = objectName(x);
            if (name) tables.add(name);
          }
      } else if (k === 'table_names' && parentKey === 'Truncate' && Array.isArray(v)) {
        for (const x of v) {
          const name = x && typeof x === 'object' && !Array.isArray(x) ? objectName(x.name) : null;
          if (name) tables.add(name);
        }
      } else if (k === 'cte_tables' && Array.isArray(v)) {
        for (const c of v) {
          const alias = c && typeof c === 'object' && !Array.isArray(c) ? c.alias : null;
          const nm = alias && typeof alias === 'object' && !Array.isArray(alias) ? alias.name : null;
          if (nm && typeof nm === 'object' && !Array.isArray(nm) && typeof nm.value === 'string') ctes.add(nm.value);
        }
      } else if (k === 'Identifier' && parentKey !== null && obj && typeof obj.value === 'string') {
        columns.add(obj.value); // Expr::Identifier (name parts sit in arrays)
      } else if (k === 'CompoundIdentifier' && Array.isArray(v)) {
        const parts = v.map((x) => (x && typeof x === 'object' && !Array.isArray(x) ? x.value : null));
        if (parts.length && parts.every((x): x is string => typeof x === 'string')) columns.add(parts.join('.'));
      }
      out[k] = strip(v, depth + 1, k);
    }
    return out;
  };
  const asts = (statements as Json[]).map((x) => strip(x, 0, null));
  for (const c of ctes) tables.delete(c);
  // A stage read like a table (FROM @stage) is not a table.
  if (stages) for (const t of tables) if (t.startsWith('@')) tables.delete(t);
  const ast = asts.length === 1 ? asts[0] : asts;
  return { ast, type: asts.length ? typeOf(asts[0]) : null, tables: [...tables], columns: [...columns] };
}
