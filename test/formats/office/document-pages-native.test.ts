// The page of a word-processing paragraph against LibreOffice's own rendering, read by another
// tool: `soffice --headless --convert-to pdf`, then `pdftotext` page by page. A paragraph whose
// opening words are printed on exactly one page must have that page in its provenance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CORPUS_AVAILABLE, corpusPath } from '../../helpers/parse.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { sofficePath } from '../../../src/formats/kit/engine-locations.js';
import { parseOk } from './helpers.js';

const SOFFICE = sofficePath(parserSettings().engines);
const hasPdftotext = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Letters and digits, lower case: what survives line breaks and hyphenation in the PDF. */
const letters = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

const FILES = ['tika__018367.docx', 'officeparser__test.docx'];

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'office-native-pages-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe.skipIf(!CORPUS_AVAILABLE || !SOFFICE || !hasPdftotext)("paragraph pages against LibreOffice's rendering (pdftotext per page)", () => {
  it.each(FILES)(
    '%s',
    async (file) => {
      const a = await parseOk(file);
      const out = path.join(dir, path.basename(file, '.docx'));
      execFileSync(
        SOFFICE!,
        [`-env:UserInstallation=file://${out}-profile`, '--headless', '--norestore', '--convert-to', 'pdf', '--outdir', out, corpusPath('office', file)],
        { stdio: 'ignore', timeout: 120_000 },
      );
      const pdf = path.join(out, path.basename(file).replace(/\.docx$/, '.pdf'));
      const pages: string[] = [];
      for (let p = 1; p <= a.documentUnits; p++) pages.push(letters(execFileSync('pdftotext', ['-f', String(p), '-l', String(p), pdf, '-']).toString('utf8')));

      const checked: { text: string; native: number; ours: number | undefined }[] = [];
      for (const b of a.content.blocks) {
        if (b.type !== 'paragraph' && b.type !== 'heading' && b.type !== 'listItem') continue;
        if (b.inTextBox) continue;
        const key = letters(b.text).slice(0, 30);
        if (key.length < 30) continue;
        const on = pages.flatMap((t, i) => (t.includes(key) ? [i + 1] : []));
        if (on.length === 1) checked.push({ text: b.text.slice(0, 40), native: on[0], ours: b.provenance?.page });
      }
      expect(checked.length).toBeGreaterThanOrEqual(15);
      expect(new Set(checked.map((c) => c.native)).size).toBeGreaterThanOrEqual(3);
      expect(checked.filter((c) => c.ours !== c.native)).toEqual([]);
    },
    300_000,
  );
});
