// Provenance of sheets and slides checked against LibreOffice's own reading of the same file:
// each sheet's cells and used range against `soffice --convert-to csv` of every sheet, and
// each slide's number against the page LibreOffice prints it on (`pdftotext -f N -l N`).
// Skips without the corpus or without soffice / pdftotext.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOk } from './helpers.js';
import { corpusPath, CORPUS_AVAILABLE } from '../../helpers/parse.js';
import { sofficePath } from '../../../src/formats/kit/engine-locations.js';
import { parserSettings } from '../../helpers/parser-settings.js';

const run = promisify(execFile);
const soffice = sofficePath(parserSettings().engines);
const hasPdftotext = await run('pdftotext', ['-v']).then(
  () => true,
  () => false,
);

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'office-native-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** soffice headless on `file`, converting to `target`, in a profile of its own. */
async function sofficeConvert(file: string, target: string, outDir: string): Promise<void> {
  await fs.mkdir(outDir, { recursive: true });
  await run(soffice!, [`-env:UserInstallation=file://${path.join(dir, 'profile')}`, '--headless', '--convert-to', target, '--outdir', outDir, file], {
    timeout: 120_000,
  });
}

/** RFC 4180 fields (quotes doubled, newlines inside quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') field += text[i++];
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
    } else if (ch !== '\r') field += ch;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

const colName = (c: number): string => (c > 26 ? colName(Math.floor((c - 1) / 26)) : '') + String.fromCharCode(65 + ((c - 1) % 26));

describe.skipIf(!CORPUS_AVAILABLE || !soffice)('sheet ranges against LibreOffice CSV (officeparser__test.xlsx)', () => {
  it('every sheet: the same cells at the same A1 references, the same used range, the same strings', async () => {
    const file = 'officeparser__test.xlsx';
    const out = path.join(dir, 'csv');
    const input = path.join(dir, 'book.xlsx');
    await fs.copyFile(corpusPath('office', file), input);
    // Field options: comma, double quote, UTF-8, from line 1, values not as shown, all sheets (-1), one file each.
    await sofficeConvert(input, 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1', out);
    const a = await parseOk(file);
    expect(a.content.sheets.length).toBeGreaterThan(1);
    for (const s of a.content.sheets) {
      const csv = parseCsv(await fs.readFile(path.join(out, `book-${s.name}.csv`), 'utf8'));
      const native = new Map<string, string>();
      csv.forEach((fields, r) => fields.forEach((v, c) => v !== '' && native.set(`${colName(c + 1)}${r + 1}`, v)));
      const ours = new Map<string, any>(s.rows.flatMap((r: any) => r.cells).map((c: any) => [c.ref, c]));
      expect([...ours.keys()].sort(), s.name).toEqual([...native.keys()].sort());
      // The used range LibreOffice's cells span, as provenance says it.
      const refs = [...native.keys()].map((ref) => /^([A-Z]+)(\d+)$/.exec(ref)!);
      const cols = refs.map((m) => m[1]).sort((x, y) => x.length - y.length || x.localeCompare(y));
      const rows = refs.map((m) => Number(m[2]));
      const range = refs.length ? `${cols[0]}${Math.min(...rows)}:${cols[cols.length - 1]}${Math.max(...rows)}` : null;
      expect(s.provenance, s.name).toEqual(range ? { sheet: s.name, range } : { sheet: s.name });
      for (const [ref, c] of ours) {
        const v = native.get(ref)!;
        if (c.type === 'string') expect(c.value, `${s.name}!${ref}`).toBe(v);
        else if (c.type === 'number') expect(Number(v), `${s.name}!${ref}`).toBeCloseTo(c.value, 6);
      }
    }
  }, 180_000);
});

describe.skipIf(!CORPUS_AVAILABLE || !soffice || !hasPdftotext)('slide numbers against LibreOffice PDF pages (officeparser__test.pptx)', () => {
  it("each slide's title and text are on the PDF page of its number", async () => {
    const file = 'officeparser__test.pptx';
    const input = path.join(dir, 'deck.pptx');
    await fs.copyFile(corpusPath('office', file), input);
    await sofficeConvert(input, 'pdf', path.join(dir, 'pdf'));
    const pdf = path.join(dir, 'pdf', 'deck.pdf');
    const a = await parseOk(file);
    // Letters and digits only: list markers and bullets are drawn, not in the slide's text.
    const bare = (s: string) => s.replace(/[^\p{L}\p{N}]+/gu, '');
    const pages = Number(/Pages:\s+(\d+)/.exec((await run('pdfinfo', [pdf])).stdout)![1]);
    expect(pages).toBe(a.content.slides.length);
    for (const s of a.content.slides) {
      const { stdout } = await run('pdftotext', ['-f', String(s.provenance.slide), '-l', String(s.provenance.slide), pdf, '-']);
      const page = bare(stdout);
      const paragraphs = s.textBlocks.flatMap((b: any) => b.paragraphs.map((p: any) => bare(p.text))).filter(Boolean);
      expect(paragraphs.length, `slide ${s.number}`).toBeGreaterThan(0);
      for (const p of paragraphs) expect(page, `slide ${s.number}`).toContain(p.slice(0, 30));
    }
  }, 180_000);
});
