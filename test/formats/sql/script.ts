// A SQL script (text written to a temporary file) parsed exactly as the worker parses an
// upload, for the SQL tests that build their scripts inline.
import { expect } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { ParseFailure, type EngineResult } from '../../../src/formats/sql/engine.js';
import { SqlEngines } from '../../../src/formats/sql/engines.js';
import { parseSql } from '../../../src/formats/sql/index.js';
import { SqlContent } from '../../../src/formats/sql/schema.js';
import { snowflakeObjectsEngine } from '../../../src/formats/sql/snowflake-objects.js';
import { parseFileWith } from '../../helpers/parse.js';

export async function parseScript(sql: string | Buffer, sqlDialect: string): Promise<Awaited<ReturnType<typeof parseFileWith>>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-sql-'));
  const f = path.join(dir, 'x.sql');
  fs.writeFileSync(f, sql);
  try {
    return await parseFileWith(parseSql, f, 'sql', { sqlDialect });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The script's artifact content (checked against the SQL content schema) and its units. */
export async function statementsOf(sql: string, sqlDialect: string): Promise<{ content: Record<string, any>; units: number }> {
  const r = await parseScript(sql, sqlDialect);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  const c = r.artifact.content;
  expect(Value.Check(SqlContent, c), JSON.stringify([...Value.Errors(SqlContent, c)].slice(0, 3))).toBe(true);
  return { content: c, units: r.artifact.documentUnits };
}

/**
 * The Snowflake object grammar alone, its embedded statements going to the dialect's real
 * chain: `parse` returns what it read, `rejection` the ParseFailure it refused `sql` with.
 */
export async function snowflakeGrammar(): Promise<{
  parse: (sql: string) => EngineResult & { ast: any };
  rejection: (sql: string) => ParseFailure;
}> {
  const chain = await SqlEngines.forDialect('Snowflake');
  const engine = snowflakeObjectsEngine((sql) => chain.parseEmbedded(sql));
  const rejection = (sql: string): ParseFailure => {
    try {
      engine.parse(sql);
    } catch (e) {
      if (e instanceof ParseFailure) return e;
      throw e;
    }
    throw new Error(`accepted: ${sql}`);
  };
  return { parse: (sql) => engine.parse(sql) as EngineResult & { ast: any }, rejection };
}
