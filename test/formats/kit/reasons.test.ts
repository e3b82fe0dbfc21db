// The reason helpers every family uses (issue 27, item 7).
import { describe, expect, it } from 'vitest';
import { excerpt, hasUnprintable, printable, unreadableBecause } from '../../../src/formats/kit/reasons.js';
import { ExtractionError } from '../../../src/formats/kit/types.js';

describe('printable', () => {
  it('shows each run of control, format and separator characters as one "?"', () => {
    expect(printable('doc\u0000\fml')).toBe('"doc?ml"');
    expect(printable('a\u202Eb\u200Bc\u2028d\u0085e\uFFFDf\uD800g')).toBe('"a?b?c?d?e?f?g"');
    expect(printable('tab\there')).toBe('"tab?here"');
  });

  it('keeps letters of every script, emoji and quotes as they are', () => {
    expect(printable('Résumé — 東京 📄 "q"')).toBe('"Résumé — 東京 📄 "q""');
  });

  it('shortens to max characters (code points, never half a pair) with an ellipsis', () => {
    expect(printable('x'.repeat(61))).toBe(`"${'x'.repeat(60)}…"`);
    expect(printable('x'.repeat(60))).toBe(`"${'x'.repeat(60)}"`);
    expect(excerpt('📄'.repeat(5), 3)).toBe('📄📄📄…');
    expect(excerpt('\u0000'.repeat(1_000_000), 10)).toBe('?…');
  });

  it('tells text with unprintable characters from text without', () => {
    expect(hasUnprintable('LINE')).toBe(false);
    expect(hasUnprintable('\u001bLINE')).toBe(true);
  });
});

describe('unreadableBecause', () => {
  it('passes our own sentences through and replaces anything else', () => {
    expect(unreadableBecause(new ExtractionError('the part is too large'), 'fallback')).toBe('the part is too large');
    expect(unreadableBecause(new TypeError("Cannot read properties of undefined (reading 'x')"), 'the part is damaged')).toBe('the part is damaged');
    expect(unreadableBecause('a thrown string', 'the part is damaged')).toBe('the part is damaged');
  });
});
