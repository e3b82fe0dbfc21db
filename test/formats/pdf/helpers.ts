// Shared helpers for the PDF family tests: parse a corpus file once per mode (cached),
// validate the content against the published schema, and read native-tool ground truth
// (pdfinfo / pdftotext from poppler-utils).
import { execFileSync } from 'node:child_process';
import { Value } from '@sinclair/typebox/value';
import { expect } from 'vitest';
import { parseFileWith, corpusPath, readManifest, type ParseResult } from '../../helpers/parse.js';
import { parsePdf } from '../../../src/formats/pdf/index.js';
import { PdfContent } from '../../../src/formats/pdf/schema.js';
import type { JobOptions } from '../../../src/formats/kit/options.js';
// @ts-expect-error plain .mjs module shared with the bench scripts
import { artifactPageTexts } from '../../../bench/pdf/similarity.mjs';

export { corpusPath, readManifest };

const cache = new Map<string, Promise<ParseResult>>();

/** Parses a PDF (corpus name or absolute path) and checks the artifact's content against PdfContent. */
export function parsePdfFile(file: string, options: JobOptions = {}): Promise<ParseResult> {
  const fp = file.startsWith('/') ? file : corpusPath('pdf', file);
  const key = `${fp}|${JSON.stringify(options)}`;
  let p = cache.get(key);
  if (!p) {
    p = parseFileWith(parsePdf, fp, 'pdf', options).then((r) => {
      if (r.ok) assertSchema(r.artifact.content);
      return r;
    });
    cache.set(key, p);
  }
  return p;
}

export async function parsedOk(file: string, options: JobOptions = {}): Promise<Record<string, any>> {
  const r = await parsePdfFile(file, options);
  if (!r.ok) throw new Error(`${file}: ${r.code}: ${r.message}`);
  return r.artifact;
}

export function assertSchema(content: unknown): void {
  if (!Value.Check(PdfContent, content)) {
    const errs = [...Value.Errors(PdfContent, content)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
    expect.fail(`content does not match PdfContent: ${errs.join('; ')}`);
  }
}

/** pdftotext output split into pages. */
export function pdftotextPages(file: string, layout: boolean, range?: [number, number]): string[] {
  const args = [
    ...(layout ? ['-layout'] : []),
    ...(range ? ['-f', String(range[0]), '-l', String(range[1])] : []),
    '-enc',
    'UTF-8',
    corpusPath('pdf', file),
    '-',
  ];
  const out = execFileSync('pdftotext', args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
  const pages = out.split('\f');
  if (pages.length && pages[pages.length - 1].trim() === '') pages.pop();
  return pages;
}

/** pdfinfo fields as a record. */
export function pdfinfo(file: string, password?: string): Record<string, string> {
  const args = [...(password ? ['-upw', password] : []), corpusPath('pdf', file)];
  const out = execFileSync('pdfinfo', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const rec: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^([^:]+):\s*(.*)$/.exec(line);
    if (m) rec[m[1].trim()] = m[2].trim();
  }
  return rec;
}

/** Per-page text of an artifact, blocks in reading order (the bench scripts' definition). */
export const pageTexts: (artifact: Record<string, any>) => string[] = artifactPageTexts;

/**
 * A one-page PDF (bytes) with `content` as its content stream: Helvetica as /F1 and
 * Helvetica-Bold as /F2, WinAnsi-encoded, for tests that need text placed exactly.
 */
export function onePagePdf(content: string, width = 612, height = 792): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> /Contents 4 0 R >>`,
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(pdf, 'latin1'));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}
