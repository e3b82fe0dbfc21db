// Dialect sniffing counts the fields of the sample's records without making them
// (dialect.ts recordLengths): the counts must be the tokenizer's, record for record, or the
// delimiter chosen would change. Seeded random text over the characters that steer the
// tokenizer (delimiters, both quotes, CR, LF), and the edge cases by name.
import { describe, expect, it } from 'vitest';
import { recordLengths, sampleRecords } from '../../../src/formats/csv/dialect.js';
import { CsvTokenizer } from '../../../src/formats/csv/tokenizer.js';

/** The tokenizer's own field counts: one push, then end() when complete. */
function tokenizerLengths(text: string, delimiter: string, quote: string, complete: boolean, limit: number, maxFields?: number): number[] {
  const tok = new CsvTokenizer({ delimiter: delimiter.charCodeAt(0), quote: quote.charCodeAt(0), maxFields });
  const out: number[] = [];
  const sink = (_f: string[], n: number) => {
    if (out.length < limit) out.push(n);
  };
  tok.push(text, sink);
  if (complete) tok.end(sink);
  return out;
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
}

describe('recordLengths (sniffing without fields)', () => {
  it('counts what the tokenizer cuts, on random text, for every delimiter and quote', () => {
    const rnd = seeded(28);
    const alphabet = ['a', 'b', ' ', ',', ';', '\t', '|', '"', "'", '\r', '\n', '\r\n', '""', 'é'];
    let checked = 0;
    const mismatches: unknown[] = [];
    for (let k = 0; k < 3000; k++) {
      const len = Math.floor(rnd() * 60);
      let text = '';
      for (let i = 0; i < len; i++) text += alphabet[Math.floor(rnd() * alphabet.length)];
      for (const delimiter of [',', '\t', ';', '|']) {
        for (const quote of ['"', "'"]) {
          for (const complete of [true, false]) {
            const limit = 1 + Math.floor(rnd() * 8);
            const maxFields = rnd() < 0.2 ? 2 : undefined;
            const want = tokenizerLengths(text, delimiter, quote, complete, limit, maxFields);
            const got = recordLengths(text, delimiter.charCodeAt(0), quote.charCodeAt(0), complete, limit, maxFields);
            if (got.join() !== want.join()) mismatches.push({ text, delimiter, quote, complete, limit, maxFields, got, want });
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(3000 * 16);
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('skips blank lines, keeps quoted empty ones, and leaves a cut record out unless complete', () => {
    const c = ','.charCodeAt(0);
    const q = '"'.charCodeAt(0);
    expect(recordLengths('a,b\n\n\r\nc\n', c, q, true)).toEqual([2, 1]);
    expect(recordLengths('""\n\n', c, q, true)).toEqual([1]);
    expect(recordLengths('a,b\nc,"d\ne', c, q, false)).toEqual([2]);
    expect(recordLengths('a,b\nc,"d\ne', c, q, true)).toEqual([2, 2]);
    expect(recordLengths('a,b\nc,', c, q, true)).toEqual([2, 2]);
    expect(recordLengths('"x"y,z\r\n1', c, q, true)).toEqual([2, 1]);
    expect(recordLengths('1\n2\n3\n4\n', c, q, true, 2)).toEqual([1, 1]);
  });
});

describe('sampleRecords', () => {
  it('stops at its limit with the records it has', () => {
    const d = { delimiter: ',', quoteChar: '"' };
    expect(sampleRecords('a,b\nc,d\ne,f\n', d, true, 1)).toEqual([['a', 'b']]);
    expect(sampleRecords('a,b\nc,d\ne,f', d, true, 5)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ]);
    expect(sampleRecords('a,b\nc,d\ne,f', d, false, 5)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });
});
