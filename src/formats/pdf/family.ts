// PDF: text (one or several columns), OCR of scanned pages, and Advanced layout analysis.
import type { EngineNeed, FamilyDescriptor } from '../kit/family.js';
import type { JobOptions } from '../kit/options.js';
import { PdfContent } from './schema.js';

export const pdfFamily: FamilyDescriptor = {
  family: 'pdf',
  title: 'PDF',
  docPage: 'pdf.md',
  formats: [
    {
      format: 'pdf',
      documentType: 'Pdf',
      extensions: ['pdf'],
      // Readers accept junk before the header, and so do we.
      signatures: [{ nearStart: '%PDF-', within: 1024 }],
      load: async () => (await import('./index.js')).parsePdf,
    },
  ],
  routing: [
    {
      name: 'pdfMode',
      values: [
        { value: 'SingleColumn' },
        { value: 'MultiColumn' },
        { value: 'Ocr', entitlement: 'ocrPdfExtraction' },
        { value: 'Advanced', entitlement: 'advancedPdfExtraction' },
      ],
      required: true,
    },
  ],
  chunks: true,
  units: 'pages',
  content: { name: 'PdfContent', schema: PdfContent },
  engines(_format, options) {
    const needs: EngineNeed[] = [{ engine: 'PDFium', why: 'to read PDF documents' }];
    if (options.pdfMode === 'Ocr') needs.push({ engine: 'Tesseract', why: 'for pdfMode=Ocr' });
    return needs;
  },
  // OCR and Advanced are heavy: they run in the bounded heavy lane (states 6/7).
  lane: (options: JobOptions) => (options.pdfMode === 'Ocr' || options.pdfMode === 'Advanced' ? 'heavy' : 'light'),
  textInAttachments: true,
};
