// Statement type from the leading keywords, for dialects whose parser gives no AST (and as
// a fallback): "CREATE OR REPLACE SECURE VIEW …" → "CREATE VIEW".

const MODIFIERS = new Set([
  'or',
  'replace',
  'alter',
  'temporary',
  'temp',
  'transient',
  'volatile',
  'global',
  'local',
  'unique',
  'clustered',
  'nonclustered',
  'secure',
  'recursive',
  'if',
  'not',
  'exists',
  'external',
  'unlogged',
  'definer',
  'sql',
  'security',
  'invoker',
  'algorithm',
  'undefined',
  'merge',
  'temptable',
  'editionable',
  'noneditionable',
  'force',
  'noforce',
  'public',
  'online',
  'hybrid',
  'iceberg',
  'dynamic',
  'event',
  'columnstore',
  'spatial',
  'fulltext',
  'xml',
  'primary',
  'aggregate',
  'constraint',
  'snapshot',
  'virtual',
  'foreign',
  'unsafe',
  'bitmap',
  'multiset',
  'set',
  'shared',
  'private',
  'trusted',
]);

const TWO_WORD_OBJECTS = new Set([
  'materialized view',
  'file format',
  'network rule',
  'resource monitor',
  'row access',
  'masking policy',
  'package body',
  'type body',
  'user mapping',
  'foreign table',
  'external table',
  'event trigger',
  'access method',
  'text search',
  'operator class',
  'operator family',
  'full text',
  'partition function',
  'partition scheme',
  'security policy',
  'dynamic table',
  'storage integration',
  'notification integration',
  'api integration',
  'security integration',
  'data wrapper',
]);

/** Removes comments at and near the head so the first keywords can be read. */
function headWords(text: string, max: number): string[] {
  const head = text
    .slice(0, 2000)
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/(--|#|\/\/)[^\n]*/g, ' ');
  const out: string[] = [];
  for (const m of head.matchAll(/[A-Za-z_][A-Za-z_0-9]*|[();,=]/g)) {
    out.push(m[0].toLowerCase());
    if (out.length >= max) break;
  }
  return out;
}

export function classifyStatement(text: string): string {
  const w = headWords(text, 24);
  if (!w.length) return 'UNKNOWN';
  const first = w[0];
  if (first === '(') return 'SELECT';
  if (first === 'with') {
    // The main verb follows the CTE list: the first DML keyword at parenthesis depth 0.
    let depth = 0;
    const all = headWords(text.length > 2000 ? text.slice(0, 20000) : text, 4000);
    for (const x of all.slice(1)) {
      if (x === '(') depth++;
      else if (x === ')') depth--;
      else if (depth === 0 && /^(select|insert|update|delete|merge)$/.test(x)) return x.toUpperCase();
    }
    return 'SELECT';
  }
  if (first === 'create' || first === 'alter' || first === 'drop' || first === 'undrop') {
    let i = 1;
    while (i < w.length && MODIFIERS.has(w[i]) && !(first !== 'create' && w[i] === 'set')) {
      if (first === 'alter' && i === 1 && w[i] !== 'or') break;
      i++;
    }
    const one = w[i];
    if (!one) return first.toUpperCase();
    const two = `${one} ${w[i + 1] ?? ''}`;
    if (TWO_WORD_OBJECTS.has(two)) return `${first} ${two}`.toUpperCase();
    if (one === 'proc') return `${first} PROCEDURE`.toUpperCase();
    return `${first} ${one}`.toUpperCase();
  }
  if (first === 'insert' || first === 'replace' || first === 'upsert') return first === 'upsert' ? 'INSERT' : first.toUpperCase();
  if (first === 'begin') {
    const nx = w[1];
    if (!nx || nx === ';' || nx === 'transaction' || nx === 'tran' || nx === 'work' || nx === 'distributed' || nx === 'name') return 'BEGIN TRANSACTION';
    return 'BLOCK';
  }
  if (first === 'declare') return w.includes('cursor') ? 'DECLARE CURSOR' : 'DECLARE';
  if (first === 'exec' || first === 'execute') return w[1] === 'immediate' ? 'EXECUTE IMMEDIATE' : 'EXECUTE';
  if (first === 'commit' || first === 'rollback' || first === 'savepoint') return first.toUpperCase();
  if (first === 'show' || first === 'describe' || first === 'desc') return first === 'desc' ? 'DESCRIBE' : first.toUpperCase();
  if (first === 'grant' || first === 'revoke') return first.toUpperCase();
  if (first === 'truncate') return 'TRUNCATE';
  return first.toUpperCase();
}
