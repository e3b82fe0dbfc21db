// A strict recursive-descent grammar for the Snowflake object DDL no parser on npm reads:
// CREATE FILE FORMAT / STAGE / PIPE / TASK / WAREHOUSE / DYNAMIC TABLE, ALTER <object> (RENAME,
// SET / UNSET of the object's documented properties, SUSPEND / RESUME, tags, and the object's
// own forms), DROP / DESCRIBE <object>, SHOW <objects> and BEGIN [ NAME t ], written from the
// SQL command reference at docs.snowflake.com. Property names come from fixed per-object tables
// (snowflake-object-kinds.ts); anything else is rejected with what was expected and where.
// Embedded statements and expressions (… AS COPY INTO …, AS <query>, WHEN <expr>, CLUSTER BY
// (…), SET BODY -> …) are handed to the dialect's other parsers through `parseInner`.
// Snowflake Scripting blocks (DECLARE … / BEGIN … END, a task's block body, a LANGUAGE SQL
// procedure's) are read by snowflake-scripting.ts.

import { ParseFailure, type Engine, type EngineResult } from './engine.js';
import {
  ANY_FORMAT_OPTION,
  CREATE_PROPS,
  CREATED_KINDS,
  DT_CREATE,
  DT_ICEBERG_CREATE,
  FORMAT_OPTIONS,
  FORMAT_TYPES,
  KINDS,
  MASKING_POLICY_CREATE,
  OR_ALTER_KINDS,
  PIPE_CREATE,
  PIPE_CREATE_OR_ALTER,
  ROW_ACCESS_POLICY_CREATE,
  STORAGE_INTEGRATION_CREATE,
  STORAGE_PROVIDERS,
  STREAM_SOURCES,
  type AlterSpec,
  type ObjectKind,
  type PropTable,
  type Shape,
} from './snowflake-object-kinds.js';
import { anonymousBlock, atBlock, createProcedure, isProcedure, scriptingBody } from './snowflake-scripting.js';
import { show } from './snowflake-show.js';
import {
  argTypes,
  Cursor,
  dataType,
  innerResult,
  integer,
  nameList,
  objectName,
  parenthesised,
  stringLiteral,
  tokenize,
  type Body,
  type Ctx,
  type InnerParser,
  type Property,
  type Statement,
  type Tok,
  type Value,
} from './snowflake-syntax.js';

const BOOLS: Record<string, boolean> = { TRUE: true, FALSE: false };

/** A string, number, TRUE / FALSE, NULL, $variable or keyword / name. */
function scalar(c: Cursor, what: string): Value {
  const t = c.tok;
  if (t.kind === 'var') return (c.next(), { variable: t.value });
  if (t.kind === 'string') return c.next().value;
  if (t.kind === 'number' || ((c.isPunct('-') || c.isPunct('+')) && c.peek(1).kind === 'number')) {
    const sign = t.kind === 'punct' ? c.next().text : '';
    return Number(sign + c.next().text);
  }
  if (t.kind === 'word' && t.value in BOOLS) return (c.next(), BOOLS[t.value]);
  if (t.kind === 'word' && t.value === 'NULL') return (c.next(), null);
  if (t.kind === 'word' || t.kind === 'qident') return objectName(c);
  return c.fail(what);
}

/** The value of property `prop`, as its shape says. */
function value(ctx: Ctx, shape: Shape, prop: string): Value {
  const { c } = ctx;
  const t = c.tok;
  const takesVariable = !['strs', 'names', 'list', 'opts', 'fileFormat'].includes(shape.t);
  if (takesVariable && t.kind === 'var') return (c.next(), { variable: t.value });
  const orWords = 'or' in shape && shape.or ? shape.or : [];
  if (t.kind === 'word' && orWords.includes(t.value)) return c.next().value === 'NULL' ? null : t.value;
  const alternatives = orWords.length ? ` or ${orWords.join(' | ')}` : '';
  switch (shape.t) {
    case 'bool':
      if (t.kind !== 'word' || !(t.value in BOOLS)) c.fail(`TRUE or FALSE for ${prop}`);
      return BOOLS[c.next().value];
    case 'int':
      return integer(c, `an integer${alternatives} for ${prop}`);
    case 'str':
      return stringLiteral(c, `a string literal${alternatives} for ${prop}`);
    case 'enum': {
      const word = t.kind === 'word' || t.kind === 'string' ? t.value.toUpperCase() : '';
      if (!shape.of.includes(word))
        c.fail(shape.of.length > 8 ? `a ${prop} value (${shape.of.slice(0, 8).join(', ')} …)` : `${shape.of.join(' | ')} for ${prop}`);
      c.next();
      return word;
    }
    case 'name':
      if (shape.str && t.kind === 'string') return c.next().value;
      return objectName(c, `a name for ${prop}`);
    case 'any':
      return scalar(c, `a value for ${prop}`);
    case 'value':
      return c.isPunct('(') ? parenthesised(c, `the ${prop} list`, () => scalar(c, `a value in ${prop}`), true) : scalar(c, `a value for ${prop}`);
    case 'strs':
      return parenthesised(c, `the ${prop} list`, () => stringLiteral(c, `a string literal in ${prop}`), true);
    case 'names':
      return parenthesised(c, `the ${prop} list`, () => objectName(c, `a name in ${prop}`));
    case 'list':
      return nameList(c, `a name for ${prop}`, true);
    case 'opts': {
      c.expectPunct('(', ` to open the ${prop} options`);
      const options = propertyList(ctx, shape.props, shape.what);
      if (!options.length) c.fail(`a ${shape.what} option`);
      c.expectPunct(')', ` to close the ${prop} options`);
      return options;
    }
    case 'fileFormat':
      return fileFormatIn(ctx);
  }
}

/** `FILE_FORMAT = ( FORMAT_NAME = … | TYPE = … [ options ] )` of a stage, or a file format's bare name (as the docs' examples write it). */
function fileFormatIn(ctx: Ctx): Property[] | string {
  const { c } = ctx;
  if (c.tok.kind === 'word' || c.tok.kind === 'qident') return objectName(c, 'a file format name or ( … ) for FILE_FORMAT');
  c.expectPunct('(', ' to open FILE_FORMAT options (or a file format name)');
  const out = propertyList(ctx, FILE_FORMAT_PROPS, 'FILE_FORMAT');
  if (!out.length) c.fail('FORMAT_NAME or a file format option');
  c.expectPunct(')', ' to close FILE_FORMAT options');
  checkFormatOptions(ctx, out);
  return out;
}

const FILE_FORMAT_PROPS: PropTable = { TYPE: { t: 'enum', of: FORMAT_TYPES }, FORMAT_NAME: { t: 'name', str: true }, ...ANY_FORMAT_OPTION };

/** Each option belongs to the TYPE given (CSV when none); FORMAT_NAME stands alone. */
function checkFormatOptions(ctx: Ctx, props: Property[]): void {
  const type = props.find((p) => p.name === 'TYPE')?.value ?? 'CSV';
  if (typeof type !== 'string') return; // a $variable: the type is known only when it runs
  const named = props.find((p) => p.name === 'FORMAT_NAME');
  for (const p of props) {
    if (p.name === 'TYPE' || p.name === 'COMMENT' || p === named) continue;
    const at = ctx.at.get(p)!;
    if (named) ctx.c.failAt(`${p.name} cannot be given with FORMAT_NAME`, at);
    const shape = FORMAT_OPTIONS[type][p.name];
    if (!shape) ctx.c.failAt(`${p.name} is not a FILE FORMAT option for TYPE = ${type}`, at);
    if (shape.t === 'enum' && typeof p.value === 'string' && !shape.of.includes(p.value))
      ctx.c.failAt(`${p.name} = ${p.value} is not a TYPE = ${type} value`, at);
  }
}

/**
 * `NAME = value [ , ] …` while the next word names a property of `table` (or is one of
 * `flags`, bare keywords such as SECURE). Stops at any other word; a word followed by '='
 * that the table lacks is an unknown property.
 */
function propertyList(ctx: Ctx, table: PropTable, what: string, seen = new Set<string>(), flags: readonly string[] = []): Property[] {
  const { c } = ctx;
  const out: Property[] = [];
  for (;;) {
    const t = c.tok;
    if (t.kind !== 'word') break;
    const isFlag = flags.includes(t.value) && !c.isPunct('=', 1);
    const shape = Object.hasOwn(table, t.value) ? table[t.value] : undefined;
    if (!isFlag && !shape) {
      if (c.isPunct('=', 1)) c.failAt(`unknown ${what} property ${t.value}`, t);
      break;
    }
    if (seen.has(t.value)) c.failAt(`${t.value} is given twice`, t);
    seen.add(t.value);
    c.next();
    let prop: Property;
    if (isFlag) prop = { name: t.value, value: true };
    else {
      c.expectPunct('=', ` after ${t.value}`);
      prop = { name: t.value, value: value(ctx, shape!, t.value) };
    }
    ctx.at.set(prop, t);
    out.push(prop);
    // Properties may be separated by commas as well as by blanks.
    if (c.acceptPunct(',') && !(c.tok.kind === 'word' && (c.isPunct('=', 1) || flags.includes(c.tok.value)))) c.fail(`a ${what} property after ','`);
  }
  return out;
}

/** `( tag = 'value' [ , … ] )` */
function tagList(c: Cursor): Property[] {
  return parenthesised(c, 'the TAG list', () => tagAssignment(c));
}

function tagAssignment(c: Cursor): Property {
  const name = objectName(c, 'a tag name');
  c.expectPunct('=', ` after tag ${name}`);
  return { name, value: stringLiteral(c, `a string literal for tag ${name}`) };
}

/** The statement after AS: the rest of the text, offered to the dialect's parsers. */
function body(ctx: Ctx, what: string): Body {
  const { c } = ctx;
  const t = c.tok;
  if (t.kind === 'eof') c.fail(`the ${what} after AS`);
  const r = ctx.parseInner(c.sql.slice(t.start).trimEnd());
  if (!r) return c.failAt(`no Snowflake parser accepts the ${what} after AS`, t);
  c.i = c.toks.length - 1;
  return innerResult(ctx, r, true);
}

/** A task's body: a Snowflake Scripting block (snowflake-scripting.ts) or one statement. */
function taskBody(ctx: Ctx): unknown {
  return atBlock(ctx.c) ? scriptingBody(ctx) : body(ctx, 'task statement');
}

/** Tokens from here up to (not including) a depth-0 token for which `stop` holds: an expression. */
function expression(ctx: Ctx, what: string, stop: (t: Tok) => boolean): { text: string; body: Body } {
  const { c } = ctx;
  const first = c.tok;
  let depth = 0;
  while (c.tok.kind !== 'eof' && !(depth === 0 && stop(c.tok))) {
    if (c.tok.text === '(') depth++;
    else if (c.tok.text === ')' && --depth < 0) break;
    c.next();
  }
  if (c.tok === first) c.fail(what);
  const text = c.textFrom(first);
  // In parentheses, so the text must be one expression: not an alias, a list or a FROM clause.
  const r = ctx.parseInner(`SELECT (${text})`);
  if (!r) return c.failAt(`no Snowflake parser accepts ${what} '${text.length > 40 ? text.slice(0, 37) + '...' : text}'`, first);
  return { text, body: innerResult(ctx, r, false) };
}

// ---- Object kinds ----

/** The object kind named next (longest keyword match among `kinds`). */
function objectKind(c: Cursor, kinds: readonly ObjectKind[], after: string): ObjectKind {
  const match = kinds.filter((k) => c.isWords(k.words)).sort((a, b) => b.words.length - a.words.length)[0];
  if (!match) c.fail(`an object kind after ${after} (${kinds.map((k) => k.name).join(', ')})`);
  c.i += match.words.length;
  return match;
}

function ifExists(c: Cursor, allowed = true): boolean {
  if (!c.isWords(['IF', 'EXISTS'])) return false;
  if (!allowed) c.fail('a name (IF EXISTS is not documented here)');
  c.i += 2;
  return true;
}

// ---- CREATE ----

const MODIFIERS: Record<string, readonly string[]> = {
  'FILE FORMAT': ['TEMP', 'TEMPORARY', 'VOLATILE'],
  STAGE: ['TEMP', 'TEMPORARY'],
  'DYNAMIC TABLE': ['TRANSIENT'],
};
const CREATED: readonly ObjectKind[] = CREATED_KINDS.map((n) => KINDS.find((k) => k.name === n)!);

function create(ctx: Ctx): Statement {
  const { c } = ctx;
  if (isProcedure(c)) return createProcedure(ctx);
  c.expect('CREATE');
  const orReplace = c.accept('OR', 'REPLACE');
  const orTok = c.tok;
  const orAlter = c.accept('OR', 'ALTER');
  if (orAlter && orReplace) c.failAt('OR REPLACE and OR ALTER cannot both be given', orTok);
  const modTok = c.tok;
  const modifier = ['TEMP', 'TEMPORARY', 'VOLATILE', 'TRANSIENT'].find((m) => c.accept(m)) ?? null;
  const kindTok = c.tok;
  const kind = objectKind(c, CREATED, orAlter ? 'CREATE OR ALTER' : 'CREATE');
  if (modifier && !(MODIFIERS[kind.name] ?? []).includes(modifier)) c.failAt(`${modifier} does not apply to CREATE ${kind.name}`, modTok);
  if (orAlter && !OR_ALTER_KINDS.has(kind.name)) c.failAt(`CREATE OR ALTER is not documented for ${kind.name}`, kindTok);
  const ifNotExists = c.isWords(['IF', 'NOT', 'EXISTS']);
  if (ifNotExists && orReplace) c.failAt('OR REPLACE and IF NOT EXISTS cannot both be given', c.tok);
  if (ifNotExists && orAlter) c.failAt('CREATE OR ALTER does not take IF NOT EXISTS', c.tok);
  if (ifNotExists) c.i += 3;
  const name = objectName(c, `the ${kind.name} name`);
  const head = {
    statement: 'CREATE',
    objectType: kind.name,
    name,
    orReplace,
    ...(orAlter ? { orAlter } : {}),
    ifNotExists,
    ...(modifier ? { modifier } : {}),
  };
  ctx.orAlter = orAlter;
  const rest = CREATE_FORMS[kind.name](ctx, name);
  c.expectEnd();
  return { ast: { ...head, ...rest }, type: `CREATE ${kind.name}` };
}

/** `[ WITH ] TAG ( … )` when next (WITH only before TAG); CREATE OR ALTER rejects it. */
function withTag(c: Cursor, withRequired = false, orAlter = false): Property[] | null {
  const t = c.tok;
  if (c.isWords(['WITH', 'TAG'])) c.next();
  else if (withRequired || !c.isWord('TAG')) return null;
  if (orAlter) c.failAt('CREATE OR ALTER cannot set tags', t);
  c.expect('TAG');
  return tagList(c);
}

const CREATE_FORMS: Record<string, (ctx: Ctx, name: string) => Record<string, unknown>> = {
  'FILE FORMAT': (ctx) => {
    const properties = propertyList(ctx, { ...FILE_FORMAT_PROPS, COMMENT: { t: 'str' } }, 'FILE FORMAT');
    const named = properties.find((p) => p.name === 'FORMAT_NAME');
    if (named) ctx.c.failAt('unknown FILE FORMAT property FORMAT_NAME', ctx.at.get(named)!);
    checkFormatOptions(ctx, properties);
    ctx.c.expectEnd('a FILE FORMAT option or end of statement');
    return { properties };
  },
  STAGE: (ctx) => {
    const properties = propertyList(ctx, CREATE_PROPS.STAGE, 'STAGE');
    const tags = withTag(ctx.c, false, ctx.orAlter);
    ctx.c.expectEnd(`a STAGE property${tags ? '' : ', [ WITH ] TAG ( … )'} or end of statement`);
    return { properties, ...(tags ? { tags } : {}) };
  },
  PIPE: (ctx) => {
    const { c } = ctx;
    const properties = propertyList(ctx, ctx.orAlter ? PIPE_CREATE_OR_ALTER : PIPE_CREATE, 'PIPE');
    if (!c.accept('AS')) c.fail('a PIPE property or AS <copy statement>');
    // The docs also write the statement in parentheses: AS ( COPY INTO … ).
    const wrapped = c.isPunct('(') && c.isWords(['COPY', 'INTO'], 1);
    if (!wrapped && !c.isWords(['COPY', 'INTO'])) c.fail('COPY INTO (the body of a pipe is a COPY INTO <table> statement)');
    const target = c.peek(wrapped ? 3 : 2);
    if (target.text.startsWith('@')) c.fail('a table after COPY INTO (a pipe loads into a table, not a stage)', target);
    return { properties, body: wrapped ? parenthesisedBody(ctx, 'COPY INTO statement') : body(ctx, 'COPY INTO statement') };
  },
  TASK: (ctx) => {
    const { c } = ctx;
    const tags = withTag(c, true, ctx.orAlter);
    const properties = propertyList(ctx, CREATE_PROPS.TASK, 'TASK');
    const names = new Set(properties.map((p) => p.name));
    if (names.has('WAREHOUSE') && names.has('USER_TASK_MANAGED_INITIAL_WAREHOUSE_SIZE'))
      c.failAt(
        'WAREHOUSE and USER_TASK_MANAGED_INITIAL_WAREHOUSE_SIZE cannot both be given',
        ctx.at.get(properties.find((p) => p.name.startsWith('USER_TASK_MANAGED'))!)!,
      );
    const after = c.accept('AFTER') ? nameList(c, 'a predecessor task name') : null;
    const executeAs = c.accept('EXECUTE', 'AS', 'USER') ? objectName(c, 'a user name after EXECUTE AS USER') : null;
    const when = c.accept('WHEN') ? expression(ctx, 'a WHEN condition', (t) => t.kind === 'word' && t.value === 'AS') : null;
    if (!c.accept('AS')) c.fail(`a TASK property${after ? '' : ', AFTER'}${when ? '' : ', WHEN'} or AS <sql>`);
    return {
      ...(tags ? { tags } : {}),
      properties,
      ...(after ? { after } : {}),
      ...(executeAs ? { executeAsUser: executeAs } : {}),
      ...(when ? { when: when.text } : {}),
      body: taskBody(ctx),
    };
  },
  WAREHOUSE: (ctx) => {
    const { c } = ctx;
    const seen = new Set<string>();
    const withWord = c.isWord('WITH') && !c.isWord('TAG', 1) ? c.next() : null;
    const properties = propertyList(ctx, CREATE_PROPS.WAREHOUSE, 'WAREHOUSE', seen);
    if (withWord && !properties.length) c.fail('a WAREHOUSE property after WITH');
    const tags = withTag(c, false, ctx.orAlter);
    if (tags) properties.push(...propertyList(ctx, CREATE_PROPS.WAREHOUSE, 'WAREHOUSE', seen));
    c.expectEnd(`a WAREHOUSE property${tags ? '' : ', [ WITH ] TAG ( … )'} or end of statement`);
    return { properties, ...(tags ? { tags } : {}) };
  },
  'DYNAMIC TABLE': (ctx, name) => createDynamicTable(ctx, name, DT_CREATE),
  'DYNAMIC ICEBERG TABLE': (ctx, name) => createDynamicTable(ctx, name, DT_ICEBERG_CREATE),
  STREAM: (ctx) => createStream(ctx),
  'MASKING POLICY': (ctx) => createPolicy(ctx, 'MASKING POLICY', MASKING_POLICY_CREATE),
  'ROW ACCESS POLICY': (ctx) => createPolicy(ctx, 'ROW ACCESS POLICY', ROW_ACCESS_POLICY_CREATE),
  'STORAGE INTEGRATION': (ctx) => createStorageIntegration(ctx),
  'DATABASE ROLE': (ctx) => {
    const properties = propertyList(ctx, { COMMENT: { t: 'str' } }, 'DATABASE ROLE');
    ctx.c.expectEnd('COMMENT = … or end of statement');
    return { properties };
  },
};

/** `( <statement> )` running to the end of the text: the statement inside, offered to the dialect's parsers. */
function parenthesisedBody(ctx: Ctx, what: string): Body {
  const { c } = ctx;
  const open = c.next();
  const close = c.toks[c.toks.length - 2];
  if (close === open || close.kind !== 'punct' || close.text !== ')') c.fail(`')' closing the ${what} at the end of the statement`, c.toks[c.toks.length - 1]);
  const inner = c.sql.slice(c.tok.start, close.start).trim();
  const r = ctx.parseInner(inner);
  if (!r) return c.failAt(`no Snowflake parser accepts the ${what} inside ( … )`, c.tok);
  c.i = c.toks.length - 1;
  return innerResult(ctx, r, true);
}

/** CREATE STREAM: `[ [ WITH ] TAG ( … ) ] [ COPY GRANTS ] ON <source> <name> [ AT | BEFORE ( … ) ] [ properties ]`. */
function createStream(ctx: Ctx): Record<string, unknown> {
  const { c } = ctx;
  const tags = withTag(c, false, ctx.orAlter);
  const copyGrants = c.accept('COPY', 'GRANTS');
  if (copyGrants && ctx.orAlter) c.failAt('CREATE OR ALTER STREAM does not take COPY GRANTS', c.prev);
  c.expect('ON');
  const source = [...STREAM_SOURCES].sort((a, b) => b.words.length - a.words.length).find((s) => c.accept(...s.words));
  if (!source) return c.fail(`the stream's source after ON (${STREAM_SOURCES.map((s) => s.words.join(' ')).join(', ')})`);
  const kind = source.words.join(' ');
  let on: string;
  if (kind === 'DIRECTORY') {
    c.expectPunct('(', ' after ON DIRECTORY');
    if (!(c.tok.kind === 'word' && c.tok.text.startsWith('@'))) c.fail('a stage (@name) in DIRECTORY( … )');
    on = objectName(c);
    c.expectPunct(')', ' to close DIRECTORY( … )');
  } else on = objectName(c, `the ${kind.toLowerCase()} name`);
  if (source.table) ctx.tables.push(on);
  let timeTravel: Record<string, unknown> | null = null;
  if (c.isWord('AT') || c.isWord('BEFORE')) {
    if (!source.timeTravel) c.fail(`a ${kind} stream property or end of statement (AT | BEFORE is not documented for streams on a ${kind.toLowerCase()})`);
    timeTravel = atBefore(ctx);
  }
  const properties = propertyList(ctx, source.props, `STREAM ON ${kind}`);
  c.expectEnd(`a STREAM ON ${kind} property or end of statement`);
  return {
    ...(tags ? { tags } : {}),
    ...(copyGrants ? { copyGrants } : {}),
    on: { objectType: kind, name: on },
    ...(timeTravel ? { timeTravel } : {}),
    properties,
  };
}

/** `{ AT | BEFORE } ( { TIMESTAMP | OFFSET | STATEMENT | STREAM } => <value> )` (STREAM only after AT). */
function atBefore(ctx: Ctx, stream = true): Record<string, unknown> {
  const { c } = ctx;
  const which = c.next().value;
  c.expectPunct('(', ` after ${which}`);
  const kinds = which === 'AT' && stream ? ['TIMESTAMP', 'OFFSET', 'STATEMENT', 'STREAM'] : ['TIMESTAMP', 'OFFSET', 'STATEMENT'];
  const by = kinds.find((k) => c.accept(k));
  if (!by) return c.fail(`${kinds.join(', ')} in ${which} ( … )`);
  if (!(c.isPunct('=') && c.isPunct('>', 1) && c.peek(1).start === c.tok.end)) c.fail(`'=>' after ${by}`);
  c.i += 2;
  let value: Value;
  if (by === 'STREAM') value = stringLiteral(c, "the stream's name as a string literal after STREAM =>");
  else value = expression(ctx, `the ${by} value`, (t) => t.text === ')').text;
  c.expectPunct(')', ` to close ${which} ( … )`);
  return { [which.toLowerCase()]: { [by.toLowerCase()]: value } };
}

/**
 * CREATE MASKING POLICY | ROW ACCESS POLICY: `AS ( <arg> <type> [ , … ] ) RETURNS <type> -> <body> [ properties ]`.
 * The arguments are columns; the body is an expression read by the dialect's parsers as `SELECT <body>`.
 */
function createPolicy(ctx: Ctx, kind: string, table: PropTable): Record<string, unknown> {
  const { c } = ctx;
  c.expect('AS');
  const args = parenthesised(c, 'the policy signature', () => {
    const name = objectName(c, 'an argument name');
    ctx.columns.push(name);
    return { name, type: dataType(c, `a data type for argument ${name}`) };
  });
  c.expect('RETURNS');
  const returnsTok = c.tok;
  const returns = dataType(c, 'the return data type');
  if (kind === 'ROW ACCESS POLICY' && returns.toUpperCase() !== 'BOOLEAN') c.fail('BOOLEAN (a row access policy returns BOOLEAN)', returnsTok);
  c.expectPunct('->', ' before the policy body');
  // The body runs to the first of the policy's properties (`COMMENT =` …) at depth 0.
  const stop = (t: Tok) => t.kind === 'word' && Object.hasOwn(table, t.value) && c.isPunct('=', 1);
  const bodyExpr = expression(ctx, 'a policy body', stop);
  const properties = propertyList(ctx, table, kind);
  c.expectEnd(`a ${kind} property or end of statement`);
  return { args, returns, body: bodyExpr.text, properties };
}

/** CREATE STORAGE INTEGRATION: TYPE, the STORAGE_PROVIDER's own parameters, ENABLED and STORAGE_ALLOWED_LOCATIONS required. */
function createStorageIntegration(ctx: Ctx): Record<string, unknown> {
  const { c } = ctx;
  const properties = propertyList(ctx, STORAGE_INTEGRATION_CREATE, 'STORAGE INTEGRATION');
  c.expectEnd('a STORAGE INTEGRATION property or end of statement');
  const byName = new Map(properties.map((p) => [p.name, p]));
  const provider = byName.get('STORAGE_PROVIDER')?.value;
  const type = byName.get('TYPE')?.value;
  // POSTGRES_INTERNAL_STORAGE has a page of its own; only the documented external-storage forms are checked here.
  const required = ['TYPE', ...(type === 'POSTGRES_INTERNAL_STORAGE' ? [] : ['STORAGE_PROVIDER', 'ENABLED', 'STORAGE_ALLOWED_LOCATIONS'])];
  for (const r of required) if (!byName.has(r)) c.failAt(`CREATE STORAGE INTEGRATION needs ${r}`, c.tok);
  if (typeof provider === 'string') {
    const spec = STORAGE_PROVIDERS[provider];
    for (const p of properties) {
      const providerParam = Object.values(STORAGE_PROVIDERS).some((s) => s.params.includes(p.name));
      if (providerParam && !spec.params.includes(p.name)) c.failAt(`${p.name} is not a parameter of STORAGE_PROVIDER = '${provider}'`, ctx.at.get(p)!);
    }
    for (const r of spec.required) if (!byName.has(r)) c.failAt(`STORAGE_PROVIDER = '${provider}' needs ${r}`, c.tok);
  }
  return { properties };
}

/** CREATE [ TRANSIENT ] DYNAMIC [ ICEBERG ] TABLE <name> [ ( <columns> ) ] <properties and clauses> AS <query>. */
function createDynamicTable(ctx: Ctx, name: string, table: PropTable): Record<string, unknown> {
  const { c } = ctx;
  const iceberg = table === DT_ICEBERG_CREATE;
  const what = iceberg ? 'DYNAMIC ICEBERG TABLE' : 'DYNAMIC TABLE';
  ctx.tables.push(name);
  if (c.isWord('CLONE')) return cloneDynamicTable(ctx, what);
  const columns = c.isPunct('(') ? parenthesised(c, 'the column list', () => dynamicColumn(ctx)) : null;
  const seen = new Set<string>();
  const properties: Property[] = [];
  const clauses: Record<string, unknown> = {};
  const once = (key: string, words: string, t: Tok) => {
    if (key in clauses) c.failAt(`${words} is given twice`, t);
  };
  for (;;) {
    const t = c.tok;
    const withWord = c.isWord('WITH') ? 1 : 0;
    // CREATE OR ALTER cannot set the table's policies or tags, nor copy grants.
    const governance = ['ROW ACCESS POLICY', 'AGGREGATION POLICY', 'STORAGE LIFECYCLE POLICY', 'TAG', 'COPY GRANTS', 'COPY TAGS'].find((w) =>
      c.isWords(w.split(' '), w.startsWith('COPY') ? 0 : withWord),
    );
    if (governance && ctx.orAlter) c.failAt(`CREATE OR ALTER ${what} does not take ${governance}`, t);
    if (c.isAssignment()) properties.push(...propertyList(ctx, table, what, seen));
    else if (c.isWords(['CLUSTER', 'BY'])) {
      once('clusterBy', 'CLUSTER BY', t);
      c.i += 2;
      c.expectPunct('(', ' after CLUSTER BY');
      clauses.clusterBy = expression(ctx, 'a clustering expression', (x) => x.text === ')').text;
      c.expectPunct(')', ' to close CLUSTER BY');
    } else if (iceberg && c.isWords(['PARTITION', 'BY'])) {
      once('partitionBy', 'PARTITION BY', t);
      c.i += 2;
      c.expectPunct('(', ' after PARTITION BY');
      clauses.partitionBy = expression(ctx, 'a partition expression', (x) => x.text === ')').text;
      c.expectPunct(')', ' to close PARTITION BY');
    } else if (c.accept('COPY', 'GRANTS')) {
      once('copyGrants', 'COPY GRANTS', t);
      clauses.copyGrants = true;
    } else if (c.accept('COPY', 'TAGS')) {
      once('copyTags', 'COPY TAGS', t);
      clauses.copyTags = true;
    } else if (c.isWords(['FROZEN', 'WHERE']) || c.isWords(['IMMUTABLE', 'WHERE'])) {
      // FROZEN WHERE; IMMUTABLE WHERE is its former spelling, still accepted per the docs.
      once('frozenWhere', 'FROZEN WHERE', t);
      c.i += 2;
      c.expectPunct('(', ` after ${t.value} WHERE`);
      clauses.frozenWhere = expression(ctx, 'a FROZEN WHERE condition', (x) => x.text === ')').text;
      c.expectPunct(')', ' to close FROZEN WHERE ( … )');
    } else if (!iceberg && c.accept('BACKFILL', 'FROM')) {
      once('backfillFrom', 'BACKFILL FROM', t);
      clauses.backfillFrom = objectName(c, 'a table name after BACKFILL FROM');
      ctx.tables.push(clauses.backfillFrom as string);
    } else if (c.accept('EXECUTE', 'AS', 'USER')) {
      once('executeAsUser', 'EXECUTE AS USER', t);
      const user = objectName(c, 'a user name after EXECUTE AS USER');
      let secondaryRoles: string | string[] | null = null;
      if (c.accept('USE', 'SECONDARY', 'ROLES'))
        secondaryRoles = c.accept('ALL') ? 'ALL' : c.accept('NONE') ? 'NONE' : nameList(c, 'ALL, NONE or a role name after USE SECONDARY ROLES');
      clauses.executeAsUser = { user, ...(secondaryRoles ? { secondaryRoles } : {}) };
    } else if (c.accept('REQUIRE', 'USER')) {
      once('requireUser', 'REQUIRE USER', t);
      clauses.requireUser = true;
    } else if (c.isWords(['ROW', 'ACCESS', 'POLICY'], withWord)) {
      once('rowAccessPolicy', 'ROW ACCESS POLICY', t);
      c.i += withWord + 3;
      clauses.rowAccessPolicy = rowAccessPolicy(ctx);
    } else if (c.isWords(['STORAGE', 'LIFECYCLE', 'POLICY'], withWord)) {
      once('storageLifecyclePolicy', 'STORAGE LIFECYCLE POLICY', t);
      c.i += withWord + 3;
      clauses.storageLifecyclePolicy = rowAccessPolicy(ctx, 'a storage lifecycle policy name');
    } else if (c.isWords(['AGGREGATION', 'POLICY'], withWord)) {
      once('aggregationPolicy', 'AGGREGATION POLICY', t);
      c.i += withWord + 2;
      const policy = objectName(c, 'an aggregation policy name');
      const entityKey = c.accept('ENTITY', 'KEY') ? parenthesised(c, 'the ENTITY KEY columns', () => objectName(c, 'a column name')) : null;
      clauses.aggregationPolicy = { policy, ...(entityKey ? { entityKey } : {}) };
    } else if (c.isWord('TAG', withWord)) {
      once('tags', 'TAG', t);
      clauses.tags = withTag(c);
    } else break;
  }
  if (!c.isWord('AS')) c.fail(`a ${what} property or clause, or AS <query>`);
  // TARGET_LAG is required unless SCHEDULER = DISABLE.
  const scheduled = properties.find((p) => p.name === 'SCHEDULER')?.value !== 'DISABLE';
  for (const required of scheduled ? ['TARGET_LAG', 'WAREHOUSE'] : ['WAREHOUSE'])
    if (!seen.has(required)) c.failAt(`CREATE ${what} needs ${required} before AS`, c.tok);
  c.next();
  const at = c.tok;
  const query = body(ctx, 'query');
  if (query.type !== 'SELECT') c.failAt(`a ${what} is defined by a query, not ${query.type ?? 'that statement'}`, at);
  return { ...(columns ? { columns } : {}), properties, ...clauses, body: query };
}

/**
 * `CLONE <source> [ { AT | BEFORE } ( … ) ] [ COPY GRANTS ] [ COPY TAGS ] [ TARGET_LAG = … ] [ WAREHOUSE = … ]
 * [ EXECUTE AS USER <user> [ USE SECONDARY ROLES … ] ]`: the source counts among the tables.
 */
function cloneDynamicTable(ctx: Ctx, what: string): Record<string, unknown> {
  const { c } = ctx;
  if (ctx.orAlter) c.fail(`a column list, property or AS (CREATE OR ALTER ${what} … CLONE is not documented)`);
  c.expect('CLONE');
  const clone = objectName(c, `the ${what.toLowerCase()} to clone`);
  ctx.tables.push(clone);
  const timeTravel = c.isWord('AT') || c.isWord('BEFORE') ? atBefore(ctx, false) : null;
  const copyGrants = c.accept('COPY', 'GRANTS');
  const copyTags = c.accept('COPY', 'TAGS');
  const properties = propertyList(ctx, { TARGET_LAG: { t: 'str', or: ['DOWNSTREAM'] }, WAREHOUSE: { t: 'name' } }, `${what} CLONE`);
  let executeAsUser: Record<string, unknown> | null = null;
  if (c.accept('EXECUTE', 'AS', 'USER')) {
    const user = objectName(c, 'a user name after EXECUTE AS USER');
    c.expect('USE', 'SECONDARY', 'ROLES');
    const secondaryRoles = c.accept('ALL') ? 'ALL' : c.accept('NONE') ? 'NONE' : nameList(c, 'ALL, NONE or a role name after USE SECONDARY ROLES');
    executeAsUser = { user, secondaryRoles };
  }
  c.expectEnd(`a ${what} CLONE clause or end of statement`);
  return {
    clone,
    ...(timeTravel ? { timeTravel } : {}),
    ...(copyGrants ? { copyGrants } : {}),
    ...(copyTags ? { copyTags } : {}),
    properties,
    ...(executeAsUser ? { executeAsUser } : {}),
  };
}

/** A dynamic table column: `<name> <type> [ [ WITH ] MASKING POLICY … ] [ [ WITH ] PROJECTION POLICY … ] [ [ WITH ] TAG ( … ) ] [ COMMENT '…' ]`. */
function dynamicColumn(ctx: Ctx): Record<string, unknown> {
  const { c } = ctx;
  const name = objectName(c, 'a column name');
  ctx.columns.push(name);
  // A bare name (the type left to the query), as the docs' dynamic Iceberg table example writes `( num_orders NUMBER(10,0), order_day )`.
  if (c.isPunct(',') || c.isPunct(')')) return { name };
  const col: Record<string, unknown> = { name, type: dataType(c, `a data type for column ${name}`) };
  for (;;) {
    const t = c.tok;
    const w = c.isWord('WITH') ? 1 : 0;
    const key = c.isWords(['MASKING', 'POLICY'], w)
      ? 'maskingPolicy'
      : c.isWords(['PROJECTION', 'POLICY'], w)
        ? 'projectionPolicy'
        : c.isWord('TAG', w)
          ? 'tags'
          : null;
    if (key && ctx.orAlter) c.failAt(`CREATE OR ALTER cannot set a column's ${key === 'tags' ? 'tags' : 'policies'}`, t);
    if (!key && c.isWord('COLLATE') && !w) {
      if ('collate' in col) c.failAt('COLLATE is given twice', t);
      c.next();
      col.collate = stringLiteral(c, `a collation specification for ${name}`);
      continue;
    }
    if (!key && c.isWord('COMMENT') && !w) {
      if ('comment' in col) c.failAt('COMMENT is given twice', t);
      c.next();
      col.comment = stringLiteral(c, `a string literal for the comment on ${name}`);
      continue;
    }
    if (!key) {
      if (w) c.fail('MASKING POLICY, PROJECTION POLICY or TAG after WITH', c.peek(1));
      return col;
    }
    if (key in col) c.failAt(`${key === 'tags' ? 'TAG' : key === 'maskingPolicy' ? 'MASKING POLICY' : 'PROJECTION POLICY'} is given twice on ${name}`, t);
    c.i += w;
    if (key === 'tags') col.tags = (c.expect('TAG'), tagList(c));
    else {
      c.i += 2;
      col[key] = objectName(c, 'a policy name');
      if (key === 'maskingPolicy' && c.accept('USING')) col.using = parenthesised(c, 'the USING columns', () => objectName(c, 'a column name'));
    }
  }
}

/** `<policy> ON ( <col> [ , … ] )` after ROW ACCESS POLICY (or STORAGE LIFECYCLE POLICY). */
function rowAccessPolicy(ctx: Ctx, what = 'a row access policy name'): { policy: string; on: string[] } {
  const { c } = ctx;
  const policy = objectName(c, what);
  c.expect('ON');
  const on = parenthesised(c, 'the ON columns', () => objectName(c, 'a column name'));
  ctx.columns.push(...on);
  return { policy, on };
}

// ---- ALTER ----

type Action = Record<string, unknown> & { action: string };

const ALTERED = KINDS.filter((k) => k.alter);

function alter(ctx: Ctx): Statement {
  const { c } = ctx;
  c.expect('ALTER');
  const kind = objectKind(c, ALTERED, 'ALTER');
  const spec = kind.alter!;
  const exists = ifExists(c, spec.ifExists !== false);
  const nameless = (spec.nameOptionalFor ?? []).some((w) => c.isWord(w)) || (kind.name === 'ACCOUNT' && (c.isWord('SET') || c.isWord('UNSET')));
  let name: string | null = null;
  let args: string[] | null = null;
  if (!nameless) {
    name = objectName(c, `the ${kind.name} name`);
    if (kind.args) args = argTypes(c);
    if (kind.table) ctx.tables.push(name);
    if (kind.name === 'ACCOUNT' && !c.isWord('RENAME') && !c.isWords(['DROP', 'OLD', 'URL'])) c.fail('RENAME TO or DROP OLD URL after ALTER ACCOUNT <name>');
  }
  const action = alterAction(ctx, kind, spec);
  c.expectEnd();
  return { ast: { statement: 'ALTER', objectType: kind.name, name, ...(args ? { args } : {}), ifExists: exists, ...action }, type: `ALTER ${kind.name}` };
}

/** Matches `WORDS [OPTIONAL WORDS]` and returns the words read. */
function verb(c: Cursor, pattern: string): string | null {
  const [, required, optional] = /^([^[]+?)\s*(?:\[(.*)\])?$/.exec(pattern)!;
  const words = required.split(' ');
  if (!c.accept(...words)) return null;
  if (optional) {
    const more = optional.split(' ');
    if (c.isWord(more[0])) {
      c.expect(...more);
      words.push(...more);
    }
  }
  return words.join(' ');
}

function alterAction(ctx: Ctx, kind: ObjectKind, spec: AlterSpec): Action {
  const { c } = ctx;
  for (const v of spec.verbs ?? []) {
    const words = verb(c, v);
    if (words) return { action: words };
  }
  if (spec.rename && c.accept('RENAME')) {
    c.expect('TO');
    const newName = objectName(c, 'the new name');
    const saveOldUrl = kind.name === 'ACCOUNT' && c.isWord('SAVE_OLD_URL') ? propertyList(ctx, { SAVE_OLD_URL: { t: 'bool' } }, 'RENAME')[0].value : undefined;
    return { action: 'RENAME', newName, ...(saveOldUrl !== undefined ? { saveOldUrl } : {}) };
  }
  if (spec.swap && c.accept('SWAP')) {
    c.expect('WITH');
    const target = objectName(c, `the ${kind.name} to swap with`);
    if (kind.table) ctx.tables.push(target);
    return { action: 'SWAP', target };
  }
  if (spec.tags && c.accept('SET', 'TAG')) return { action: 'SET TAG', tags: commaList(c, () => tagAssignment(c)) };
  if (spec.tags && c.accept('UNSET', 'TAG')) return { action: 'UNSET TAG', tags: nameList(c, 'a tag name') };
  for (const form of spec.forms ?? []) {
    const a = FORMS[form](ctx, kind);
    if (a) return a;
  }
  if (spec.set && c.isWord('SET')) return set(ctx, kind, spec);
  if (spec.unset && c.accept('UNSET')) return { action: 'UNSET', properties: unsetNames(ctx, kind, spec.unset) };
  const options = [
    ...(spec.verbs ?? []).map((v) => v.replace(/\s*\[.*\]/, '')),
    ...(spec.rename ? ['RENAME TO'] : []),
    ...(spec.swap ? ['SWAP WITH'] : []),
  ].concat(
    (spec.forms ?? []).flatMap((f) => FORM_LEADS[f]),
    spec.set || spec.tags ? ['SET'] : [],
    spec.unset || spec.tags ? ['UNSET'] : [],
  );
  return c.fail(`an ALTER ${kind.name} action (${[...new Set(options)].join(', ')})`);
}

function commaList<T>(c: Cursor, item: () => T): T[] {
  const out = [item()];
  while (c.acceptPunct(',')) out.push(item());
  return out;
}

function set(ctx: Ctx, kind: ObjectKind, spec: AlterSpec): Action {
  const { c } = ctx;
  c.expect('SET');
  const properties = propertyList(ctx, spec.set!, kind.name, new Set(), spec.setFlags);
  if (!properties.length) c.fail(`a ${kind.name} property after SET`);
  if (spec.setOne && properties.length > 1) c.failAt(`ALTER ${kind.name} sets one property at a time`, ctx.at.get(properties[1])!);
  return { action: 'SET', properties };
}

function unsetNames(ctx: Ctx, kind: ObjectKind, allowed: readonly string[]): string[] {
  const { c } = ctx;
  return commaList(c, () => {
    const t = c.tok;
    if (t.kind !== 'word') c.fail(`a ${kind.name} property to unset`);
    if (!allowed.includes(t.value))
      c.failAt(kind.alter?.set && Object.hasOwn(kind.alter.set, t.value) ? `${t.value} cannot be unset` : `unknown ${kind.name} property ${t.value}`, t);
    return c.next().value;
  });
}

/** Keywords the kind-specific forms start with (for the "expected an action" message). */
const FORM_LEADS: Record<string, string[]> = {
  accountPolicy: ['SET … POLICY', 'UNSET … POLICY'],
  accounts: ['ENABLE', 'DISABLE'],
  groupMembers: ['ADD', 'REMOVE', 'MOVE'],
  policyBody: ['SET BODY ->'],
  clusterBy: ['CLUSTER BY'],
  networkRules: ['ADD', 'REMOVE'],
  pipeRefresh: ['REFRESH'],
  executeAs: ['EXECUTE AS'],
  monitor: ['SET', 'TRIGGERS'],
  increment: ['SET INCREMENT'],
  shareAccounts: ['ADD ACCOUNTS', 'REMOVE ACCOUNTS'],
  stageRefresh: ['REFRESH'],
  tagValues: ['ADD ALLOWED_VALUES', 'DROP ALLOWED_VALUES', 'SET MASKING POLICY', 'UNSET MASKING POLICY'],
  taskGraph: ['ADD AFTER', 'REMOVE AFTER', 'MODIFY AS', 'MODIFY WHEN'],
  rowAccess: ['ADD ROW ACCESS POLICY', 'DROP ROW ACCESS POLICY'],
  serviceSpec: ['FROM SPECIFICATION', 'FROM @stage', 'RESTORE VOLUME'],
  warehouseTables: ['ADD TABLES', 'DROP TABLES'],
};

const GROUP_LISTS = ['ALLOWED_DATABASES', 'ALLOWED_SHARES', 'ALLOWED_EXTERNAL_VOLUMES', 'ALLOWED_INTEGRATION_TYPES', 'ALLOWED_ACCOUNTS'];

/** Kind-specific ALTER forms; each returns null when its first words are not next. */
const FORMS: Record<string, (ctx: Ctx, kind: ObjectKind) => Action | null> = {
  accountPolicy: ({ c }) => {
    const verb = c.isWord('SET') ? 'SET' : c.isWord('UNSET') ? 'UNSET' : null;
    const type = ['AUTHENTICATION', 'PASSWORD', 'SESSION', 'PACKAGES'].find((p) => c.isWord(p, 1) && c.isWord('POLICY', 2));
    if (!verb || !type) return null;
    c.i += 3;
    if (verb === 'UNSET') return { action: `UNSET ${type} POLICY` };
    const policy = objectName(c, 'a policy name');
    const force = type === 'PACKAGES' && c.accept('FORCE');
    return { action: `SET ${type} POLICY`, policy, ...(force ? { force } : {}) };
  },
  accounts: ({ c }, kind) => {
    if (!c.isWord('ENABLE') && !c.isWord('DISABLE')) return null;
    const op = c.next().value;
    const what = kind.name === 'CONNECTION' ? (c.expect('FAILOVER'), 'FAILOVER') : c.accept('FAILOVER') ? 'FAILOVER' : (c.expect('REPLICATION'), 'REPLICATION');
    const accounts = op === 'ENABLE' || c.isWord('TO') ? (c.expect('TO', 'ACCOUNTS'), nameList(c, 'an account name')) : null;
    const ignoreEditionCheck = op === 'ENABLE' && c.accept('IGNORE', 'EDITION', 'CHECK');
    return { action: `${op} ${what}`, ...(accounts ? { accounts } : {}), ...(ignoreEditionCheck ? { ignoreEditionCheck } : {}) };
  },
  groupMembers: ({ c }) => {
    if (c.accept('MOVE')) {
      const what = c.accept('DATABASES') ? 'DATABASES' : (c.expect('SHARES'), 'SHARES');
      const members = nameList(c, 'a name');
      c.expect('TO');
      const group = c.accept('FAILOVER') ? 'FAILOVER GROUP' : (c.expect('REPLICATION'), 'REPLICATION GROUP');
      c.expect('GROUP');
      return { action: `MOVE ${what}`, members, to: { objectType: group, name: objectName(c, 'a group name') } };
    }
    const op = c.isWord('ADD') ? 'ADD' : c.isWord('REMOVE') ? 'REMOVE' : null;
    if (!op) return null;
    c.next();
    const members = nameList(c, 'a name');
    c.expect(op === 'ADD' ? 'TO' : 'FROM');
    const list = GROUP_LISTS.find((l) => c.accept(l));
    if (!list) c.fail(GROUP_LISTS.join(' | '));
    const ignoreEditionCheck = op === 'ADD' && list === 'ALLOWED_ACCOUNTS' && c.accept('IGNORE', 'EDITION', 'CHECK');
    return { action: op, members, list, ...(ignoreEditionCheck ? { ignoreEditionCheck } : {}) };
  },
  policyBody: (ctx) => {
    const { c } = ctx;
    if (!c.accept('SET', 'BODY')) return null;
    c.expectPunct('->', ' after SET BODY');
    return { action: 'SET BODY', body: expression(ctx, 'a policy body', () => false).text };
  },
  clusterBy: (ctx) => {
    const { c } = ctx;
    if (!c.accept('CLUSTER', 'BY')) return null;
    c.expectPunct('(', ' after CLUSTER BY');
    const keys = expression(ctx, 'a clustering expression', (t) => t.text === ')').text;
    c.expectPunct(')', ' to close CLUSTER BY');
    return { action: 'CLUSTER BY', keys };
  },
  networkRules: ({ c }) => {
    const op = c.isWord('ADD') ? 'ADD' : c.isWord('REMOVE') ? 'REMOVE' : null;
    if (!op) return null;
    c.next();
    const list = ['ALLOWED_NETWORK_RULE_LIST', 'BLOCKED_NETWORK_RULE_LIST'].find((l) => c.accept(l));
    if (!list) c.fail(`ALLOWED_NETWORK_RULE_LIST or BLOCKED_NETWORK_RULE_LIST after ${op}`);
    c.expectPunct('=', ` after ${list}`);
    return { action: op, list, rule: stringLiteral(c, 'a network rule name as a string literal') };
  },
  pipeRefresh: (ctx) => {
    if (!ctx.c.accept('REFRESH')) return null;
    return { action: 'REFRESH', properties: propertyList(ctx, { PREFIX: { t: 'str' }, MODIFIED_AFTER: { t: 'str' } }, 'REFRESH') };
  },
  stageRefresh: (ctx) => {
    if (!ctx.c.accept('REFRESH')) return null;
    return { action: 'REFRESH', properties: propertyList(ctx, { SUBPATH: { t: 'str' } }, 'REFRESH') };
  },
  executeAs: ({ c }) => {
    if (!c.accept('EXECUTE', 'AS')) return null;
    const as = c.accept('CALLER') ? 'CALLER' : c.accept('OWNER') ? 'OWNER' : (c.expect('RESTRICTED', 'CALLER'), 'RESTRICTED CALLER');
    return { action: 'EXECUTE AS', as };
  },
  monitor: (ctx) => {
    const { c } = ctx;
    const table: PropTable = {
      CREDIT_QUOTA: { t: 'int' },
      FREQUENCY: { t: 'enum', of: ['MONTHLY', 'DAILY', 'WEEKLY', 'YEARLY', 'NEVER'] },
      START_TIMESTAMP: { t: 'str', or: ['IMMEDIATELY'] },
      END_TIMESTAMP: { t: 'str' },
      NOTIFY_USERS: { t: 'names' },
    };
    const properties = c.accept('SET') ? propertyList(ctx, table, 'RESOURCE MONITOR') : null;
    if (properties && !properties.length) c.fail('a RESOURCE MONITOR property after SET');
    const triggers: Record<string, unknown>[] = [];
    if (c.accept('TRIGGERS'))
      do {
        c.expect('ON');
        const threshold = integer(c, 'a threshold percentage');
        c.expect('PERCENT', 'DO');
        const action = ['SUSPEND_IMMEDIATE', 'SUSPEND', 'NOTIFY'].find((a) => c.accept(a));
        if (!action) c.fail('SUSPEND, SUSPEND_IMMEDIATE or NOTIFY');
        triggers.push({ threshold, do: action });
      } while (c.isWord('ON'));
    if (!properties && !triggers.length) return null;
    return { action: properties ? 'SET' : 'TRIGGERS', ...(properties ? { properties } : {}), ...(triggers.length ? { triggers } : {}) };
  },
  increment: ({ c }) => {
    if (!c.isWord('INCREMENT') && !c.isWords(['SET', 'INCREMENT'])) return null;
    c.accept('SET');
    c.expect('INCREMENT');
    c.accept('BY');
    c.acceptPunct('=');
    return { action: 'SET INCREMENT', increment: integer(c, 'the sequence interval') };
  },
  shareAccounts: (ctx) => {
    const { c } = ctx;
    const op = c.isWords(['ADD', 'ACCOUNTS']) ? 'ADD' : c.isWords(['REMOVE', 'ACCOUNTS']) ? 'REMOVE' : null;
    if (!op) return null;
    c.i += 2;
    c.expectPunct('=', ' after ACCOUNTS');
    const accounts = nameList(c, 'a consumer account', true);
    const properties = propertyList(ctx, { SHARE_RESTRICTIONS: { t: 'bool' } }, 'SHARE');
    return { action: `${op} ACCOUNTS`, accounts, ...(properties.length ? { properties } : {}) };
  },
  tagValues: ({ c }) => {
    const op = c.isWords(['ADD', 'ALLOWED_VALUES']) ? 'ADD' : c.isWords(['DROP', 'ALLOWED_VALUES']) ? 'DROP' : null;
    if (op) {
      c.i += 2;
      return { action: `${op} ALLOWED_VALUES`, values: commaList(c, () => stringLiteral(c, 'an allowed value as a string literal')) };
    }
    const verb = c.isWords(['SET', 'MASKING', 'POLICY']) ? 'SET' : c.isWords(['UNSET', 'MASKING', 'POLICY']) ? 'UNSET' : null;
    if (!verb) return null;
    c.next();
    const policies = commaList(c, () => (c.expect('MASKING', 'POLICY'), objectName(c, 'a masking policy name')));
    const force = verb === 'SET' && c.accept('FORCE');
    return { action: `${verb} MASKING POLICY`, policies, ...(force ? { force } : {}) };
  },
  taskGraph: (ctx) => {
    const { c } = ctx;
    const op = c.isWords(['ADD', 'AFTER']) ? 'ADD' : c.isWords(['REMOVE', 'AFTER']) ? 'REMOVE' : null;
    if (op) {
      c.i += 2;
      return { action: `${op} AFTER`, tasks: nameList(c, 'a predecessor task name') };
    }
    if (c.accept('MODIFY', 'AS')) return { action: 'MODIFY AS', body: taskBody(ctx) };
    if (c.accept('MODIFY', 'WHEN')) return { action: 'MODIFY WHEN', when: expression(ctx, 'a WHEN condition', () => false).text };
    return null;
  },
  rowAccess: (ctx) => {
    const { c } = ctx;
    if (c.accept('ADD', 'ROW', 'ACCESS', 'POLICY')) return { action: 'ADD ROW ACCESS POLICY', ...rowAccessPolicy(ctx) };
    if (!c.accept('DROP', 'ROW', 'ACCESS', 'POLICY')) return null;
    const dropped = objectName(c, 'a row access policy name');
    // The documented combined form replaces one policy by another in one statement.
    if (!c.acceptPunct(',')) return { action: 'DROP ROW ACCESS POLICY', policy: dropped };
    c.expect('ADD', 'ROW', 'ACCESS', 'POLICY');
    return { action: 'DROP ROW ACCESS POLICY, ADD ROW ACCESS POLICY', dropped, ...rowAccessPolicy(ctx) };
  },
  warehouseTables: (ctx) => {
    const { c } = ctx;
    const op = c.isWords(['ADD', 'TABLES']) ? 'ADD' : c.isWords(['DROP', 'TABLES']) ? 'DROP' : null;
    if (!op) return null;
    c.i += 2;
    const tables = parenthesised(c, `the ${op} TABLES list`, () => objectName(c, 'a table name'));
    ctx.tables.push(...tables);
    return { action: `${op} TABLES`, tables };
  },
  serviceSpec: (ctx) => {
    const { c } = ctx;
    if (c.accept('FROM', 'SPECIFICATION')) return { action: 'FROM SPECIFICATION', specification: stringLiteral(c, "the specification text ($$ … $$ or '…')") };
    if (c.isWord('FROM') && c.peek(1).kind === 'word' && c.peek(1).text.startsWith('@')) {
      c.next();
      const stage = objectName(c);
      c.expect('SPECIFICATION_FILE');
      c.expectPunct('=', ' after SPECIFICATION_FILE');
      return { action: 'FROM STAGE', stage, specificationFile: stringLiteral(c, 'the specification file path as a string literal') };
    }
    if (!c.accept('RESTORE', 'VOLUME')) return null;
    const volume = objectName(c, 'a volume name');
    c.expect('INSTANCES');
    const instances = commaList(c, () => integer(c, 'an instance id'));
    c.expect('FROM', 'SNAPSHOT');
    return { action: 'RESTORE VOLUME', volume, instances, snapshot: objectName(c, 'a snapshot name') };
  },
};

// ---- DROP, DESCRIBE ----

function drop(ctx: Ctx): Statement {
  const { c } = ctx;
  c.expect('DROP');
  const kind = objectKind(
    c,
    KINDS.filter((k) => k.drop),
    'DROP',
  );
  const exists = ifExists(c);
  const name = objectName(c, `the ${kind.name} name`);
  const args = kind.args ? argTypes(c) : null;
  if (kind.table) ctx.tables.push(name);
  const option = kind.drop!.find((o) => c.accept(o)) ?? null;
  c.expectEnd(kind.drop!.length ? `${kind.drop!.join(' | ')} or end of statement` : undefined);
  return {
    ast: { statement: 'DROP', objectType: kind.name, name, ...(args ? { args } : {}), ifExists: exists, ...(option ? { option } : {}) },
    type: `DROP ${kind.name}`,
  };
}

function describeStatement(ctx: Ctx): Statement {
  const { c } = ctx;
  const verb = c.next().value;
  const kind = objectKind(
    c,
    KINDS.filter((k) => k.describe),
    verb,
  );
  const name = objectName(c, `the ${kind.name} name`);
  const args = kind.args ? argTypes(c) : null;
  if (kind.table) ctx.tables.push(name);
  c.expectEnd();
  return { ast: { statement: 'DESCRIBE', objectType: kind.name, name, ...(args ? { args } : {}) }, type: `DESCRIBE ${kind.name}` };
}

// ---- BEGIN ----

function begin(ctx: Ctx): Statement {
  const { c } = ctx;
  if (c.accept('START')) c.expect('TRANSACTION');
  else {
    c.expect('BEGIN');
    if (!c.accept('WORK')) c.accept('TRANSACTION');
  }
  const name = c.accept('NAME') ? objectName(c, 'a transaction name') : null;
  c.expectEnd(name ? undefined : 'NAME <transaction name> or end of statement');
  return { ast: { statement: 'BEGIN', ...(name ? { name } : {}) }, type: 'BEGIN TRANSACTION' };
}

// ---- Entry point ----

const STATEMENTS: Record<string, (ctx: Ctx) => Statement> = {
  CREATE: create,
  ALTER: alter,
  DROP: drop,
  DESCRIBE: describeStatement,
  DESC: describeStatement,
  SHOW: show,
  BEGIN: (ctx) => (atBlock(ctx.c) ? anonymousBlock(ctx) : begin(ctx)),
  DECLARE: anonymousBlock,
  START: begin,
};

/** Parses one statement (no trailing ';') or throws a ParseFailure. */
export function parseSnowflakeObject(sql: string, parseInner: InnerParser): EngineResult {
  const c = new Cursor(sql, tokenize(sql));
  const ctx: Ctx = { c, parseInner, tables: [], columns: [], at: new Map() };
  const form = c.tok.kind === 'word' ? STATEMENTS[c.tok.value] : undefined;
  if (!form) return c.fail('CREATE, ALTER, DROP, DESCRIBE, SHOW, BEGIN or DECLARE');
  const { ast, type } = form(ctx);
  return { ast, type, tables: [...new Set(ctx.tables)], columns: [...new Set(ctx.columns)] };
}

/** The grammar as the last parser of the Snowflake chain; `parseInner` offers embedded statements to the others. */
export function snowflakeObjectsEngine(parseInner: InnerParser): Engine {
  return {
    name: 'docparse Snowflake object grammar',
    maxChars: 1_000_000,
    wantsSemicolons: false,
    parse(sql) {
      try {
        return parseSnowflakeObject(sql, parseInner);
      } catch (err) {
        // Input nested past the stack (through embedded statements) rejects the statement, not the job.
        if (err instanceof RangeError) throw new ParseFailure(`too deeply nested for the object grammar (${err.message})`, null);
        throw err;
      }
    },
  };
}
