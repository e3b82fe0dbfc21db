// CSV reasons and warnings quote column names printably (issue 27, item 7): a header holding
// control or bidi characters is named without them, and a long name is shortened.
import { describe, expect, it } from 'vitest';
import { expectSentence, parseUpload } from '../reasons.js';

describe('CSV reasons', () => {
  it('a spatial CSV without coordinates lists its columns printably', async () => {
    const header = ['id', 'na\u001b[31mme', `evil\u202Etxt.exe`, 'x'.repeat(100)].join(',');
    const { result } = await parseUpload(Buffer.from(`${header}\n1,a,b,c\n2,d,e,f\n`), 'places.csv', 'csv', { csvRoute: 'Spatial' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toMatch(new RegExp(`Columns: "id", "na\\?\\[31mme", "evil\\?txt\\.exe", "${'x'.repeat(40)}…"\\.$`));
    expectSentence(result.message);
  });

  it('a column of integers beyond 2^53 is named printably in its warning', async () => {
    const { result, artifact } = await parseUpload(Buffer.from('id,big\u0007\n1,9007199254740993\n2,9007199254740995\n'), 'big.csv', 'csv');
    expect(result.ok).toBe(true);
    expect(artifact!.warnings).toContain('Column "big?" holds integers beyond 2^53; its values are kept as strings.');
    for (const w of artifact!.warnings) expectSentence(w);
  });
});
