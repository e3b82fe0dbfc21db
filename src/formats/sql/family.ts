// SQL scripts, split into statements and parsed in the dialect the upload names.
import type { FamilyDescriptor } from '../kit/family.js';
import { SqlContent } from './schema.js';

export const sqlFamily: FamilyDescriptor = {
  family: 'sql',
  title: 'SQL',
  docPage: 'sql.md',
  formats: [{ format: 'sql', documentType: 'Sql', extensions: ['sql'], load: async () => (await import('./index.js')).parseSql }],
  routing: [
    {
      name: 'sqlDialect',
      values: ['PostgreSql', 'MsSql', 'Snowflake', 'MySql', 'BigQuery', 'Sqlite', 'Oracle'].map((value) => ({ value })),
      required: true,
    },
  ],
  chunks: false,
  units: 'statements',
  content: { name: 'SqlContent', schema: SqlContent },
  engines: () => [],
};
