// The page locator on page texts written here: document order, short keys kept near, floating
// objects, blank pages, and blocks that are not in the layout.
import { describe, expect, it } from 'vitest';
import { PageLocator } from '../../../src/formats/office/page-locator.js';

const filler = (n: number) => Array.from({ length: n }, (_, i) => `Sentence number ${i} of the filler text.`).join(' ');

describe('PageLocator', () => {
  it('a word on every page is found on the page of its own block, in document order', () => {
    const loc = new PageLocator(['Total\nfirst page body text here', 'Total\nsecond page body text', '', 'Total\nfourth page body']);
    expect(loc.emptyPages).toEqual([3]);
    expect([loc.locate('Total'), loc.locate('first page body text here')]).toEqual([1, 1]);
    expect([loc.locate('Total'), loc.locate('second page body text')]).toEqual([2, 2]);
    // The blank page is skipped: the next page with text is still "near".
    expect([loc.locate('Total'), loc.locate('fourth page body')]).toEqual([4, 4]);
  });

  it('spacing, line-end hyphens, quotes and case do not matter', () => {
    const loc = new PageLocator(['intro', 'The “quick” brown fox jum-\nped over the lazy dog’s back']);
    expect(loc.locate('the "quick" brown fox jumped over the lazy dog\'s back')).toBe(2);
  });

  it('a short key far ahead is not taken: no page rather than a guess', () => {
    const loc = new PageLocator([`Opening paragraph of the document. ${filler(30)}`, `${filler(30)} 87`]);
    expect(loc.locate('Opening paragraph of the document.')).toBe(1);
    expect(loc.locate('87')).toBeUndefined();
    expect(loc.located).toBe(1);
    expect(loc.notLocated).toBe(1);
    expect(loc.locate('—')).toBeUndefined();
    expect(loc.notLocated).toBe(1); // no letters or digits: nothing to look for
  });

  it('a floating table laid out after the paragraph that follows it in the document', () => {
    const para = 'Tables in Word can vary from the extremely simple to the extremely complex.';
    const loc = new PageLocator(['Heading', `${para} Item Books Pens`, 'Next page paragraph that is long enough to be distinctive.']);
    expect(loc.locate('Heading')).toBe(1);
    expect(loc.locate('Item')).toBe(2);
    expect(loc.locate('Books')).toBe(2);
    // Found a little behind, and the search does not move back.
    expect(loc.locate(para)).toBe(2);
    expect(loc.locate('Next page paragraph that is long enough to be distinctive.')).toBe(3);
  });

  it('a text box does not move the search past the blocks after it', () => {
    const loc = new PageLocator(['Body one. Body two follows here.', 'A text box placed at the bottom of the page layout']);
    expect(loc.locate('Body one.')).toBe(1);
    expect(loc.locate('A text box placed at the bottom of the page layout', false)).toBe(2);
    expect(loc.locate('Body two follows here.')).toBe(1);
  });

  it('many blocks that are not in a long layout cost a bounded search each', () => {
    const pages = Array.from({ length: 400 }, (_, i) => `Page ${i} ${filler(20)}`);
    const loc = new PageLocator(pages);
    for (let i = 0; i < 5000; i++) expect(loc.locate(`missing paragraph number ${i} that the layout does not hold`)).toBeUndefined();
    expect(loc.locate('Page 0 Sentence number 0 of the filler text.')).toBe(1);
  });
});
