// A throw-away PostgreSQL database per test file, so parallel runs never share tables.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

export interface TempDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The admin URL's server, database `postgres` (always present): where CREATE DATABASE runs. */
function maintenanceUrl(adminUrl: string): string {
  const u = new URL(adminUrl);
  u.pathname = '/postgres';
  return u.toString();
}

async function withAdmin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: maintenanceUrl(adminUrl), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`cannot reach PostgreSQL for tests at ${new URL(adminUrl).host} (set TEST_DATABASE_URL): ${(err as Error).message}`, { cause: err });
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createTempDatabase(adminUrl: string = TEST_DATABASE_URL): Promise<TempDatabase> {
  const name = `dp_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  let dropped = false;
  return {
    url: u.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
