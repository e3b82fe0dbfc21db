// The parsers a statement is offered to, in order, per dialect (CHAINS); the first that
// accepts it gives the AST (and says so in the statement's `parser`). PostgreSQL: PostgreSQL's
// own grammar (libpg-query). The others: datafusion-sqlparser-rs (WASM, the dialect's rules)
// first; then the dialect's ANTLR grammar from antlr4ts-sql (T-SQL, MySQL, Oracle; antlr.ts);
// for Snowflake our grammar for its object DDL (snowflake-objects.ts, which hands the
// statements embedded in an object back to this chain) and polyglot-sql (sqlglot's Snowflake
// rules, WASM); node-sql-parser (the dialect's PEG grammar) last for the others.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { antlrEngine, type Grammar } from './antlr.js';
import { classifyStatement } from './classify.js';
import { ParseFailure, offsetOf, type Engine, type EngineResult } from './engine.js';
import { countTokens, LEX, type LexConfig } from './lexer.js';
import { loadPostgres, parsePostgres, pgReferences, pgStatementType } from './postgres.js';
import { polyglotFacts } from './polyglot-ast.js';
import { snowflakeObjectsEngine } from './snowflake-objects.js';
import { sqlparserFacts } from './sqlparser-ast.js';
import { valuesHead } from './values-head.js';
import type { Dialect } from './statements.js';

const require = createRequire(import.meta.url);

export interface ParsedStatement {
  type: string;
  parseStatus: 'parsed' | 'error' | 'skipped';
  parser: string | null;
  ast?: unknown;
  parseError?: { message: string; offset: number | null };
  tables: string[];
  columns: string[];
  /** A multi-row INSERT too large to parse whole, offered with its VALUES list cut to the first
   *  row (values-head.ts): the rows it holds, how many were parsed, and the length of what was. */
  headParsed?: { rows: number; rowsParsed: number; chars: number };
}

/** node-sql-parser builds per dialect (none for Oracle; for Snowflake the others take all it does). */
const NSP: Partial<Record<Dialect, { build: string; database: string }>> = {
  MsSql: { build: 'transactsql', database: 'TransactSQL' },
  MySql: { build: 'mysql', database: 'MySQL' },
  BigQuery: { build: 'bigquery', database: 'BigQuery' },
  Sqlite: { build: 'sqlite', database: 'Sqlite' },
};

/** antlr4ts-sql grammars, the last parser tried. */
const ANTLR: Partial<Record<Dialect, Grammar>> = { MsSql: 'TSQL', MySql: 'MYSQL', Oracle: 'PLSQL' };

/** sqlparser-rs dialect names. */
const SQLPARSER: Partial<Record<Dialect, string>> = {
  MsSql: 'mssql',
  Snowflake: 'snowflake',
  MySql: 'mysql',
  BigQuery: 'bigquery',
  Sqlite: 'sqlite',
  Oracle: 'oracle',
};

type SqlparserModule = typeof import('@guanmingchiu/sqlparser-ts');
let sqlparser: Promise<SqlparserModule> | null = null;

/** Loads datafusion-sqlparser-rs (its WASM ships inside the package) once per thread. */
function loadSqlparser(): Promise<SqlparserModule> {
  sqlparser ??= import('@guanmingchiu/sqlparser-ts').then(async (m) => {
    await m.init();
    return m;
  });
  return sqlparser;
}

/** Version from the package's own package.json (not in its exports map). */
function packageVersion(entry: string): string {
  const file = path.join(path.dirname(require.resolve(entry)), '..', 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

const SQLPARSER_VERSION = packageVersion('@guanmingchiu/sqlparser-ts');
const POLYGLOT_VERSION = packageVersion('@polyglot-sql/sdk');
const NSP_VERSION = (require('node-sql-parser/package.json') as { version: string }).version;

function sqlparserEngine(m: SqlparserModule, dialect: string): Engine {
  return {
    name: `sqlparser-rs ${SQLPARSER_VERSION} (${dialect})`,
    maxChars: 8_000_000,
    parse(sql) {
      let statements: unknown[];
      try {
        statements = m.parse(sql, dialect as Parameters<SqlparserModule['parse']>[1]) as unknown[];
      } catch (e) {
        const msg = String((e as Error).message ?? e).replace(/^sql parser error: /, '');
        const at = /at Line: (\d+), Column: (\d+)/.exec(msg);
        throw new ParseFailure(msg.slice(0, 500), at ? offsetOf(sql, Number(at[1]), Number(at[2])) : null);
      }
      if (statements.length !== 1) throw new ParseFailure(`parsed as ${statements.length} statements`, null);
      // It reads `SHOW <any words>` as PostgreSQL's SHOW <setting> (`SHOW NONSENSE` parses); no
      // dialect it parses here has that form (Snowflake's SHOW commands go to its object grammar).
      const root = statements[0] as Record<string, unknown> | null;
      if (root && typeof root === 'object' && 'ShowVariable' in root) throw new ParseFailure(`sqlparser-rs (${dialect}) has no rule for this SHOW`, null);
      return sqlparserFacts(statements, dialect === 'snowflake');
    },
  };
}

type PolyglotModule = typeof import('@polyglot-sql/sdk');
let polyglot: Promise<PolyglotModule> | null = null;

/** polyglot-sql dialects: its Snowflake rules take table options, DIRECTED joins and function forms the others reject. */
const POLYGLOT: Partial<Record<Dialect, keyof PolyglotModule['Dialect']>> = { Snowflake: 'Snowflake' };

/**
 * Loads polyglot-sql once per thread, only when a Snowflake script arrives: its WASM (in the
 * package) is ~100 MB resident, and on import it wraps the thread's fetch to read file: URLs.
 */
function loadPolyglot(): Promise<PolyglotModule> {
  polyglot ??= import('@polyglot-sql/sdk');
  return polyglot;
}

function polyglotEngine(m: PolyglotModule, dialect: keyof PolyglotModule['Dialect']): Engine {
  return {
    name: `polyglot-sql ${POLYGLOT_VERSION} (${dialect})`,
    // Its own guard refuses inputs over 16 MB.
    maxChars: 8_000_000,
    parse(sql) {
      let r: ReturnType<PolyglotModule['parse']>;
      try {
        r = m.parse(sql, m.Dialect[dialect]);
      } catch (err) {
        // A fault inside the WASM parser rejects the statement, not the job; its text is the engine's, not the user's.
        throw new ParseFailure('polyglot-sql could not read it (the parser stopped on an internal error)', null, { cause: err });
      }
      if (!r.success) {
        const msg = String(r.error ?? 'rejected');
        const at = /line (\d+), column (\d+)/.exec(msg);
        throw new ParseFailure(msg.slice(0, 500), at ? offsetOf(sql, Number(at[1]), Number(at[2])) : null);
      }
      const statements = (r.ast ?? []) as unknown[];
      if (statements.length !== 1) throw new ParseFailure(`parsed as ${statements.length} statements`, null);
      return polyglotFacts(statements[0]);
    },
  };
}

function nspTable(entry: string): string | null {
  const [, schema, table] = entry.split('::');
  if (!table) return null;
  return schema && schema !== 'null' ? `${schema}.${table}` : table;
}

function nspColumn(entry: string): string | null {
  const [, table, col] = entry.split('::');
  if (!col || col === '(.*)' || col === '*') return null;
  return table && table !== 'null' ? `${table}.${col}` : col;
}

interface NspParser {
  parse(sql: string, opt: { database: string }): { ast: unknown; tableList: string[]; columnList: string[] };
}

function nspEngine(build: string, database: string): Engine {
  const { Parser } = require(`node-sql-parser/build/${build}.js`) as { Parser: new () => NspParser };
  const p = new Parser();
  return {
    name: `node-sql-parser ${NSP_VERSION} (${database})`,
    // A PEG parser can be slow on huge inputs.
    maxChars: 200_000,
    parse(sql) {
      let r: ReturnType<NspParser['parse']>;
      try {
        r = p.parse(sql, { database });
      } catch (e) {
        const err = e as { message?: string; location?: { start?: { offset?: number } } };
        throw new ParseFailure(
          String(err.message ?? e)
            .split('\n')[0]
            .slice(0, 500),
          err.location?.start?.offset ?? null,
        );
      }
      const ast = Array.isArray(r.ast) && r.ast.length === 1 ? r.ast[0] : r.ast;
      // Its T-SQL grammar reads any `word word …` (GOTO x, CHECKPOINT 100, proc args) as an
      // assignment without '=': that is not a parse of the statement.
      const stmt = (ast as { stmt?: { type?: unknown; symbol?: unknown } } | null)?.stmt;
      if (stmt?.type === 'assign' && stmt.symbol == null) throw new ParseFailure(`node-sql-parser (${database}) read it as an assignment without '='`, null);
      if (Array.isArray(ast) && ast.length !== 1) throw new ParseFailure(`parsed as ${ast.length} statements`, null);
      const node = (Array.isArray(ast) ? ast[0] : ast) as { type?: unknown; keyword?: unknown } | null;
      const verb = typeof node?.type === 'string' ? node.type.toUpperCase() : null;
      return {
        ast,
        type: verb && typeof node?.keyword === 'string' && /^(CREATE|ALTER|DROP)$/.test(verb) ? `${verb} ${node.keyword.toUpperCase()}` : verb,
        tables: [...new Set(r.tableList.map(nspTable).filter((x): x is string => !!x))],
        columns: [...new Set(r.columnList.map(nspColumn).filter((x): x is string => !!x))],
      };
    },
  };
}

function postgresEngine(): Engine {
  return {
    name: 'libpg-query 18 (PostgreSQL 18 grammar)',
    maxChars: 8_000_000,
    parse(sql) {
      const r = parsePostgres(sql);
      if (!r.ok) throw new ParseFailure(r.error!.message, r.error!.offset);
      const refs = pgReferences(r.ast);
      return { ast: r.ast, type: pgStatementType(r.ast), tables: refs.tables, columns: refs.columns };
    },
  };
}

/** `sql` with ';' after each of `ends` that has none (and does not stand before ELSE). */
function withSemicolons(sql: string, ends: number[]): string {
  const at = [...new Set(ends)].sort((a, b) => a - b);
  let out = '';
  let from = 0;
  for (const e of at) {
    const rest = sql.slice(e, e + 64).replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, '');
    if (rest.startsWith(';') || /^else\b/i.test(rest)) continue;
    out += sql.slice(from, e) + ';';
    from = e;
  }
  return out + sql.slice(from);
}

type EngineKind = 'sqlparser' | 'antlr' | 'node-sql-parser' | 'polyglot' | 'snowflake-objects';

/**
 * The parsers of each dialect, in the order a statement is offered to them: the most complete
 * and fastest first; a slow one (the ANTLR grammars, node-sql-parser's PEG) only after the
 * fast ones have rejected the statement. Snowflake's object grammar reads only object DDL and
 * gives up at the first word of anything else, so it goes early.
 */
const CHAINS: Record<Exclude<Dialect, 'PostgreSql'>, EngineKind[]> = {
  MsSql: ['sqlparser', 'antlr', 'node-sql-parser'],
  MySql: ['sqlparser', 'antlr', 'node-sql-parser'],
  Oracle: ['sqlparser', 'antlr'],
  Snowflake: ['sqlparser', 'snowflake-objects', 'polyglot'],
  BigQuery: ['sqlparser', 'node-sql-parser'],
  Sqlite: ['sqlparser', 'node-sql-parser'],
};

/** One parser of `dialect`'s chain; `chain` is the whole chain, for statements embedded in others. */
async function makeEngine(kind: EngineKind, dialect: Exclude<Dialect, 'PostgreSql'>, chain: SqlEngines): Promise<Engine> {
  switch (kind) {
    case 'sqlparser':
      return sqlparserEngine(await loadSqlparser(), SQLPARSER[dialect]!);
    case 'antlr':
      return antlrEngine(ANTLR[dialect]!);
    case 'node-sql-parser':
      return nspEngine(NSP[dialect]!.build, NSP[dialect]!.database);
    case 'polyglot':
      return polyglotEngine(await loadPolyglot(), POLYGLOT[dialect]!);
    case 'snowflake-objects':
      return snowflakeObjectsEngine((sql) => chain.parseEmbedded(sql));
  }
}

/**
 * Statements with more tokens than this are listed and counted but offered to no parser: an
 * AST costs memory per token (measured: libpg-query ~170–700 bytes, sqlparser-rs ~350 bytes
 * for INSERT rows and ~1.9 KB for a long select list, where 8 MB of `1,1,…` exhausts its WASM
 * memory). 250,000 tokens is 0.6–0.75 MB of short INSERT rows, more with longer values; at
 * the bound a parse costs at most ~200 MB. A multi-row INSERT past it is offered with its
 * VALUES list cut to the first row instead (values-head.ts), when that is under the bound.
 */
export const MAX_PARSE_TOKENS = 250_000;

/** A task whose body is a block whose statement is a pipe … : deeper than this is refused. */
const MAX_EMBEDDED_DEPTH = 8;

export class SqlEngines {
  private constructor(
    private readonly engines: Engine[],
    private readonly lex: LexConfig,
  ) {}

  static async forDialect(dialect: Dialect): Promise<SqlEngines> {
    if (dialect === 'PostgreSql') {
      await loadPostgres();
      return new SqlEngines([postgresEngine()], LEX.PgFallback);
    }
    // Filled in place: the chain holds this array, and the object grammar needs the chain.
    const engines: Engine[] = [];
    const chain = new SqlEngines(engines, LEX[dialect]);
    for (const kind of CHAINS[dialect]) engines.push(await makeEngine(kind, dialect, chain));
    return chain;
  }

  private embeddedDepth = 0;

  /** An embedded statement (a pipe's COPY, a task's body) through the whole chain: its facts and the parser that read it. */
  parseEmbedded(sql: string): (EngineResult & { parser: string | null }) | null {
    // Each level re-reads the rest of the statement (CREATE TASK t AS CREATE TASK u AS …), so
    // depth is bounded: past it the statement is refused, in linear time.
    if (this.embeddedDepth >= MAX_EMBEDDED_DEPTH) throw new ParseFailure(`statements embedded deeper than ${MAX_EMBEDDED_DEPTH} levels`, null);
    this.embeddedDepth++;
    try {
      const r = this.parse(sql);
      if (r.parseStatus !== 'parsed') return null;
      return { ast: r.ast, type: r.type, tables: r.tables, columns: r.columns, parser: r.parser };
    } finally {
      this.embeddedDepth--;
    }
  }

  /** Names of the parsers tried, in order. */
  names(): string[] {
    return this.engines.map((e) => e.name);
  }

  /** Whether `sql` has more tokens than any parser is offered (each token is at least a char, so only long texts are counted). */
  private tooManyTokens(sql: string): boolean {
    return sql.length > MAX_PARSE_TOKENS && countTokens(sql, this.lex, MAX_PARSE_TOKENS) > MAX_PARSE_TOKENS;
  }

  /** Why no parser is offered `sql` (too many tokens, or longer than every parser reads), or null. */
  private tooLarge(sql: string): string | null {
    const listed = 'it is listed and counted all the same';
    if (this.tooManyTokens(sql)) {
      return `not parsed: the statement has more than ${MAX_PARSE_TOKENS.toLocaleString('en-US')} tokens (words, numbers, strings, symbols), more than can be parsed in bounded memory; ${listed}`;
    }
    if (this.engines.every((e) => sql.length > e.maxChars)) {
      const longest = Math.max(...this.engines.map((e) => e.maxChars)).toLocaleString('en-US');
      return `not parsed: the statement is ${sql.length.toLocaleString('en-US')} characters long and its parsers read at most ${longest}; ${listed}`;
    }
    return null;
  }

  /** Whether each parser alone accepts `sql` as one statement (for bench/sql/coverage.mjs). */
  acceptsAlone(sql: string): boolean[] {
    const tooMany = this.tooManyTokens(sql);
    return this.engines.map((e) => {
      if (tooMany || sql.length > e.maxChars) return false;
      try {
        e.parse(sql);
        return true;
      } catch (err) {
        if (err instanceof ParseFailure) return false;
        throw err;
      }
    });
  }

  /** The parsers tried, in order, or null when the dialect has none. */
  describe(): string | null {
    return this.engines.length ? this.engines.map((e) => e.name).join(', then ') : null;
  }

  /**
   * Offers `sql` to each parser in turn; the first that accepts it gives the AST. `innerEnds`
   * (T-SQL): where inner statements end; semicolons are optional in T-SQL but sqlparser-rs
   * wants them between the statements of a block, so a parser that rejects the text as
   * written is offered it once more with a ';' at each of those ends. A statement too large to
   * parse is `skipped`, unless it is a multi-row INSERT whose head can be: then it is offered
   * with its VALUES list cut to the first row, and `headParsed` says so.
   */
  parse(sql: string, psqlCopy = false, innerEnds: number[] = []): ParsedStatement {
    // `\copy …` is parsed as the COPY statement psql sends (offsets shift by the backslash).
    const text = psqlCopy ? sql.slice(1) : sql;
    const heuristic = classifyStatement(sql);
    if (!this.engines.length) return { type: heuristic, parseStatus: 'skipped', parser: null, tables: [], columns: [] };
    const tooLarge = this.tooLarge(text);
    if (tooLarge) {
      // A multi-row INSERT is read from its head: what it loads, and how, without its rows 2….
      const head = valuesHead(text, this.lex, MAX_PARSE_TOKENS);
      if (head && this.engines.some((e) => head.text.length <= e.maxChars)) {
        const p = this.offer(head.text, null, heuristic);
        const offset = p.parseError?.offset;
        if (typeof offset === 'number' && offset >= head.firstRowEnd) p.parseError!.offset = offset + head.lastRowEnd - head.firstRowEnd;
        return { ...p, headParsed: { rows: head.rows, rowsParsed: 1, chars: head.text.length } };
      }
      return { type: heuristic, parseStatus: 'skipped', parser: null, parseError: { message: tooLarge, offset: null }, tables: [], columns: [] };
    }
    const p = this.offer(text, innerEnds.length ? withSemicolons(text, innerEnds) : null, heuristic);
    if (psqlCopy && typeof p.parseError?.offset === 'number') p.parseError.offset += 1;
    return p;
  }

  /** Offers `text` (and `terminated`, the same with ';' after inner statements) to each parser in turn. */
  private offer(text: string, terminated: string | null, heuristic: string): ParsedStatement {
    // The error shown is the one from the parser that read furthest into the statement as
    // written (the first such): it names the token that no parser could take.
    let error = null as { message: string; offset: number | null } | null;
    const keep = (message: string, offset: number | null) => {
      if (!error || (offset !== null && (error.offset === null || offset > error.offset))) error = { message, offset };
    };
    for (const e of this.engines) {
      if (text.length > e.maxChars) {
        keep(`statement too long for ${e.name}`, null);
        continue;
      }
      for (const candidate of terminated && terminated !== text && e.wantsSemicolons !== false ? [text, terminated] : [text]) {
        try {
          const r = e.parse(candidate);
          return {
            type: r.type && !/^(QUERY|STATEMENT)$/.test(r.type) ? r.type : heuristic,
            parseStatus: 'parsed',
            parser: e.name,
            ast: r.ast,
            tables: r.tables,
            columns: r.columns,
          };
        } catch (err) {
          if (!(err instanceof ParseFailure)) throw err;
          if (candidate === text) keep(err.message, err.offset);
        }
      }
    }
    return {
      type: heuristic,
      parseStatus: 'error',
      parser: null,
      parseError: error ?? { message: 'rejected', offset: null },
      tables: [],
      columns: [],
    };
  }
}
