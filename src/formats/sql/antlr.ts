// The grammars packaged by antlr4ts-sql, as per-statement parsers of last resort: the
// grammars-v4 T-SQL and PL/SQL grammars and the MySQL Workbench grammar. They accept much the
// WASM and PEG parsers do not (ALTER TABLE … SWITCH, cursors, TRY … CATCH, MySQL GET
// DIAGNOSTICS, compound statements, PL/SQL blocks) but give a parse tree, not an AST: the
// statement type comes from the statement's grammar rule, tables and columns from the name
// rules (table_name, columnRef, …), and `ast` is that tree in a compact JSON form.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ParseFailure, offsetOf, type Engine, type EngineResult } from './engine.js';

const require = createRequire(import.meta.url);

export type Grammar = 'TSQL' | 'MYSQL' | 'PLSQL';

/** Where a grammar's rules say what a statement is and what it names. */
interface GrammarRules {
  label: string;
  /** Rules that are one top-level statement each (a text holding two is not one statement). */
  top: Set<string>;
  /** Rules naming a table (schema-qualified as written). */
  tables: Set<string>;
  /** Rules naming a column reference. */
  columns: Set<string>;
  /** Rule whose first name child is a CTE name (not a table). */
  cte: string;
  /** Rules that only wrap a statement; the statement's type comes from the rule below them. */
  wrappers: Set<string>;
}

const RULES: Record<Grammar, GrammarRules> = {
  TSQL: {
    label: 'grammars-v4 TSqlParser',
    top: new Set(['sql_clauses', 'batch_level_statement', 'execute_body_batch']),
    tables: new Set(['table_name', 'full_table_name']),
    columns: new Set(['full_column_name', 'insert_column_id']),
    cte: 'common_table_expression',
    wrappers: new Set([
      'tsql_file',
      'batch',
      'sql_clauses',
      'dml_clause',
      'ddl_clause',
      'cfl_statement',
      'another_statement',
      'batch_level_statement',
      'cursor_statement',
      'select_statement_standalone',
      'transaction_or_locking_statement',
    ]),
  },
  MYSQL: {
    label: 'MySQL Workbench grammar',
    top: new Set(['simpleStatement', 'beginWork']),
    tables: new Set(['tableRef', 'tableName', 'tableRefWithWildcard']),
    columns: new Set(['columnRef']),
    cte: 'commonTableExpression',
    wrappers: new Set([
      'sql_script',
      'query',
      'simpleStatement',
      'createStatement',
      'alterStatement',
      'dropStatement',
      'accountManagementStatement',
      'transactionOrLockingStatement',
      'replicationStatement',
      'tableAdministrationStatement',
      'utilityStatement',
      'otherAdministrativeStatement',
      'showStatement',
    ]),
  },
  PLSQL: {
    label: 'grammars-v4 PlSqlParser',
    top: new Set(['unit_statement', 'sql_plus_command']),
    tables: new Set(['tableview_name']),
    columns: new Set(['column_name']),
    cte: 'factoring_element',
    wrappers: new Set([
      'sql_script',
      'unit_statement',
      'data_manipulation_language_statements',
      'transaction_control_statements',
      'cursor_manipulation_statements',
    ]),
  },
};

/** Rule names (after the wrappers) that are a query: the statement is a SELECT. */
const QUERY_RULE =
  /^(select_statement|select_statement_standalone|query_expression|query_specification|selectStatement|queryExpression|queryExpressionBody|querySpecification|queryExpressionParens|subquery|query_block)$/;

interface AntlrToken {
  type: number;
  startIndex: number;
  stopIndex: number;
}
interface AntlrNode {
  readonly childCount: number;
  getChild(i: number): AntlrNode;
  readonly ruleIndex?: number;
  readonly symbol?: AntlrToken;
  readonly start?: AntlrToken;
  readonly stop?: AntlrToken;
}
interface AntlrAtn {
  decisionToDFA: { states: { size: number } }[];
  clearDFA(): void;
}
interface AntlrParser {
  ruleNames: string[];
  interpreter: { setPredictionMode(mode: number): void; atn: AntlrAtn };
}
interface Antlr4tsSql {
  getTokens(sql: string, listeners: unknown[]): unknown;
  getParser(tokens: unknown, listeners: unknown[]): AntlrParser;
  getParseTree(parser: AntlrParser): AntlrNode;
}

/** MySQL server version the Workbench grammar's version-gated rules are read for. */
const MYSQL_VERSION = 80021;

interface Loaded {
  make: (g: Grammar) => Antlr4tsSql;
  sll: number;
  version: string;
}
let loaded: Loaded | null = null;

function load(): Loaded {
  if (loaded) return loaded;
  // antlr4ts must be loaded from its index first: its xpath module, reached first, fails on a cycle.
  require('antlr4ts');
  const { antlr4tsSQL, SQLDialect } = require('antlr4ts-sql') as { antlr4tsSQL: new (d: unknown) => Antlr4tsSql; SQLDialect: Record<Grammar, unknown> };
  const { PredictionMode } = require('antlr4ts/atn/PredictionMode') as { PredictionMode: { SLL: number } };
  const pkg = path.join(path.dirname(require.resolve('antlr4ts-sql')), '..', 'package.json');
  const version = (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
  loaded = { make: (g) => new antlr4tsSQL(SQLDialect[g]), sll: PredictionMode.SLL, version };
  return loaded;
}

class Stop extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Stops the parse at the first lexer or parser error. */
const stopAtFirstError = {
  syntaxError(_r: unknown, _o: unknown, line: number, column: number, msg: string): never {
    throw new Stop(line, column + 1, msg);
  },
};

type Json = string | { [rule: string]: Json | Json[] };

class TreeReader {
  readonly tables = new Set<string>();
  readonly columns = new Set<string>();
  readonly ctes = new Set<string>();
  statements = 0;

  constructor(
    private readonly sql: string,
    private readonly names: string[],
    private readonly rules: GrammarRules,
  ) {}

  text(t: AntlrToken): string {
    return this.sql.slice(t.startIndex, t.stopIndex + 1);
  }

  /** The first `max` terminals under `n`, upper case. */
  firstWords(n: AntlrNode, max: number): string[] {
    const out: string[] = [];
    const visit = (x: AntlrNode): void => {
      if (out.length >= max) return;
      if (x.symbol) {
        if (x.symbol.type !== -1) out.push(this.text(x.symbol).toUpperCase());
        return;
      }
      for (let i = 0; i < x.childCount; i++) visit(x.getChild(i));
    };
    visit(n);
    return out;
  }

  /** A name rule's text without quotes: [dbo].[t] → dbo.t. */
  nameOf(n: AntlrNode): string {
    const parts: string[] = [];
    const visit = (x: AntlrNode): void => {
      if (x.symbol) {
        const t = this.text(x.symbol);
        if (t !== '.' && t !== '') parts.push(t.replace(/^[[`"](.*)[\]`"]$/s, '$1'));
        return;
      }
      for (let i = 0; i < x.childCount; i++) visit(x.getChild(i));
    };
    visit(n);
    return parts.join('.');
  }

  /** Tree → JSON: { rule: [children] }, terminals as their text; a chain of single rule children collapses to its innermost rule; names as strings. */
  read(n: AntlrNode, topSeen = false): Json | null {
    if (n.symbol) return n.symbol.type === -1 ? null : this.text(n.symbol);
    const rule = this.names[n.ruleIndex!];
    let inTop = topSeen;
    if (this.rules.top.has(rule) && !topSeen) {
      this.statements++;
      inTop = true;
    }
    if (this.rules.tables.has(rule) || this.rules.columns.has(rule)) {
      const name = this.nameOf(n);
      if (name) (this.rules.tables.has(rule) ? this.tables : this.columns).add(name);
      return { [rule]: name };
    }
    const kids: Json[] = [];
    for (let i = 0; i < n.childCount; i++) {
      const k = this.read(n.getChild(i), inTop);
      if (k !== null) kids.push(k);
    }
    if (rule === this.rules.cte && n.childCount > 0) {
      const first = n.getChild(0);
      if (!first.symbol) this.ctes.add(this.nameOf(first));
    }
    if (kids.length === 1 && typeof kids[0] !== 'string') return kids[0];
    if (kids.length === 1) return { [rule]: kids[0] };
    return { [rule]: kids };
  }
}

/** The statement's own rule: below the wrappers, following single rule children. */
function statementRule(tree: AntlrNode, names: string[], rules: GrammarRules): { rule: string; node: AntlrNode } | null {
  let n = tree;
  for (;;) {
    const ruleKids: AntlrNode[] = [];
    for (let i = 0; i < n.childCount; i++) if (!n.getChild(i).symbol) ruleKids.push(n.getChild(i));
    const rule = names[n.ruleIndex!];
    if (!rules.wrappers.has(rule)) return { rule, node: n };
    if (ruleKids.length !== 1) return ruleKids.length ? { rule, node: n } : null;
    n = ruleKids[0];
  }
}

/** Statement type from its rule: update_statement → UPDATE, createTable → CREATE TABLE, create_or_alter_procedure → CREATE PROCEDURE. */
function typeFrom(rule: string, firstWords: string[]): string {
  if (QUERY_RULE.test(rule)) return 'SELECT';
  const words = rule
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .split('_')
    .filter((w) => w && w !== 'STATEMENT' && w !== 'STATEMENTS');
  // T-SQL's goto_statement also covers a label (`name:`).
  if (rule === 'goto_statement' && firstWords[0] !== 'GOTO') return 'LABEL';
  if (words[0] === 'CREATE' && words[1] === 'OR' && words[2] === 'ALTER')
    return `${firstWords[0] === 'ALTER' ? 'ALTER' : 'CREATE'} ${words.slice(3).join(' ')}`;
  // Rules that cover several verbs (transaction_statement, cursor_statement, …): the verbs written.
  if (/^(TRANSACTION|CURSOR|TRANSACTION OR LOCKING|SET SPECIAL)$/.test(words.join(' ')) || !words.length) {
    const [a, b] = firstWords;
    if (a === 'BEGIN' && (b === 'TRAN' || b === 'TRANSACTION' || b === 'DISTRIBUTED')) return 'BEGIN TRANSACTION';
    if (a === 'SAVE') return 'SAVEPOINT';
    return a === 'SET' ? 'SET' : (a ?? 'UNKNOWN');
  }
  const type = words.join(' ');
  return RENAMED[type] ?? (type.endsWith(' BODY') && type !== 'CREATE PACKAGE BODY' ? type.slice(0, -5) : type);
}

/** Rule-derived names that read better as the statement's verb. */
const RENAMED: Record<string, string> = {
  'EXECUTE BODY BATCH': 'EXECUTE',
  'FETCH CURSOR': 'FETCH',
  'TRUNCATE TABLE': 'TRUNCATE',
  'ANONYMOUS BLOCK': 'BLOCK',
  BLOCK: 'BLOCK',
};

const MAX_NESTING = 100;

/**
 * ANTLR caches prediction DFA states per grammar for the life of the thread; they stop growing
 * once the kinds of statements seen repeat (≈5,000 states on the corpus), but varied enough
 * input keeps adding. Past this many states the cache is dropped and rebuilt as needed.
 */
const MAX_DFA_STATES = 50_000;
const DFA_CHECK_EVERY = 1_000;

function dfaStates(atn: AntlrAtn): number {
  let n = 0;
  for (const d of atn.decisionToDFA) n += d.states.size;
  return n;
}

/** Deepest parenthesis nesting in the text (parentheses in strings counted too: only ever an overestimate). */
function parenDepth(sql: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql.charCodeAt(i);
    if (c === 40) max = Math.max(max, ++depth);
    else if (c === 41 && depth > 0) depth--;
  }
  return max;
}

export function antlrEngine(grammar: Grammar): Engine {
  const { make, sll, version } = load();
  const rules = RULES[grammar];
  const a = make(grammar);
  let parses = 0;
  const boundCache = (parser: AntlrParser): void => {
    if (++parses % DFA_CHECK_EVERY !== 0) return;
    if (dfaStates(parser.interpreter.atn) > MAX_DFA_STATES) parser.interpreter.atn.clearDFA();
  };
  const parseWith = (sql: string, mode: number): { tree: AntlrNode; parser: AntlrParser } => {
    const tokens = a.getTokens(sql, [stopAtFirstError]) as { tokenSource: { serverVersion?: number } };
    const parser = a.getParser(tokens, [stopAtFirstError]) as AntlrParser & { serverVersion?: number };
    if (grammar === 'MYSQL') {
      // The lexer defaults to MySQL 5.7.7 and the parser to 8.0.21 (the newest the grammar knows): read both as 8.0.21.
      tokens.tokenSource.serverVersion = MYSQL_VERSION;
      parser.serverVersion = MYSQL_VERSION;
    }
    parser.interpreter.setPredictionMode(mode);
    boundCache(parser);
    return { tree: a.getParseTree(parser), parser };
  };
  return {
    name: `antlr4ts-sql ${version} (${rules.label})`,
    // ANTLR prediction can take seconds on very long statements.
    maxChars: 200_000,
    // The grammar knows T-SQL's optional semicolons: no retry with ';' added.
    wantsSemicolons: false,
    parse(sql): EngineResult {
      // ANTLR's prediction slows down sharply with nesting (seconds at a few hundred levels);
      // sqlparser-rs stops at 50. Deeper statements are not offered to the grammar.
      if (parenDepth(sql) > MAX_NESTING) throw new ParseFailure(`nested deeper than ${MAX_NESTING} parentheses: not offered to ${rules.label}`, null);
      let r: { tree: AntlrNode; parser: AntlrParser };
      try {
        // SLL prediction only: on the corpus it accepts exactly what full LL accepts, and an LL
        // retry would double the cost of every statement that fails. It never accepts more than LL.
        r = parseWith(sql, sll);
      } catch (e) {
        if (e instanceof Stop) throw new ParseFailure(`${e.detail.slice(0, 300)} at Line: ${e.line}, Column: ${e.column}`, offsetOf(sql, e.line, e.column));
        // A statement nested deeper than the recursive-descent parser's stack, or a fault in the
        // generated code, is a statement this grammar cannot read — not a failed job.
        throw new ParseFailure(
          e instanceof RangeError
            ? 'the grammar could not read it: it is nested too deeply'
            : 'the grammar could not read it (the parser stopped on an internal error)',
          null,
          { cause: e },
        );
      }
      const names = r.parser.ruleNames;
      const reader = new TreeReader(sql, names, rules);
      let ast: Json | null;
      try {
        ast = reader.read(r.tree);
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        throw new ParseFailure('parse tree too deep to read', null);
      }
      if (reader.statements !== 1) throw new ParseFailure(`parsed as ${reader.statements} statements`, null);
      const st = statementRule(r.tree, names, rules);
      if (!st) throw new ParseFailure('no statement', null);
      const firstWords = reader.firstWords(st.node, 2);
      for (const c of reader.ctes) reader.tables.delete(c);
      return { ast, type: typeFrom(st.rule, firstWords), tables: [...reader.tables], columns: [...reader.columns] };
    },
  };
}
