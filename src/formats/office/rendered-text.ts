// The text of each page of the PDF LibreOffice rendered for the page count, read with the
// PDFium the PDF family already loads: the layout a word-processing block's page is taken
// from (page-locator.ts). Only the characters are read — no boxes, no layout analysis.
import { PdfDocument } from '../pdf/document.js';
import { getPdfium, resetPdfium } from '../pdf/pdfium-loader.js';
import { ExtractionError } from '../kit/types.js';

/** One string per page, in page order. */
export async function renderedPageTexts(pdfPath: string, optimizedPdfium: boolean): Promise<string[]> {
  try {
    return await readTexts(pdfPath, optimizedPdfium);
  } catch (err) {
    // Anything but a refusal to open may be a trap inside PDFium: its instance is not reused.
    if (!(err instanceof ExtractionError)) resetPdfium();
    throw err;
  }
}

async function readTexts(pdfPath: string, optimizedPdfium: boolean): Promise<string[]> {
  const doc = PdfDocument.open(await getPdfium(optimizedPdfium), pdfPath);
  const { ex, M } = doc.p;
  try {
    const texts: string[] = [];
    for (let i = 0; i < doc.pageCount; i++) {
      const page = ex.FPDF_LoadPage(doc.handle, i);
      const tp = page ? ex.FPDFText_LoadPage(page) : 0;
      try {
        const n = tp ? ex.FPDFText_CountChars(tp) : 0;
        if (n <= 0) {
          texts.push('');
          continue;
        }
        // FPDFText_GetText writes n UTF-16 units and a terminator.
        const buf = ex.malloc((n + 1) * 2);
        try {
          ex.FPDFText_GetText(tp, 0, n, buf);
          texts.push(M.UTF16ToString(buf));
        } finally {
          ex.free(buf);
        }
      } finally {
        if (tp) ex.FPDFText_ClosePage(tp);
        if (page) ex.FPDF_ClosePage(page);
      }
    }
    return texts;
  } finally {
    doc.close();
  }
}
