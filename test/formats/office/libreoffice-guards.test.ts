// Files whose declared counts hang LibreOffice are refused before it starts, with a sentence
// naming the count; files just inside the limits are converted as before. The hang files are
// the fuzzer's seeds (bench/fuzz/generators/office-hangs.mjs), generated here.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  docxManyColumns,
  fodsRepeatedValue,
  fodtManyColumns,
  odsRepeatedValue,
  rtfBinPastEnd,
  rtfDeepGroups,
  rtfDeepTableLevel,
  rtfManyColumns,
} from '../../../bench/fuzz/generators/office-hangs.mjs';
import { documentText, parsePath } from './helpers.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { MAX_REPEATED_CELLS, MAX_RTF_GROUP_DEPTH, MAX_SECTION_COLUMNS, MAX_TABLE_NESTING } from '../../../src/formats/office/guard-limits.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'office-hangs-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function write(name: string, bytes: Buffer): Promise<string> {
  const p = path.join(dir, name);
  await fs.writeFile(p, bytes);
  return p;
}

/** A node without LibreOffice: a file that reached it would fail engine_unavailable instead. */
const withoutLibreOffice = parserSettings({ engines: { soffice: '/nonexistent/soffice' } });

const HANGS: { name: string; format: string; bytes: () => Buffer; code: string; message: RegExp }[] = [
  {
    name: 'bin.rtf',
    format: 'rtf',
    bytes: () => rtfBinPastEnd(),
    code: 'corrupt_document',
    message: /^the RTF file is damaged: \\bin2147483647 at byte \d+ announces 2147483647 bytes of binary data, but only \d+ follow$/,
  },
  { name: 'bin-as.doc', format: 'doc', bytes: () => rtfBinPastEnd(100_000_000), code: 'corrupt_document', message: /\\bin100000000 .* only \d+ follow/ },
  {
    name: 'itap.rtf',
    format: 'rtf',
    bytes: () => rtfDeepTableLevel(),
    code: 'document_too_complex',
    message: /nests tables 2147483647 levels deep \(\\itap2147483647\)/,
  },
  {
    name: 'groups.rtf',
    format: 'rtf',
    bytes: () => rtfDeepGroups(),
    code: 'document_too_complex',
    message: new RegExp(`nests groups more than ${MAX_RTF_GROUP_DEPTH} levels deep`),
  },
  {
    name: 'cols.rtf',
    format: 'rtf',
    bytes: () => rtfManyColumns(),
    code: 'document_too_complex',
    message: /32,767 text columns in one section \(\\cols32767\)/,
  },
  {
    name: 'cols.docx',
    format: 'docx',
    bytes: () => docxManyColumns(),
    code: 'document_too_complex',
    message: /32,767 text columns in one section \(w:cols w:num="32767"\)/,
  },
  { name: 'cols.fodt', format: 'odt', bytes: () => fodtManyColumns(), code: 'document_too_complex', message: /32,767 text columns in section "S0"/ },
  {
    name: 'repeat.fods',
    format: 'ods',
    bytes: () => fodsRepeatedValue(),
    code: 'document_too_complex',
    message: /repeats cells with content over more than 100,000 cells/,
  },
  {
    name: 'repeat.ods',
    format: 'ods',
    bytes: () => odsRepeatedValue(),
    code: 'document_too_complex',
    message: /repeats cells with content over more than 100,000 cells/,
  },
];

describe('counts that hang LibreOffice are refused before it starts', () => {
  it.each(HANGS)('$name', async ({ name, format, bytes, code, message }) => {
    const p = await write(name, bytes());
    const started = performance.now();
    const r = await parsePath(p, format);
    const ms = Math.round(performance.now() - started);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe(code);
    expect(r.message).toMatch(message);
    console.log(`${name} (${(await fs.stat(p)).size} bytes): refused in ${ms} ms`);
    // The refusal comes before LibreOffice is looked for: a node without it says the same.
    const without = await parsePath(p, format, {}, withoutLibreOffice);
    expect(without).toMatchObject({ ok: false, code, message: r.message });
  });
});

describe('files within the limits are converted as before', () => {
  it('an RTF whose \\bin holds exactly the bytes it announces, inside tables nested twice', async () => {
    const p = await write(
      'ok.rtf',
      Buffer.from(
        String.raw`{\rtf1\ansi\deff0{\fonttbl{\f0 Times New Roman;}}\pard Before {\*\unknown\bin3 }{}} after.\par\pard\intbl\itap2 nested\nestcell{\*\nesttableprops\trowd\cellx2000\nestrow}\cell\row\pard\sectd\cols2 two columns\par}`,
        'latin1',
      ),
    );
    const r = await parsePath(p, 'rtf');
    expect(r.ok, r.ok ? '' : r.message).toBe(true);
    if (r.ok) expect(documentText(r.artifact.content)).toMatch(/Before\s+after\./);
  }, 60_000);

  it(`a DOCX with ${MAX_SECTION_COLUMNS} columns in a section, and a flat ODT with a two-column section`, async () => {
    const docx = await parsePath(await write('ok.docx', docxManyColumns(MAX_SECTION_COLUMNS, 1)), 'docx');
    expect(docx.ok, docx.ok ? '' : docx.message).toBe(true);
    // Rendered by LibreOffice to count its pages, as every DOCX is by default.
    if (docx.ok) expect(docx.artifact.metadata.pageCount).toMatchObject({ source: 'rendered', rendered: docx.artifact.documentUnits });
    const fodt = await parsePath(await write('ok.fodt', fodtManyColumns(2, 3)), 'odt');
    expect(fodt.ok, fodt.ok ? '' : fodt.message).toBe(true);
    if (fodt.ok) expect(documentText(fodt.artifact.content)).toBe('text\ntext\ntext');
  }, 60_000);

  it('an ODS repeating a value over a few cells has them all; a whole-sheet repeat of empty cells costs nothing', async () => {
    const fods = fodsRepeatedValue(4, 3)
      .toString()
      .replace(
        '</table:table>',
        '<table:table-row table:number-rows-repeated="1048572"><table:table-cell table:number-columns-repeated="16384"/></table:table-row></table:table>',
      );
    const r = await parsePath(await write('ok.fods', Buffer.from(fods)), 'ods');
    expect(r.ok, r.ok ? '' : r.message).toBe(true);
    if (r.ok) {
      const sheet = r.artifact.content.sheets[0];
      expect(sheet.usedRange).toBe('A1:C4');
      expect(sheet.cellCount).toBe(12);
    }
    // At the limit: every repeated cell is there.
    const limit = await parsePath(await write('limit.ods', odsRepeatedValue(MAX_REPEATED_CELLS / 100, 100)), 'ods');
    expect(limit.ok, limit.ok ? '' : limit.message).toBe(true);
    if (limit.ok) expect(limit.artifact.content.sheets[0].cellCount).toBe(MAX_REPEATED_CELLS);
  }, 120_000);

  it(`an RTF \\itap of ${MAX_TABLE_NESTING} is read; one more is refused`, async () => {
    const over = await parsePath(await write('itap-over.rtf', rtfDeepTableLevel(MAX_TABLE_NESTING + 1)), 'rtf', {}, withoutLibreOffice);
    expect(over).toMatchObject({ ok: false, code: 'document_too_complex' });
    const at = await parsePath(await write('itap-at.rtf', rtfDeepTableLevel(MAX_TABLE_NESTING)), 'rtf', {}, withoutLibreOffice);
    expect(at).toMatchObject({ ok: false, code: 'engine_unavailable' });
  });
});
