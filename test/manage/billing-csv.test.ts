// CSV fields as the billing exports write them, and the test parser reading them back.
import { describe, expect, it } from 'vitest';
import { csvField } from '../../src/manage/api/billing-csv.js';
import { parseCsv } from '../billing/csv.js';

describe('csvField', () => {
  it('quotes separators, quotes and line breaks; defuses formulas', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('-5')).toBe("'-5");
    expect(csvField(12)).toBe('12');
    expect(csvField(null)).toBe('');
  });
});

describe('parseCsv (test helper)', () => {
  it('reads back what csvField writes', () => {
    const values = ['plain', 'a,b', 'say "hi"', 'two\r\nlines', ''];
    expect(parseCsv(values.map(csvField).join(',') + '\r\n')).toEqual([values]);
  });
});
