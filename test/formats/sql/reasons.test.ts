// A statement no parser reads keeps its parse error, and the error is shown as a person reads
// it: the parser's sentence, the statement's own text quoted without its control characters.
import { describe, expect, it } from 'vitest';
import { statementsOf } from './script.js';

describe('SQL parse errors', () => {
  it.each(['PostgreSql', 'MySql', 'Snowflake'])(
    'quote the statement printably in %s: no control character of the upload reaches the error',
    async (dialect) => {
      const sql = 'SELECT a FROM t WHERE x = \u0007\u001b[31m\u202Eevil;\nSELECT 1;';
      const { content, units } = await statementsOf(sql, dialect);
      expect(units).toBe(2);
      const [bad, good] = content.statements;
      expect(bad.parseStatus).not.toBe('parsed');
      expect(bad.parseError.message.length).toBeGreaterThan(10);
      expect(bad.parseError.message).not.toMatch(/[\p{Cc}\p{Cf}]/u);
      expect(good.parseStatus).toBe('parsed');
    },
  );
});
