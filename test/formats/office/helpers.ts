// Shared helpers for the Office family tests: run the parser as the worker thread does,
// validate content against the published schema, and read the corpus MANIFEST.
import { expect } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { corpusPath, parseFileWith, readManifest } from '../../helpers/parse.js';
import { parseOffice } from '../../../src/formats/office/index.js';
import { OfficeContent } from '../../../src/formats/office/schema.js';
import type { JobOptions } from '../../../src/formats/kit/options.js';
import path from 'node:path';
import type { ParserSettings } from '../../../src/formats/settings.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { CORPUS_AVAILABLE } from '../../helpers/corpus-dir.mjs';

export const FORMAT_BY_EXT: Record<string, string> = {
  docx: 'docx',
  docm: 'docx',
  doc: 'doc',
  odt: 'odt',
  fodt: 'odt',
  rtf: 'rtf',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  xlsb: 'xlsx',
  xls: 'xls',
  ods: 'ods',
  pptx: 'pptx',
  pptm: 'pptx',
  ppt: 'ppt',
  odp: 'odp',
};

export function formatOf(file: string): string {
  return FORMAT_BY_EXT[file.split('.').pop()!.toLowerCase()];
}

export type Row = Record<string, string>;
// Empty without the corpus: the generated-file tests that share these helpers still run.
export const manifest: Row[] = CORPUS_AVAILABLE ? await readManifest('office') : [];
export const manifestRow = (file: string): Row => {
  const r = manifest.find((m) => m.file === file);
  if (!r) throw new Error(`${file} not in MANIFEST`);
  return r;
};

/** Expected rendered pages, or null when the MANIFEST says none (file must fail). */
export function renderedPages(file: string): number | null {
  const v = manifestRow(file).pages_rendered;
  return /^\d+$/.test(v) ? Number(v) : null;
}

export function storedPages(file: string): number | null {
  const v = manifestRow(file).pages_metadata;
  return /^\d+$/.test(v) ? Number(v) : null;
}

export function schemaErrors(content: unknown): string[] {
  return [...Value.Errors(OfficeContent, content)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
}

const memo = new Map<string, ReturnType<typeof parseFileWith>>();

/**
 * Parses a corpus file; asserts success and a schema-valid content; returns the artifact.
 * Results are memoised per file and options within a test file (LibreOffice renders are slow).
 */
export async function parseOk(file: string, options: JobOptions = {}, format = formatOf(file)): Promise<Record<string, any>> {
  const key = `${file}|${format}|${JSON.stringify(options)}`;
  let p = memo.get(key);
  if (!p) {
    p = parseFileWith(parseOffice, corpusPath('office', file), format, options);
    memo.set(key, p);
  }
  const r = await p;
  if (!r.ok) throw new Error(`${file}: ${r.code}: ${r.message}`);
  expect(r.artifact.document_format).toBe(format);
  expect(schemaErrors(r.artifact.content)).toEqual([]);
  return r.artifact;
}

export async function parseFail(file: string, format = formatOf(file)): Promise<{ code: string; message: string }> {
  const r = await parseFileWith(parseOffice, corpusPath('office', file), format, {});
  if (r.ok) throw new Error(`${file} parsed but was expected to fail`);
  return r;
}

export async function parsePath(filePath: string, format: string, options: JobOptions = {}, settings: ParserSettings = parserSettings()) {
  return parseFileWith(parseOffice, filePath, format, options, path.basename(filePath), settings);
}

/** All text of a document artifact's blocks (tables and nested blocks included). */
export function documentText(content: any): string {
  const out: string[] = [];
  const walk = (blocks: any[]) => {
    for (const b of blocks) {
      if (b.type === 'table')
        for (const row of b.rows)
          for (const c of row) {
            out.push(c.text);
            if (c.blocks) walk(c.blocks);
          }
      else out.push(b.text);
    }
  };
  walk(content.blocks);
  return out.join('\n');
}
