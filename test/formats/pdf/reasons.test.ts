// PDF warnings are sentences (issue 27, item 7): a page OCR cannot read is named and the
// reason given in our words.
import { describe, expect, it } from 'vitest';
import { pdfFromObjects } from '../../../bench/fuzz/generators/pdf-lies.mjs';
import { expectSentence, parseUpload } from '../reasons.js';

/** One page of `width` × `height` points holding no text (so Ocr mode tries to read it). */
function blankPagePdf(width: number, height: number): Buffer {
  const content = Buffer.from('0 0 m 0 0 l S', 'latin1');
  return pdfFromObjects([
    null,
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Contents 4 0 R >>`,
    { dict: `<< /Length ${content.length} >>`, data: content },
  ]);
}

describe('PDF warnings', () => {
  it('a page too small to hold one pixel at OCR resolution is skipped with a sentence', async () => {
    const { result, artifact } = await parseUpload(blankPagePdf(0.1, 0.1), 'speck.pdf', 'pdf', { pdfMode: 'Ocr' });
    expect(result.ok).toBe(true);
    expect(artifact!.warnings).toContain('OCR failed on page 1: the page has no area to read');
    for (const w of artifact!.warnings) expectSentence(w);
  });
});
