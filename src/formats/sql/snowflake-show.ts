// SHOW for the Snowflake object grammar (snowflake-objects.ts): every SHOW command of the SQL
// command reference at docs.snowflake.com, each with the words, the filters (TERSE, HISTORY,
// LIKE, STARTS WITH, LIMIT … FROM) and the scopes (IN ACCOUNT | DATABASE | SCHEMA | TABLE |
// APPLICATION | COMPUTE POOL …) its own page documents; SHOW GRANTS and SHOW PARAMETERS have
// forms of their own. A command the reference does not list is rejected, so `SHOW NONSENSE`
// is not a parse. `SHOW … ->> <statement> [ ->> … ]` (the pipe operator) hands each following
// statement to the dialect's other parsers.

import type { Cursor, Ctx, Statement, Tok } from './snowflake-syntax.js';
import { argTypes, innerStatement, integer, nameList, objectName, stringLiteral } from './snowflake-syntax.js';

/** One alternative after IN: its words and whether a name follows (`DATABASE [ <name> ]`). */
interface Scope {
  words: readonly string[];
  name: 'none' | 'optional' | 'required';
  /** What a bare name is (the words are empty): a schema for most commands, a table for SHOW COLUMNS. */
  as?: string;
}

interface ShowSpec {
  /** The command's words after SHOW (and after TERSE). */
  words: string;
  terse?: boolean;
  history?: boolean;
  /** LIKE '<pattern>' (most commands). */
  like?: boolean;
  /** The IN alternatives; `inRequired` when the page makes the scope part of the command. */
  in?: readonly Scope[];
  inRequired?: boolean;
  startsWith?: boolean;
  /** LIMIT <rows> [ FROM '<name>' ] ('from'), or LIMIT <rows> alone ('rows'). */
  limit?: 'from' | 'rows';
  /** Command-specific clauses, read after the scope (in the order given), each optional. */
  extra?: readonly Extra[];
}

type Extra = 'OF TYPE' | 'ROOT ONLY' | 'WITH PRIMARY' | 'WITH PRIVILEGES' | 'BY USER' | 'TO SECURITY INTEGRATION' | 'FOR USER' | 'IN ACCOUNT <name>';

/** Scope shorthands: `DATABASE [name]` is a keyword with an optional name, `name` a bare name. */
function scopes(...alts: string[]): Scope[] {
  return alts.map((alt) => {
    const words = alt.split(' ');
    const last = words[words.length - 1];
    if (last === 'name') return { words: words.slice(0, -1), name: 'required' };
    if (last === '[name]') return { words: words.slice(0, -1), name: 'optional' };
    return { words, name: 'none' };
  });
}

const ACCOUNT = scopes('ACCOUNT');
/** IN { ACCOUNT | DATABASE [ <db> ] | SCHEMA [ <schema> ] | <schema> }: a schema object's scopes. */
const SCHEMA_SCOPES = scopes('ACCOUNT', 'DATABASE [name]', 'SCHEMA [name]', 'name');
/** … | APPLICATION <app> | APPLICATION PACKAGE <package>: objects a Snowflake Native App can hold. */
const APP_SCOPES = [...SCHEMA_SCOPES, ...scopes('APPLICATION name', 'APPLICATION PACKAGE name')];
/** Tables' own constraints and columns: … | TABLE | [ TABLE ] <table>. */
const TABLE_SCOPES = [...scopes('ACCOUNT', 'DATABASE [name]', 'SCHEMA [name]', 'TABLE [name]'), { words: [], name: 'required', as: 'TABLE' } as Scope];

/** The common shape of a schema object's SHOW: LIKE, IN (schema scopes), STARTS WITH, LIMIT … FROM. */
const full = (words: string, more: Partial<ShowSpec> = {}): ShowSpec => ({ words, like: true, in: SCHEMA_SCOPES, startsWith: true, limit: 'from', ...more });
/** An account-level object's SHOW: LIKE only. */
const liked = (words: string, more: Partial<ShowSpec> = {}): ShowSpec => ({ words, like: true, ...more });
/** A command that lists what one named object holds: IN <words> <name>, required. */
const within = (words: string, scope: string, more: Partial<ShowSpec> = {}): ShowSpec => ({ words, in: scopes(`${scope} name`), inRequired: true, ...more });

export const SHOW_COMMANDS: readonly ShowSpec[] = [
  { words: 'ACCOUNTS', terse: true, history: true, like: true },
  full('AGENTS'),
  full('AGGREGATION POLICIES', { in: APP_SCOPES }),
  full('ALERTS', { terse: true, in: APP_SCOPES }),
  liked('APPLICATION PACKAGES', { startsWith: true, limit: 'from' }),
  within('APPLICATION ROLES', 'APPLICATION', { limit: 'from' }),
  liked('APPLICATION SERVICES', { in: scopes('ACCOUNT', 'APPLICATION name'), startsWith: true, limit: 'from' }),
  liked('APPLICATIONS', { startsWith: true, limit: 'from' }),
  full('ARTIFACT REPOSITORIES'),
  full('AUTHENTICATION POLICIES', { in: APP_SCOPES }),
  liked('AVAILABLE LISTINGS', { limit: 'from' }),
  liked('AVAILABLE OFFERS', { in: scopes('LISTING name') }),
  liked('AVAILABLE ORGANIZATION PROFILES'),
  full('BACKUP POLICIES'),
  full('BACKUP SETS'),
  within('BACKUPS', 'BACKUP SET'),
  liked('CATALOG INTEGRATIONS'),
  liked('CHANNELS', { in: scopes('ACCOUNT', 'DATABASE [name]', 'SCHEMA [name]', 'TABLE [name]') }),
  liked('CLASSES', { in: SCHEMA_SCOPES }),
  full('CODE BUNDLES'),
  // … | TABLE | [ TABLE ] <table> | VIEW | [ VIEW ] <view> | APPLICATION <app> | APPLICATION PACKAGE <pkg>: a bare name is a table or a view.
  liked('COLUMNS', {
    in: [...TABLE_SCOPES.slice(0, -1), ...scopes('VIEW [name]', 'APPLICATION name', 'APPLICATION PACKAGE name'), TABLE_SCOPES[TABLE_SCOPES.length - 1]],
  }),
  liked('COMPUTE POOL INSTANCE FAMILIES'),
  liked('COMPUTE POOLS', { startsWith: true, limit: 'from' }),
  within('CONFIGURATIONS', 'APPLICATION', { like: true }),
  liked('CONNECTIONS'),
  full('CONTACTS'),
  liked('CORTEX BASE MODELS'),
  full('CORTEX SEARCH SERVICES'),
  full('DATA METRIC FUNCTIONS'),
  full('DATA MOVEMENT POLICIES'),
  full('DATA MOVEMENT RULES'),
  // SHOW DATABASE ROLES [ LIKE ] IN DATABASE <name> [ LIMIT … FROM ]
  within('DATABASE ROLES', 'DATABASE', { like: true, limit: 'from' }),
  // IN FAILOVER | REPLICATION GROUP is read before the others (it takes nothing else).
  { words: 'DATABASES', terse: true, history: true, like: true, startsWith: true, limit: 'from' },
  full('DATASETS'),
  full('DBT PROJECTS'),
  full('DCM PROJECTS'),
  { words: 'DELEGATED AUTHORIZATIONS', extra: ['BY USER', 'TO SECURITY INTEGRATION'] },
  within('DEPLOYMENTS', 'DCM PROJECT'),
  full('DYNAMIC TABLES'),
  within('ENDPOINTS', 'SERVICE'),
  within('ENTITIES', 'DCM PROJECT'),
  { words: 'EVENT ROUTING TABLE ON ORGANIZATION' },
  liked('EVENT ROUTING TABLES'),
  full('EVENT TABLES', { terse: true, in: APP_SCOPES }),
  full('EXPERIMENTS'),
  full('EXTERNAL AGENTS'),
  liked('EXTERNAL CONSUMERS'),
  liked('EXTERNAL FUNCTIONS', { in: SCHEMA_SCOPES }),
  full('EXTERNAL TABLES', { terse: true, in: APP_SCOPES }),
  liked('EXTERNAL VOLUMES'),
  { words: 'FAILOVER GROUPS', extra: ['IN ACCOUNT <name>'] },
  full('FEATURE POLICIES', { in: APP_SCOPES }),
  liked('FILE FORMATS', { in: APP_SCOPES }),
  // SHOW FUNCTIONS [ LIKE ] [ IN { ACCOUNT | CLASS <class> | DATABASE [ <db> ] | SCHEMA [ <schema> ] | <schema> } ], and SHOW FUNCTIONS IN MODEL <model>.
  liked('FUNCTIONS', { in: [...SCHEMA_SCOPES, ...scopes('CLASS name', 'MODEL name')] }),
  full('GATEWAYS'),
  within('GIT BRANCHES', 'GIT REPOSITORY', { like: true }),
  liked('GIT REPOSITORIES', { in: SCHEMA_SCOPES }),
  within('GIT TAGS', 'GIT REPOSITORY', { like: true }),
  liked('GLOBAL ACCOUNTS'),
  full('HYBRID TABLES', { terse: true }),
  full('ICEBERG TABLES', { terse: true }),
  full('IMAGE REPOSITORIES'),
  within('IMAGES', 'IMAGE REPOSITORY'),
  full('INDEXES', { terse: true, in: [...scopes('ACCOUNT', 'DATABASE [name]', 'SCHEMA [name]', 'TABLE name'), SCHEMA_SCOPES[3]] }),
  ...['', 'API ', 'EXTERNAL ACCESS ', 'NOTIFICATION ', 'SECURITY ', 'STORAGE '].map((t) => liked(`${t}INTEGRATIONS`)),
  full('INTERACTIVE TABLES', { terse: true }),
  full('JOIN POLICIES', { in: APP_SCOPES }),
  { words: 'LISTINGS', like: true, startsWith: true, limit: 'from' },
  { words: 'LOCKS', in: ACCOUNT },
  liked('MAINTENANCE POLICIES', { in: scopes('ACCOUNT', 'APPLICATION name') }),
  liked('MANAGED ACCOUNTS'),
  liked('MASKING POLICIES', { in: APP_SCOPES }),
  liked('MATERIALIZED VIEWS', { in: APP_SCOPES }),
  full('MCP SERVERS'),
  { words: 'MFA METHODS', extra: ['FOR USER'] },
  full('MODEL MONITORS'),
  full('MODELS'),
  liked('MULTI PARTY APPROVAL POLICIES', { in: SCHEMA_SCOPES }),
  { words: 'NETWORK POLICIES' },
  full('NETWORK RULES'),
  within('NODES', 'COMPUTE POOL'),
  full('NOTEBOOK PROJECTS'),
  full('NOTEBOOKS'),
  full('OBJECTS', { terse: true, in: APP_SCOPES }),
  { words: 'OBJECTS OWNED BY APPLICATION', in: [], extra: [] },
  liked('OFFERS', { in: scopes('LISTING name') }),
  full('ONLINE FEATURE TABLES'),
  ...['CONNECTOR DEFINITIONS', 'CONNECTORS', 'DATA PLANE INTEGRATIONS', 'DEPLOYMENTS', 'RUNTIMES'].map((w) => liked(`OPENFLOW ${w}`)),
  liked('ORGANIZATION ACCOUNTS'),
  { words: 'ORGANIZATION CONTRACTS' },
  liked('ORGANIZATION PROFILES'),
  liked('ORGANIZATION USER GROUPS'),
  liked('ORGANIZATION USERS'),
  liked('PACKAGES POLICIES', { in: SCHEMA_SCOPES }),
  liked('PASSWORD POLICIES', { in: APP_SCOPES }),
  liked('PIPES', { in: APP_SCOPES }),
  liked('POSTGRES INSTANCES'),
  liked('PRICING PLANS', { in: scopes('LISTING name') }),
  ...['PRIMARY', 'IMPORTED', 'EXPORTED', 'UNIQUE'].map((k): ShowSpec => ({ words: `${k} KEYS`, terse: true, in: TABLE_SCOPES })),
  full('PRIVACY POLICIES'),
  { words: 'PRIVILEGES', in: scopes('APPLICATION name') },
  liked('PROCEDURES', { in: [...APP_SCOPES, ...scopes('CLASS name')] }),
  full('PROJECTION POLICIES', { in: APP_SCOPES }),
  within('REFERENCES', 'APPLICATION'),
  liked('REGIONS'),
  within('RELEASE CHANNELS', 'APPLICATION PACKAGE', { like: true, in: scopes('APPLICATION PACKAGE name', 'LISTING name') }),
  within('RELEASE DIRECTIVES', 'APPLICATION PACKAGE', { like: true }),
  liked('REPLICATION ACCOUNTS'),
  liked('REPLICATION DATABASES', { extra: ['WITH PRIMARY'] }),
  { words: 'REPLICATION GROUPS', extra: ['IN ACCOUNT <name>'] },
  liked('RESOURCE MONITORS'),
  full('RESTRICTED SESSION SCOPES'),
  // SHOW ROLES [ LIKE ] [ IN CLASS <class> ] and SHOW ROLES IN SERVICE <service>.
  liked('ROLES', { terse: true, in: scopes('CLASS name', 'SERVICE name'), startsWith: true, limit: 'from' }),
  liked('ROW ACCESS POLICIES', { in: APP_SCOPES }),
  within('RULES', 'EVENT ROUTING TABLE'),
  within('RUNS', 'EXPERIMENT'),
  {
    words: 'SCHEMAS',
    terse: true,
    history: true,
    like: true,
    in: scopes('ACCOUNT', 'DATABASE [name]', 'APPLICATION name', 'APPLICATION PACKAGE name'),
    startsWith: true,
    limit: 'from',
  },
  liked('SECRETS', { in: APP_SCOPES }),
  ...['DIMENSIONS', 'FACTS', 'METRICS'].map((w) => full(`SEMANTIC ${w}`, { in: [...SCHEMA_SCOPES.slice(0, 3), ...scopes('SEMANTIC VIEW name', 'name')] })),
  full('SEMANTIC VIEWS', { terse: true }),
  liked('SEQUENCES', { in: APP_SCOPES }),
  ...['CONTAINERS', 'INSTANCES', 'VOLUMES'].map((w) => within(`SERVICE ${w}`, 'SERVICE')),
  // SHOW [ JOB ] SERVICES [ EXCLUDE JOBS ] … [ IN … | COMPUTE POOL <pool> ]
  full('SERVICES', { in: [...SCHEMA_SCOPES.slice(0, 3), ...scopes('COMPUTE POOL name'), SCHEMA_SCOPES[3]], extra: ['OF TYPE'] }),
  full('JOB SERVICES', { in: [...SCHEMA_SCOPES.slice(0, 3), ...scopes('COMPUTE POOL name'), SCHEMA_SCOPES[3]], extra: ['OF TYPE'] }),
  liked('SESSION POLICIES', { in: APP_SCOPES }),
  within('SHARED CONTENT', 'APPLICATION PACKAGE'),
  { words: 'SHARES', like: true, startsWith: true, limit: 'from' },
  full('SNAPSHOT POLICIES'),
  full('SNAPSHOT SETS'),
  full('SNAPSHOTS', { in: [...SCHEMA_SCOPES.slice(0, 3), ...scopes('SNAPSHOT SET name', 'SERVICE name'), SCHEMA_SCOPES[3]] }),
  { words: 'SPECIFICATIONS', in: scopes('APPLICATION name') },
  liked('STAGES', { in: APP_SCOPES }),
  full('STORAGE LIFECYCLE POLICIES'),
  full('STREAMLITS', { terse: true }),
  full('STREAMS', { terse: true, in: APP_SCOPES }),
  full('TABLES', { terse: true, history: true, in: APP_SCOPES }),
  liked('TAGS', { in: APP_SCOPES }),
  full('TASKS', { terse: true, in: APP_SCOPES, extra: ['ROOT ONLY'] }),
  within('TELEMETRY EVENT DEFINITIONS', 'APPLICATION'),
  { words: 'TRANSACTIONS', in: ACCOUNT },
  full('TYPES'),
  liked('USER FUNCTIONS', { in: SCHEMA_SCOPES }),
  { words: 'USER KEY PAIRS', extra: ['FOR USER'] },
  liked('USER PROCEDURES', { in: SCHEMA_SCOPES }),
  { words: 'USER PROGRAMMATIC ACCESS TOKENS', extra: ['FOR USER'] },
  within('USER PROGRAMMATIC ACCESS TOKENS FOR EXTERNAL CONSUMER', 'EXTERNAL CONSUMER'),
  { words: 'USER WORKLOAD IDENTITY AUTHENTICATION METHODS', extra: ['FOR USER'] },
  { words: 'USERS', terse: true, like: true, startsWith: true, limit: 'from' },
  liked('VARIABLES'),
  {
    words: 'VERSIONS',
    like: true,
    in: scopes(
      'APPLICATION PACKAGE name',
      'DATASET name',
      'DBT PROJECT name',
      'LISTING name',
      'MODEL name',
      'OPENFLOW CONNECTOR name',
      'ORGANIZATION PROFILE name',
    ),
    inRequired: true,
  },
  full('VIEWS', { terse: true, in: APP_SCOPES }),
  liked('WAREHOUSES', { extra: ['WITH PRIVILEGES'] }),
  full('WORKSPACES'),
];

/** Longest first, so SHOW USER FUNCTIONS is not read as SHOW USERS …, nor DATABASE ROLES as DATABASES. */
const BY_LENGTH = [...SHOW_COMMANDS].sort((a, b) => b.words.split(' ').length - a.words.split(' ').length);

/** Words that end a scope where a name may follow (`IN DATABASE` then STARTS WITH …). */
const CLAUSE_WORDS = new Set(['STARTS', 'LIMIT', 'ROOT', 'WITH', 'BY', 'TO', 'FOR']);

export function show(ctx: Ctx): Statement {
  const { c } = ctx;
  c.expect('SHOW');
  if (c.isWord('GRANTS') || c.isWords(['FUTURE', 'GRANTS']) || c.isWords(['CALLER', 'GRANTS'])) return finish(ctx, grants(c));
  if (c.isWord('PARAMETERS')) return finish(ctx, parameters(c));
  const terseTok = c.tok;
  const terse = c.accept('TERSE');
  const spec = BY_LENGTH.find((s) => c.isWords(s.words.split(' ')));
  if (!spec) return c.fail('the objects to show (a SHOW command of the Snowflake reference: TABLES, GRANTS, PARAMETERS, SERVICES, …)');
  c.i += spec.words.split(' ').length;
  if (terse && !spec.terse) c.failAt(`TERSE is not documented for SHOW ${spec.words}`, terseTok);
  const ast: Record<string, unknown> = { statement: 'SHOW', objects: spec.words, ...(terse ? { terse } : {}) };
  const type = `SHOW ${spec.words}`;
  if (spec.words === 'OBJECTS OWNED BY APPLICATION') {
    ast.application = objectName(c, 'an application name');
    return finish(ctx, { ast, type });
  }
  // SHOW DATABASES | SHARES | LISTINGS IN { FAILOVER | REPLICATION } GROUP <name> takes nothing else.
  const group = c.isWord('IN') && (c.isWord('FAILOVER', 1) || c.isWord('REPLICATION', 1)) && c.isWord('GROUP', 2) ? c.peek(1).value : null;
  if (group && (spec.words === 'DATABASES' || spec.words === 'SHARES' || (spec.words === 'LISTINGS' && group === 'FAILOVER')) && !terse) {
    c.i += 3;
    ast.in = { objectType: `${group} GROUP`, name: objectName(c, `the ${group.toLowerCase()} group name`) };
    return finish(ctx, { ast, type });
  }
  if (spec.words.endsWith('SERVICES') && c.accept('EXCLUDE', 'JOBS')) ast.excludeJobs = true;
  if (spec.history && c.accept('HISTORY')) ast.history = true;
  if (spec.like && c.accept('LIKE')) ast.like = stringLiteral(c, 'a pattern as a string literal after LIKE');
  if (spec.in && spec.in.length && (spec.inRequired || c.isWord('IN'))) {
    c.expect('IN');
    ast.in = scope(c, spec);
  }
  for (const extra of spec.extra ?? []) readExtra(c, extra, ast);
  if (spec.startsWith && c.accept('STARTS', 'WITH')) ast.startsWith = stringLiteral(c, 'a string literal after STARTS WITH');
  if (spec.extra?.includes('ROOT ONLY') && c.accept('ROOT', 'ONLY')) ast.rootOnly = true;
  if (spec.limit && c.accept('LIMIT')) {
    ast.limit = integer(c, 'a row count after LIMIT');
    if (spec.limit === 'from' && c.accept('FROM')) ast.from = stringLiteral(c, 'a string literal after LIMIT … FROM');
  }
  // SHOW [ JOB ] SERVICES … [ OF TYPE <workload_type> [ , … ] ] closes the command.
  if (spec.extra?.includes('OF TYPE') && c.accept('OF', 'TYPE')) ast.ofType = nameList(c, 'a workload type after OF TYPE');
  return finish(ctx, { ast, type }, expectedNext(spec, ast));
}

/** What the command could still take (for the message when something else follows). */
function expectedNext(spec: ShowSpec, ast: Record<string, unknown>): string {
  const next = [
    spec.history && !('like' in ast) && !('in' in ast) ? 'HISTORY' : '',
    spec.like && !('in' in ast) && !('like' in ast) ? 'LIKE' : '',
    spec.in?.length && !('in' in ast) ? 'IN' : '',
    spec.startsWith && !('startsWith' in ast) ? 'STARTS WITH' : '',
    spec.limit && !('limit' in ast) ? 'LIMIT' : '',
  ].filter(Boolean);
  return next.length ? `${next.join(', ')} or end of statement` : 'end of statement';
}

function scope(c: Cursor, spec: ShowSpec): Record<string, unknown> {
  const alts = [...spec.in!].sort((a, b) => b.words.length - a.words.length);
  for (const alt of alts) {
    if (alt.words.length ? !c.isWords(alt.words) : !isName(c.tok)) continue;
    c.i += alt.words.length;
    const objectType = alt.words.length ? alt.words.join(' ') : (alt.as ?? 'SCHEMA');
    const named = alt.name === 'required' || (alt.name === 'optional' && isName(c.tok) && !CLAUSE_WORDS.has(c.tok.value));
    return { objectType, ...(named ? { name: objectName(c, `the ${objectType.toLowerCase()} name`) } : {}) };
  }
  return c.fail(`${spec.in!.map((a) => (a.words.length ? a.words.join(' ') : `a ${a.as?.toLowerCase() ?? 'schema'} name`)).join(', ')} after IN`);
}

function isName(t: Tok): boolean {
  return t.kind === 'qident' || t.kind === 'var' || (t.kind === 'word' && !['STARTS', 'LIMIT'].includes(t.value));
}

function readExtra(c: Cursor, extra: Extra, ast: Record<string, unknown>): void {
  switch (extra) {
    case 'WITH PRIMARY':
      if (c.accept('WITH', 'PRIMARY')) ast.withPrimary = objectName(c, 'an account.database name after WITH PRIMARY');
      return;
    case 'WITH PRIVILEGES':
      // WITH PRIVILEGES <privilege> [ , … ]: privilege names are keywords (MODIFY, OPERATE, USAGE, CREATE SCHEMA …).
      if (c.accept('WITH', 'PRIVILEGES')) {
        const privileges: string[] = [];
        do {
          const first = c.tok;
          if (first.kind !== 'word') c.fail('a privilege after WITH PRIVILEGES');
          while (c.tok.kind === 'word') c.next();
          privileges.push(c.textFrom(first).toUpperCase());
        } while (c.acceptPunct(','));
        ast.withPrivileges = privileges;
      }
      return;
    case 'BY USER':
      if (c.accept('BY', 'USER')) ast.byUser = objectName(c, 'a user name after BY USER');
      return;
    case 'TO SECURITY INTEGRATION':
      if (c.accept('TO', 'SECURITY', 'INTEGRATION')) ast.toSecurityIntegration = objectName(c, 'an integration name');
      return;
    case 'FOR USER':
      if (c.accept('FOR', 'USER')) ast.forUser = objectName(c, 'a user name after FOR USER');
      return;
    case 'IN ACCOUNT <name>':
      if (c.accept('IN', 'ACCOUNT')) ast.in = { objectType: 'ACCOUNT', name: objectName(c, 'an account name after IN ACCOUNT') };
      return;
    case 'ROOT ONLY':
    case 'OF TYPE':
      return; // read later, where the pages put them: ROOT ONLY after STARTS WITH, OF TYPE last
  }
}

// ---- SHOW GRANTS ----

/** Object types SHOW GRANTS ON takes (the securable objects), longest first. */
const GRANT_OBJECT_TYPES = [
  'ACCOUNT',
  'AGGREGATION POLICY',
  'ALERT',
  'APPLICATION',
  'APPLICATION PACKAGE',
  'APPLICATION ROLE',
  'AUTHENTICATION POLICY',
  'COMPUTE POOL',
  'CONNECTION',
  'DATABASE',
  'DATABASE ROLE',
  'DYNAMIC TABLE',
  'EVENT TABLE',
  'EXTERNAL TABLE',
  'EXTERNAL VOLUME',
  'FAILOVER GROUP',
  'FILE FORMAT',
  'FUNCTION',
  'GIT REPOSITORY',
  'HYBRID TABLE',
  'ICEBERG TABLE',
  'IMAGE REPOSITORY',
  'INTEGRATION',
  'MASKING POLICY',
  'MATERIALIZED VIEW',
  'MODEL',
  'NETWORK POLICY',
  'NETWORK RULE',
  'NOTEBOOK',
  'PACKAGES POLICY',
  'PASSWORD POLICY',
  'PIPE',
  'PROCEDURE',
  'PROJECTION POLICY',
  'REPLICATION GROUP',
  'RESOURCE MONITOR',
  'ROLE',
  'ROW ACCESS POLICY',
  'SCHEMA',
  'SECRET',
  'SEMANTIC VIEW',
  'SEQUENCE',
  'SERVICE',
  'SESSION POLICY',
  'SHARE',
  'STAGE',
  'STORAGE LIFECYCLE POLICY',
  'STREAM',
  'STREAMLIT',
  'TABLE',
  'TAG',
  'TASK',
  'USER',
  'VIEW',
  'WAREHOUSE',
]
  .map((w) => w.split(' '))
  .sort((a, b) => b.length - a.length);

function grants(c: Cursor): Statement {
  const ast: Record<string, unknown> = { statement: 'SHOW', objects: 'GRANTS' };
  if (c.accept('FUTURE', 'GRANTS')) {
    ast.future = true;
    if (c.accept('IN')) {
      const kind = c.accept('SCHEMA') ? 'SCHEMA' : (c.expect('DATABASE'), 'DATABASE');
      ast.in = { objectType: kind, name: objectName(c, `the ${kind.toLowerCase()} name`) };
    } else {
      c.expect('TO');
      const kind = c.accept('DATABASE', 'ROLE') ? 'DATABASE ROLE' : (c.expect('ROLE'), 'ROLE');
      ast.to = { objectType: kind, name: objectName(c, 'a role name') };
      if (kind === 'DATABASE ROLE') return { ast, type: 'SHOW FUTURE GRANTS' };
    }
    grantsLimit(c, ast);
    return { ast, type: 'SHOW FUTURE GRANTS' };
  }
  const caller = c.accept('CALLER');
  c.expect('GRANTS');
  if (caller) ast.caller = true;
  if (c.accept('ON')) {
    if (c.accept('ACCOUNT')) ast.on = { objectType: 'ACCOUNT' };
    else {
      const kind = GRANT_OBJECT_TYPES.find((w) => c.isWords(w));
      if (!kind) return c.fail('ACCOUNT or an object type after SHOW GRANTS ON');
      c.i += kind.length;
      const objectType = kind.join(' ');
      const name = objectName(c, `the ${objectType.toLowerCase()} name`);
      const args = objectType === 'FUNCTION' || objectType === 'PROCEDURE' ? argumentTypes(c) : null;
      ast.on = { objectType, name, ...(args ? { args } : {}) };
    }
  } else if (c.accept('TO')) ast.to = grantee(c, ['APPLICATION ROLE', 'APPLICATION', 'SERVICE ROLE', 'DATABASE ROLE', 'ROLE', 'SHARE', 'USER'], true);
  else if (c.accept('OF')) ast.of = grantee(c, ['APPLICATION ROLE', 'SERVICE ROLE', 'DATABASE ROLE', 'ROLE', 'SHARE'], false);
  grantsLimit(c, ast);
  return { ast, type: caller ? 'SHOW CALLER GRANTS' : 'SHOW GRANTS' };
}

/** A grantee: `ROLE r`, `SHARE s [ IN APPLICATION PACKAGE p ]`, `SERVICE ROLE svc!role`, `<class> ROLE inst!role` … */
function grantee(c: Cursor, kinds: readonly string[], to: boolean): Record<string, unknown> {
  const kind = kinds.find((k) => c.isWords(k.split(' ')));
  if (kind) {
    c.i += kind.split(' ').length;
    const name = roleName(c, kind);
    const pkg = to && kind === 'SHARE' && c.accept('IN', 'APPLICATION', 'PACKAGE') ? objectName(c, 'an application package name') : null;
    return { objectType: kind, name, ...(pkg ? { applicationPackage: pkg } : {}) };
  }
  // TO <class_name> ROLE <instance>!<role> (an instance role, e.g. SNOWFLAKE.CORE.BUDGET ROLE b!r).
  if (to && (c.tok.kind === 'word' || c.tok.kind === 'qident')) {
    const cls = objectName(c, 'a grantee');
    c.expect('ROLE');
    return { objectType: 'INSTANCE ROLE', class: cls, name: roleName(c, 'INSTANCE ROLE') };
  }
  return c.fail(`${kinds.join(', ')} after SHOW GRANTS ${to ? 'TO' : 'OF'}`);
}

/** A role name; service and instance roles are written `<object>!<role>`. */
function roleName(c: Cursor, kind: string): string {
  const first = c.tok;
  objectName(c, `a ${kind.toLowerCase()} name`);
  if ((kind === 'SERVICE ROLE' || kind === 'INSTANCE ROLE') && c.isPunct('!')) {
    c.next();
    objectName(c, "a role name after '!'");
  } else if (kind === 'SERVICE ROLE' || kind === 'INSTANCE ROLE') c.fail(`'!' and the role name (${kind.toLowerCase()}s are written <object>!<role>)`);
  return c.textFrom(first);
}

function grantsLimit(c: Cursor, ast: Record<string, unknown>): void {
  if (c.accept('LIMIT')) ast.limit = integer(c, 'a row count after LIMIT');
}

/** `( <arg type> [ , … ] )` after a function or procedure named in SHOW GRANTS ON: kept as written. */
/** `( <arg type> [ , … ] )` after a function's or procedure's name, as written (checked by the data type grammar). */
function argumentTypes(c: Cursor): string | null {
  if (!c.isPunct('(')) return null;
  const first = c.tok;
  argTypes(c);
  return c.textFrom(first);
}

// ---- SHOW PARAMETERS ----

function parameters(c: Cursor): Statement {
  c.expect('PARAMETERS');
  const ast: Record<string, unknown> = { statement: 'SHOW', objects: 'PARAMETERS' };
  if (c.accept('LIKE')) ast.like = stringLiteral(c, 'a pattern as a string literal after LIKE');
  if (c.isWord('IN') || c.isWord('FOR')) {
    const prep = c.next().value;
    const kind = ['SESSION', 'ACCOUNT', 'USER', 'WAREHOUSE', 'DATABASE', 'SCHEMA', 'TASK', 'TABLE'].find((k) => c.accept(k));
    if (!kind) return c.fail(`SESSION, ACCOUNT, USER, WAREHOUSE, DATABASE, SCHEMA, TASK or TABLE after ${prep}`);
    const named = kind !== 'SESSION' && kind !== 'ACCOUNT' && isName(c.tok);
    if (kind === 'TABLE' && !named) c.fail(`a table or view name after ${prep} TABLE`);
    ast[prep === 'IN' ? 'in' : 'for'] = { objectType: kind, ...(named ? { name: objectName(c) } : {}) };
  }
  return { ast, type: 'SHOW PARAMETERS' };
}

// ---- The pipe operator ----

/**
 * The end of a SHOW: end of statement, or `->> <statement> [ ->> <statement> … ]`, each statement
 * offered to the dialect's parsers (they refer to the previous result as $1, $2 …). The
 * statement's type stays the SHOW's.
 */
function finish(ctx: Ctx, statement: Statement, expected = 'end of statement'): Statement {
  const { c } = ctx;
  if (!isPipe(c, c.i)) {
    c.expectEnd(expected);
    return statement;
  }
  const pipeline = [];
  while (isPipe(c, c.i)) {
    c.i += 2;
    const from = c.tok;
    let depth = 0;
    while (c.tok.kind !== 'eof' && !(depth === 0 && isPipe(c, c.i))) {
      if (c.tok.text === '(') depth++;
      else if (c.tok.text === ')') depth--;
      c.next();
    }
    if (c.tok === from) c.fail("a statement after '->>'");
    pipeline.push(innerStatement(ctx, c.sql.slice(from.start, c.prev.end), from, "the statement after '->>'"));
  }
  return { ...statement, ast: { ...statement.ast, pipeline } };
}

/** `->>`: the tokenizer's `->` glued to a `>`. */
function isPipe(c: Cursor, i: number): boolean {
  const a = c.toks[i];
  const b = c.toks[i + 1];
  return a.kind === 'punct' && a.text === '->' && b.kind === 'punct' && b.text === '>' && b.start === a.end;
}
